/**
 * The package as a user gets it: packed with `npm pack`, installed from the
 * tarball into a fresh project outside the repository, without the optional
 * Pi peers. Every default path (the embedded dist/, schemas, docs, data,
 * templates) must resolve from the installed, bundled CLI, not only from the
 * repository's own modules.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PI_NOT_INSTALLED, PI_REQUIREMENT, piPackageNames } from "../../src/protocol/pi-requirement.js";
import { docPage } from "../helpers/docs.js";
import { installPackedPackage, linkPi } from "../helpers/packed-package.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { largeProject } from "../build/helpers.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
/** Where the two lines a user without Pi meets are shown, each as an indented line of its own. */
const withoutPiDoc = docPage("docs/node-and-pi.md");

afterAll(removeTempDirs);

let user = "";
let project = "";
let cli = "";

/** Imports `specifier` in a script of the user's project: what it exports, or the error it throws. */
function importFromProject(specifier: string): { exports?: string[]; error?: { name: string; code: unknown; message: string } } {
  const script = `import(${JSON.stringify(specifier)}).then(
    (module) => console.log(JSON.stringify({ exports: Object.keys(module) })),
    (error) => console.log(JSON.stringify({ error: { name: error.name, code: error.code, message: error.message } })),
  );`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: user, encoding: "utf8", timeout: 60_000 });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ReturnType<typeof importFromProject>;
}

