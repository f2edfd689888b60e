/**
 * The package as a user gets it: packed with `npm pack`, installed from the
 * tarball into a fresh project outside the repository, without the optional
 * Pi peers. Every default path (the embedded dist/, schemas, docs, data,
 * templates) must resolve from the installed, bundled CLI, not only from the
 * repository's own modules.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PI_REQUIREMENT } from "../../src/cli/pi-requirement.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

afterAll(removeTempDirs);

let project = "";
let cli = "";

function run(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  // lib/ is what the tests already built (npm run build:ts); packing again must not rebuild it.
  const packed = await tempDir("gamma-pack");
  const pack = spawnSync(npm, ["pack", "--ignore-scripts", "--pack-destination", packed, "--json"], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  expect(pack.status, pack.stderr).toBe(0);
  const filename = (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]?.filename ?? "";
  const user = await tempDir("gamma-installed");
  project = join(user, "agents", "my-agent");
  writeFileSync(join(user, "package.json"), `${JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: "module" })}\n`);
  const install = spawnSync(npm, ["install", join(packed, filename), "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=peer"], { cwd: user, encoding: "utf8", timeout: 300_000 });
  expect(install.status, install.stderr).toBe(0);
  cli = join(user, "node_modules", "gamma-prompt", "lib", "cli", "index.js");
  mkdirSync(project, { recursive: true });
}, 420_000);

describe("the packed and installed package, without Pi", () => {
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

  it("audit with its default --dist reads the embedded dist/, and reports an unreadable line", () => {
    const transcript = join(project, "session.jsonl");
    writeFileSync(transcript, '{"type":"session","variant":"base","preloadedSkills":[]}\n{"type":"yield","message":"Done.","toolCallId":"c1"}\n');
    const passing = run(project, "audit", "session.jsonl");
    expect(passing.stderr).toBe("");
    expect(passing.status).toBe(0);
    writeFileSync(transcript, '{"type":"session","variant":"base","preloadedSkills":[]}\nnot json\n');
    const failing = run(project, "audit", "session.jsonl");
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain("audit/transcript-format");
  });

  it("explain names a rule page that the package holds", () => {
    const explained = run(project, "explain", "skill/broken-link");
    expect(explained.status).toBe(0);
    expect(explained.stdout).toContain("docs/rules/skill/broken-link.md in the package");
    expect(existsSync(join(project, "..", "..", "node_modules", "gamma-prompt", "docs", "rules", "skill", "broken-link.md"))).toBe(true);
  });

  it("eval exits 2 with one line naming the Pi packages and the Node version they need", () => {
    for (const args of [["eval", "--replay"], ["eval", "--list-models"]]) {
      const result = run(project, ...args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`gamma-prompt eval: this command runs an agent on Pi, whose packages are not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})\n`);
    }
  });
});
