/**
 * A server bundled whole (gamma-prompt/runtime, its PostgreSQL entry and Pi)
 * and run from a folder with no node_modules anywhere above it, as
 * docs/guide/runtime.md ("Bundling a server") shows: the artifacts load and
 * are checked against the manifest schema, a turn runs on Pi's faux provider,
 * and the migrations are the package's own even where the application has a
 * package.json and a sql/postgres/ of its own. The compiler, bundled, stops at
 * once with one line. Bundled with rolldown, as installed for this repository.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docPage } from "../helpers/docs.js";
import { installPackedPackage } from "../helpers/packed-package.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const page = docPage("docs/guide/runtime.md");
const serverSample = page.blockStartingWith('import { createGammaAgent, loadArtifacts, scriptedModel, stubExecutors } from "gamma-prompt/runtime";\nimport { postgresMigrations }', "js");
const transcript = page.blockStartingWith("$ npx rolldown server.mjs");

afterAll(removeTempDirs);

let project = "";
let cli = "";

function sh(command: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, PATH: `${join(repoRoot, "node_modules", ".bin")}:${process.env["PATH"] ?? ""}` };
  const result = spawnSync("bash", ["-c", command], { cwd, env, encoding: "utf8", timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A folder under the temporary root: nothing above it holds node_modules or a gamma-prompt package. */
async function deployFolder(): Promise<string> {
  const root = await tempDir("gamma-deploy");
  // The application's own package.json and migrations, which a bundled gamma-prompt must never take for its own.
  writeFileSync(join(root, "package.json"), `${JSON.stringify({ name: "host-app", version: "1.0.0", type: "module" })}\n`);
  mkdirSync(join(root, "sql", "postgres"), { recursive: true });
  writeFileSync(join(root, "sql", "postgres", "0001_users.sql"), "create table users (id integer primary key);\n");
  return root;
}

beforeAll(async () => {
  const installed = await installPackedPackage({ pi: true, name: "gamma-bundled" });
  project = installed.project;
  cli = installed.cli;
  for (const args of [["init", "my-agent"], ["build", "--root", "my-agent"]]) {
    const result = spawnSync(process.execPath, [cli, ...args], { cwd: project, encoding: "utf8", timeout: 120_000 });
    expect(result.status, result.stderr).toBe(0);
  }
}, 420_000);

describe("a bundled server", () => {
  it("runs as the runtime guide shows, from a folder with no node_modules: artifacts loaded and checked, a turn on Pi, the package's own migrations", async () => {
    writeFileSync(join(project, "server.mjs"), serverSample);
    const root = await deployFolder();
    const steps = transcript.split(/^\$ /m).filter((step) => step !== "");
    const commands = steps.map((step) => (step.split("\n")[0] as string).replace(/^npx /, "").replaceAll("/srv/agent", join(root, "agent")));
    for (const command of commands.slice(0, -1)) {
      const result = sh(command, project);
      expect(result.status, `${command}: ${result.stderr}`).toBe(0);
    }
    const run = sh(commands.at(-1) as string, project);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe((steps.at(-1) as string).split("\n").slice(1).join("\n"));
    expect(run.stdout).toBe("Tide pools it is. Who is the audience?\nsessions, migration_checksums\n");
  }, 180_000);

  it("without a distDir, loadArtifacts says to pass one: a bundle has no embedded dist/", async () => {
    writeFileSync(
      join(project, "default-dist.mjs"),
      'import { loadArtifacts } from "gamma-prompt/runtime";\ntry {\n  loadArtifacts();\n} catch (error) {\n  console.log(error.message);\n}\n',
    );
    const root = await deployFolder();
    const built = sh(`rolldown default-dist.mjs --platform node --format esm --inlineDynamicImports --file ${JSON.stringify(join(root, "default-dist.mjs"))}`, project);
    expect(built.status, built.stderr).toBe(0);
    const run = sh("node default-dist.mjs", root);
    expect(run.stdout).toBe(
      `gamma-prompt/runtime: no gamma-prompt package folder holds ${join(root, "default-dist.mjs")} (a bundled runtime), so it has no embedded dist/: pass loadArtifacts({ distDir }) the folder your build wrote\n`,
    );
  }, 180_000);

  it("the compiler, bundled, stops at once with one line saying it runs from its installed package", async () => {
    writeFileSync(join(project, "lint.mjs"), 'import { lint } from "gamma-prompt";\nconsole.log(typeof lint);\n');
    const root = await deployFolder();
    const built = sh(`rolldown lint.mjs --platform node --format esm --inlineDynamicImports --file ${JSON.stringify(join(root, "bundle", "lint.mjs"))}`, project);
    expect(built.status, built.stderr).toBe(0);
    cpSync(join(root, "bundle"), join(root, "app", "bundle"), { recursive: true });
    const run = sh("node bundle/lint.mjs", join(root, "app"));
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `Error: gamma-prompt: the compiler must run from its installed package (node_modules/gamma-prompt), whose schemas, rule pages and templates it reads, and ${join(root, "app")}/ is not that package: keep "gamma-prompt" out of the bundle (external), or run the gamma-prompt command\n`,
    );
  }, 180_000);
});