function run(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let installOutput = "";

beforeAll(async () => {
  // lib/ is what the tests already built (npm run build:ts); packing again must not rebuild it.
  const installed = await installPackedPackage({ name: "gamma-installed" });
  user = installed.project;
  cli = installed.cli;
  installOutput = installed.installOutput;
  project = join(user, "agents", "my-agent");
  mkdirSync(project, { recursive: true });
}, 420_000);

describe("the packed and installed package, without Pi", () => {
  it("runs no script on install and asks about none: npm's output names none, the packed package.json declares none", () => {
    expect(installOutput).not.toMatch(/install-scripts|gamma-prompt@[\d.]+ \(/);
    const installedManifest = JSON.parse(readFileSync(join(user, "node_modules", "gamma-prompt", "package.json"), "utf8")) as { scripts?: Record<string, string> };
    const installTime = ["preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare", "prepublish"];
    expect(Object.keys(installedManifest.scripts ?? {}).filter((name) => installTime.includes(name))).toEqual([]);
  });

  it("carries its licence, and no source map pointing at TypeScript sources the package does not ship", () => {
    const installed = join(user, "node_modules", "gamma-prompt");
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    const maps = readdirSync(join(installed, "lib"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".map"));
    expect(maps).toEqual([]);
  });

  it("has no Pi package installed (the case under test)", () => {
    for (const spec of PI_REQUIREMENT.packages) {
      const name = spec.slice(0, spec.lastIndexOf("@"));
      expect(existsSync(join(project, "..", "..", "node_modules", name)), name).toBe(false);
    }
  });

  it("init, lint, build, check and cost work in a subfolder project, with a $schema that resolves", () => {
    const init = run(project, "init");
    expect(init.status, init.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(project, "gamma-prompt.config.json"), "utf8")) as { $schema: string };
    expect(config.$schema).toBe("../../node_modules/gamma-prompt/schemas/config.schema.json");
    expect(existsSync(join(project, config.$schema))).toBe(true);
    for (const command of ["lint", "build", "check", "cost"]) {
      const result = run(project, command);
      expect(result.status, `${command}: ${result.stderr}${result.stdout}`).toBe(0);
      expect(result.stderr).not.toContain("internal error");
    }
  }, 120_000);

  it("a large project's build counts its tokens on the installed worker thread, and check --full counts them again the same", async () => {
    const large = await largeProject(320, join(user, "agents", "large-agent"));
    const hook = join(repoRoot, "test/fixtures/hooks/report-heavy-loads.cjs");
    const built = spawnSync(process.execPath, ["--require", hook, cli, "build"], { cwd: large, encoding: "utf8", timeout: 120_000 });
    expect(built.status, built.stderr).toBe(0);
    expect(built.stderr.split("\n")).toContain("WORKER THREAD: TOKENIZER LOADED");
    expect(built.stderr.split("\n")).not.toContain("TOKENIZER LOADED");
    const checked = run(large, "check", "--full");
    expect(checked.status, `${checked.stderr}${checked.stdout}`).toBe(0);
  }, 180_000);

  it("commands run from a folder inside the project find it and say so", () => {
    for (const command of ["lint", "build", "check", "cost"]) {
      const result = run(join(project, "skills", "style-guide"), command);
      expect(result.status, `${command}: ${result.stderr}${result.stdout}`).toBe(0);
      expect(result.stderr.split("\n")[0]).toBe(`gamma-prompt ${command}: using the project in ../../ (its gamma-prompt.config.json)`);
    }
  }, 120_000);

  it("audit judges a session log against the project's own dist/, refuses the package's embedded one, and says what it audited", () => {
    const manifest = JSON.parse(readFileSync(join(project, "dist", "manifest.json"), "utf8")) as { staticPrefix: { cacheKey: string } };
    const key = manifest.staticPrefix.cacheKey;
    // What FileSessionLog records for a draft-outline run that yields without doing a step.
    const log = [
      { type: "session", variant: "base", preloadedSkills: [], cacheKey: key },
      { type: "tool_call", id: "c1", name: "skill", arguments: { name: "draft-outline" } },
      { type: "skills_loaded", names: ["draft-outline", "style-guide"] },
      { type: "tool_call", id: "c2", name: "message_user", arguments: { message: "Here is your outline.", blockOnUser: true } },
      { type: "yield", message: "Here is your outline.", toolCallId: "c2" },
    ];
    writeFileSync(join(project, "s1.jsonl"), log.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
    const failing = run(project, "audit", "s1.jsonl");
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain("✖ 6 problems (6 errors, 0 warnings)\n");
    expect(failing.stdout.endsWith(`audited 1 transcript: 1 yield, 1 workflow (draft-outline), on dist/ (cache key ${key.slice(0, 12)})\n`)).toBe(true);
    const embedded = run(project, "audit", "s1.jsonl", "--dist", "../../node_modules/gamma-prompt/dist");
    expect(embedded.status).toBe(1);
    expect(embedded.stdout).toMatch(new RegExp(`audit/dist-mismatch|Unexpected session log of the build with cache key ${key.slice(0, 12)}, audited against \\.\\./\\.\\./node_modules/gamma-prompt/dist/ \\(cache key [0-9a-f]{12}\\)`));
    expect(embedded.stdout).not.toContain("required-step");
    writeFileSync(join(project, "s2.jsonl"), `${JSON.stringify(log[0])}\nnot json\n`);
    const unreadable = run(project, "audit", "s2.jsonl");
    expect(unreadable.status).toBe(1);
    expect(unreadable.stdout).toContain("audit/transcript-format");
  });

  it("a path no command can use is one line on stderr and exit 2, never an internal error", () => {
    const cases: Array<[string[], string]> = [
      [["report", "--output", "/nonexistent/dir/r.html"], "gamma-prompt report: cannot write the report to /nonexistent/dir/r.html: the folder /nonexistent/dir does not exist\n"],
      [["report", "--output", "dist"], "gamma-prompt report: cannot write the report to dist: it is a folder, expected a file's path\n"],
      [["build", "--out", "gamma-prompt.config.json/out"], 'gamma-prompt build: output folder "gamma-prompt.config.json/out" cannot be created: a part of the path is a file, not a folder (EEXIST)\n'],
      [["cost", "--profile", "nowhere/traffic.json"], "gamma-prompt cost: cannot read the traffic profile nowhere/traffic.json: the folder nowhere does not exist\n"],
    ];
    for (const [args, line] of cases) {
      const result = run(project, ...args);
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 2, stderr: line });
    }
  });

  it("explain names a rule page that the package holds", () => {
    const explained = run(project, "explain", "skill/broken-link");
    expect(explained.status).toBe(0);
    expect(explained.stdout).toContain("docs/rules/skill/broken-link.md in the package");
    expect(existsSync(join(project, "..", "..", "node_modules", "gamma-prompt", "docs", "rules", "skill", "broken-link.md"))).toBe(true);
  });

  it("mcp serves the project through the installed SDK: tools listed, a lint answered, a rule page read, exit 0 on close", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp"], cwd: project, stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
    const client = new Client({ name: "installed-package-test", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("lint");
    const linted = await client.callTool({ name: "lint", arguments: {} });
    expect(linted.isError).toBeFalsy();
    expect(linted.structuredContent).toMatchObject({ errorCount: 0 });
    const [page] = (await client.readResource({ uri: "gamma-prompt://rules/skill/type-value" })).contents;
    expect(page && "text" in page ? page.text : "").toBe(readFileSync(join(user, "node_modules", "gamma-prompt", "docs", "rules", "skill", "type-value.md"), "utf8"));
    await client.close();
  }, 60_000);

  it("eval exits 2 with one line naming the Pi packages and the Node version they need", () => {
    for (const args of [["eval", "--replay"], ["eval", "--list-models"]]) {
      const result = run(project, ...args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`gamma-prompt eval: this command runs an agent on Pi, whose packages are not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})\n`);
    }
    expect(withoutPiDoc.text).toContain(`\n      ${run(project, "eval", "--replay").stderr}`);
  });

  it("the compiler library imports; the runtime fails with one error that names the Pi packages and the Node version", () => {
    // With the errors its functions throw: audit's ArtifactVerificationError is tested for without the runtime.
    expect(importFromProject("gamma-prompt").exports).toEqual(expect.arrayContaining(["build", "check", "lint", "audit", "ArtifactVerificationError", "InterruptedBuildError"]));
    const runtime = importFromProject("gamma-prompt/runtime");
    expect(withoutPiDoc.text).toContain(`\n      ${runtime.error?.message ?? "(loaded)"}\n`);
    expect(runtime).toEqual({
      error: {
        name: "PiNotInstalledError",
        code: PI_NOT_INSTALLED,
        message: `gamma-prompt/runtime runs agents on Pi, and ${piPackageNames().join(", ")} are not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})`,
      },
    });
  });

  it("runEvals without Pi says a bad option as such, and a good call's missing packages with the error the library exports", () => {
    const script = `const { runEvals, EvalUsageError, PiNotInstalledError } = await import("gamma-prompt");
const outcome = (options) => runEvals(options).then(() => ({ resolved: true }), (error) => ({ name: error.name, usage: error instanceof EvalUsageError, pi: error instanceof PiNotInstalledError, message: error.message }));
console.log(JSON.stringify([await outcome({ replay: true, runs: "2" }), await outcome({ replay: true })]));`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8", timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { name: "EvalUsageError", usage: true, pi: false, message: 'Unexpected runs "2", expected a whole number of at least 1' },
      { name: "PiNotInstalledError", usage: false, pi: true, message: expect.stringContaining("are not installed: npm install") },
    ]);
  });

  it("with the Pi packages in place, the runtime loads", () => {
    // The repository's own Pi (the pinned devDependencies, the versions the requirement names), linked
    // into the project as an install would place it; removed again so the tests above stay without Pi.
    const linked = linkPi(user);
    try {
      const loaded = importFromProject("gamma-prompt/runtime");
      expect(loaded.error).toBeUndefined();
      expect(loaded.exports).toEqual(expect.arrayContaining(["createGammaAgent", "createGammaSession", "loadArtifacts"]));
    } finally {
      for (const link of linked) rmSync(link, { force: true });
    }
  });
});
