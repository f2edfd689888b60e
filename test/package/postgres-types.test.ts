/**
 * `gamma-prompt/runtime/postgres` as a TypeScript project meets it, the packed
 * package installed from its tarball. A producer or a deploy step installs
 * neither Pi nor `@types/pg` (`pg` ships no types): the entry's declarations
 * type-check without them under strict with skipLibCheck off, and its own
 * `Pool` type still refuses what is not a pool. A server with Pi and
 * `@types/pg` passes node-postgres's pool and clients as they are, and keeps
 * Pi's types for the sessions it opens.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { piPackageNames } from "../../src/protocol/pi-requirement.js";
import { installPackedPackage, linkInstalled, linkPi } from "../helpers/packed-package.js";
import { removeTempDirs } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

afterAll(removeTempDirs);

let producer = "";
let server = "";

/** Every name src/runtime-postgres/index.ts exports, values and types. */
function exportedNames(): string[] {
  const text = readFileSync(join(repoRoot, "src", "runtime-postgres", "index.ts"), "utf8");
  const names = [...text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((match) =>
    (match[1] as string)
      .split(",")
      .map((entry) => entry.trim().replace(/^type\s+/, ""))
      .filter((entry) => entry !== ""),
  );
  return [...new Set(names)].sort();
}

/** Type-checks `files` (name → source) in a folder of `project`: tsc's output and exit status. */
function typeCheck(project: string, name: string, files: Record<string, string>, skipLibCheck: boolean): { status: number | null; output: string } {
  const dir = join(project, name);
  mkdirSync(dir, { recursive: true });
  const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, skipLibCheck, noEmit: true, types: [] };
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: Object.keys(files) }, null, 2)}\n`);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const result = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: dir, encoding: "utf8", timeout: 180_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
  producer = (await installPackedPackage({ name: "gamma-postgres-producer" })).project;
  linkInstalled(producer, ["@types/node"]);
  server = (await installPackedPackage({ name: "gamma-postgres-server" })).project;
  linkPi(server);
  linkInstalled(server, ["@types/node", "@types/pg", "pg"]);
}, 420_000);

describe("a producer without Pi and without @types/pg", () => {
  it("has neither installed (the case under test)", () => {
    for (const name of [...piPackageNames(), "pg", "@types/pg"]) expect(existsSync(join(producer, "node_modules", name)), name).toBe(false);
  });

  it("type-checks under strict with skipLibCheck off, importing every export of gamma-prompt/runtime/postgres", () => {
    const names = exportedNames();
    expect(names).toEqual(expect.arrayContaining(["migratePostgres", "publishUpdate", "PostgresSessions", "Pool", "Queryable"]));
    const consumer = [
      `import { ${names.join(", ")} } from "gamma-prompt/runtime/postgres";`,
      "",
      "declare const pool: Pool;",
      "declare const client: Queryable;",
      "const migrated: MigrationResult = await migratePostgres(pool);",
      'const published: PublishResult = await publishUpdate(client, "deck-42", { id: "evt_1" });',
      "console.log(migrated, published, postgresMigrations().length, EVENTS_CHANNEL, MAX_EVENT_BYTES);",
      `export { ${names.join(", ")} };`,
      "",
    ].join("\n");
    const checked = typeCheck(producer, "producer", { "producer.ts": consumer }, false);
    expect(checked.output).toBe("");
    expect(checked.status).toBe(0);
  }, 180_000);

  it("refuses a connection string, or an object that is no pool, where a pool is expected", () => {
    const consumer = [
      'import { migratePostgres, PostgresSessions, publishUpdate } from "gamma-prompt/runtime/postgres";',
      "",
      'await migratePostgres("postgres://postgres@127.0.0.1:5432/postgres");',
      'await publishUpdate("postgres://postgres@127.0.0.1:5432/postgres", "deck-42", { id: "evt_1" });',
      "await PostgresSessions.start({ pool: { nonsense: true } });",
      "",
    ].join("\n");
    const checked = typeCheck(producer, "mistakes", { "mistakes.ts": consumer }, false);
    expect(checked.output.trim().split("\n")).toEqual([
      "mistakes.ts(3,23): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Pool'.",
      "mistakes.ts(4,21): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Queryable'.",
      "mistakes.ts(5,40): error TS2353: Object literal may only specify known properties, and 'nonsense' does not exist in type 'Pool'.",
    ]);
  }, 180_000);
});

describe("a server with Pi and @types/pg", () => {
  it("passes node-postgres's pool and clients as they are, and keeps Pi's types for a hosted session", () => {
    const consumer = [
      'import pg from "pg";',
      'import type { Agent } from "@earendil-works/pi-agent-core";',
      'import { migratePostgres, PostgresSessions, publishUpdate, type HostedAgent } from "gamma-prompt/runtime/postgres";',
      "",
      "const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });",
      "await migratePostgres(pool);",
      "const sessions = await PostgresSessions.start({ pool });",
      "const client = await pool.connect();",
      'await publishUpdate(client, "deck-42", { id: "evt_1" });',
      "client.release();",
      "const alone = new pg.Client();",
      'await publishUpdate(alone, "deck-42", { id: "evt_2" });',
      "await sessions.close();",
      "",
      "type IsAny<T> = 0 extends 1 & T ? true : false;",
      'const agentIsTyped: IsAny<HostedAgent["agent"]> = false;',
      'const agentIsPi: HostedAgent["agent"] extends Agent ? true : false = true;',
      "console.log(agentIsTyped, agentIsPi);",
      "",
    ].join("\n");
    const checked = typeCheck(server, "server", { "server.ts": consumer }, true);
    expect(checked.output).toBe("");
    expect(checked.status).toBe(0);
  }, 180_000);
});
