// "Running across servers" as a user follows it: the guide's server sample runs
// as written (against the compiled package, on a real PostgreSQL server) and
// prints what the page shows; the servers example runs end to end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../build/helpers.js";
import { docPage } from "../helpers/docs.js";
import { usePostgres } from "./helpers.js";

const db = usePostgres({ migrate: false });
const guide = docPage("docs/guide/running-across-servers.md");
// Inside the repository (a folder git ignores), so the sample's bare imports resolve to the installed packages.
const folder = mkdtempSync(join(repoRoot, ".gamma-prompt-tmp-guide-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const lib = (path: string) => JSON.stringify(pathToFileURL(join(repoRoot, "lib", path)).href);

describe("the running-across-servers guide", () => {
  it("has a server sample that runs as written and prints what the page shows", () => {
    const sample = guide.blockStartingWith('import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";', "js");
    const file = join(folder, "server.mjs");
    writeFileSync(file, sample.replace('"gamma-prompt/runtime/postgres"', lib("runtime-postgres/index.js")).replace('"gamma-prompt/runtime"', lib("runtime/index.js")));
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { ...process.env, DATABASE_URL: db.server().url } });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const shown = guide.blockStartingWith("$ node server.mjs");
    expect(shown).toBe(`$ node server.mjs\n${run.stdout}`);
  }, 60_000);

  it("has a server sample that outlives a database connection dropped while idle in its pool", async () => {
    const sample = guide.blockStartingWith('import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";', "js");
    const migrate = "await migratePostgres(pool);";
    expect(sample).toContain(migrate);
    // Right after the sample's first statement on the pool, the database ends the pool's idle connection (as a restart does).
    const dropIdle = `
const { rows: [{ pid }] } = await pool.query("select pg_backend_pid() as pid");
const idle = pool.idleCount;
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
await admin.query("select pg_terminate_backend($1)", [pid]);
await admin.end();
while (pool.idleCount >= idle) await new Promise((resolve) => setTimeout(resolve, 10));
`;
    const file = join(folder, "server-dropped.mjs");
    const text = sample.replace('"gamma-prompt/runtime/postgres"', lib("runtime-postgres/index.js")).replace('"gamma-prompt/runtime"', lib("runtime/index.js"));
    writeFileSync(file, text.replace(migrate, `${migrate}\n${dropIdle}`));
    // A database of its own: the first sample's session and event are in the other one.
    await db.pool().query("create database guide_dropped_connection");
    const url = db.server().url.replace(/\/postgres$/, "/guide_dropped_connection");
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { ...process.env, DATABASE_URL: url } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^database connection lost: terminating connection due to administrator command\n$/);
    expect(`$ node server.mjs\n${run.stdout}`).toBe(guide.blockStartingWith("$ node server.mjs"));
  }, 60_000);

  it("points at an example that kills a server mid-batch and finishes the request on another", () => {
    expect(guide.text).toContain("`npm run example -- --servers`");
    const run = spawnSync(process.execPath, ["examples/run.mjs", "--servers"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^server-a +│ {3}\.\.\. {6}gml render is running/m);
    expect(run.stdout).toContain("✗ server-a killed in the middle of a tool batch");
    expect(run.stdout).toMatch(/^server-b +│ hosting deck-42 \(lease token 2, waited \d+ ms\): active skills deck-generation, gml-authoring, gml-cli, ask-user-questions; tasks revision [34]; \d+ messages in the transcript$/m);
    expect(run.stdout).toMatch(/^server-b +│ pending {4}artifact_update evt_brief_saved:/m);
    expect(run.stdout).toMatch(/^server-b +│ completion audit: PASSED$/m);
  }, 120_000);
});
