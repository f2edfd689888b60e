/**
 * Commands find their project the way git, eslint and tsc do: from the
 * working folder up to the nearest folder with gamma-prompt.config.json or
 * skills/ (for the commands that only read a build, a built dist/ too),
 * saying which one when it is not the working folder; --root still decides.
 * The monorepo: two agents under packages/, nothing at the top.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/init.js";
import { cliPath, repoRoot } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { closeSessions, startMcp, structured } from "../mcp/client.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(async () => {
  await closeSessions();
  await removeTempDirs();
});

let mono = "";
let agent = "";
let support = "";

beforeAll(async () => {
  mono = await tempDir("gamma monorepo");
  mkdirSync(join(mono, ".git"));
  writeFileSync(join(mono, "package.json"), '{ "name": "mono", "private": true, "workspaces": ["packages/*"] }\n');
  agent = join(mono, "packages", "agent");
  support = join(mono, "packages", "support");
  expect((await init({ dir: agent })).ok).toBe(true);
  expect((await init({ dir: support, name: "Support agent" })).ok).toBe(true);
});

describe("commands run from inside a project", () => {
  it("lint, build, check, cost and report from packages/agent/skills work on packages/agent, and say so on stderr", async () => {
    const here = join(agent, "skills");
    for (const args of [["lint"], ["build"], ["check"], ["cost", "--format", "json"], ["report", "--format", "markdown"]]) {
      const run = await runCliInProcessFrom(here, ...args);
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      expect(run.stderr.split("\n")[0]).toBe(`gamma-prompt ${args[0]}: using the project in ../ (its gamma-prompt.config.json)`);
    }
    expect(existsSync(join(agent, "dist", "manifest.json"))).toBe(true);
    expect(existsSync(join(here, "dist"))).toBe(false);
    expect(existsSync(join(support, "dist"))).toBe(false);
  });

  it("from a folder deeper down names the project relative to it, and findings stay relative to the working folder", async () => {
    const here = join(agent, "skills", "style-guide", "references");
    const run = await runCliInProcessFrom(here, "lint", "--format", "json");
    expect(run.stderr).toBe("gamma-prompt lint: using the project in ../../../ (its gamma-prompt.config.json)\n");
    expect(run.code).toBe(0);
  });

  it("from inside the build's output (dist/, dist/skills/), which holds skills/ too, works on the project that built it", async () => {
    expect((await runCliInProcessFrom(agent, "build")).code).toBe(0);
    for (const [here, up] of [["dist", "../"], [join("dist", "skills"), "../../"]] as const) {
      for (const command of ["lint", "check", "build"]) {
        const run = await runCliInProcessFrom(join(agent, here), command);
        expect(run.stderr, `${command} in ${here}`).toBe(`gamma-prompt ${command}: using the project in ${up} (its gamma-prompt.config.json)\n`);
        expect(run.code, `${command} in ${here}`).toBe(0);
      }
    }
    expect(existsSync(join(agent, "dist", "dist"))).toBe(false);
    // Another program's manifest.json (a browser extension's) leaves a folder with skills/ a project.
    const extension = join(await tempDir("gamma extension"), "extension");
    mkdirSync(join(extension, "skills", "empty"), { recursive: true });
    writeFileSync(join(extension, "manifest.json"), '{ "manifest_version": 3, "name": "x" }\n');
    const own = await runCliInProcessFrom(join(extension, "skills"), "lint", "--allow-empty");
    expect(own.stderr).toBe("gamma-prompt lint: using the project in ../ (its skills/ or prompts/)\n");
  });

  it("from the project's own folder prints nothing about the root", async () => {
    const run = await runCliInProcessFrom(agent, "lint");
    expect(run).toMatchObject({ code: 0, stderr: "" });
  });

  it("from the monorepo's top, where no project is, exits 2 naming the projects below", async () => {
    for (const command of ["lint", "build", "check", "watch"]) {
      const run = await runCliInProcessFrom(mono, command);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(
        `gamma-prompt ${command}: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); projects below it: packages/agent, packages/support; pass --root with the project's folder\n`,
      );
    }
  });

  it("cost, report and eval, which read only a build, give the same message there: no build can be found", async () => {
    for (const args of [["cost"], ["report"], ["eval", "--replay"], ["cost", "--out", "./dist/"], ["eval", "--replay", "--dist", "dist"]]) {
      const run = await runCliInProcessFrom(mono, ...args);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(
        `gamma-prompt ${args[0]}: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); projects below it: packages/agent, packages/support; pass --root with the project's folder\n`,
      );
    }
    // An output folder named elsewhere that does not exist is no build either: the same message.
    for (const command of ["cost", "report"]) {
      const missing = await runCliInProcessFrom(mono, command, "--out", "builds/agent");
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(
        `gamma-prompt ${command}: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); projects below it: packages/agent, packages/support; pass --root with the project's folder\n`,
      );
    }
    // One that exists is read without a project: its own message when it holds no build.
    mkdirSync(join(mono, "builds", "agent"), { recursive: true });
    const elsewhere = await runCliInProcessFrom(mono, "cost", "--out", "builds/agent");
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe("gamma-prompt cost: no build in builds/agent/ (it holds no manifest.json): run `gamma-prompt build` first\n");
  });

  it("names packages that hold only skills/ (no config) too, and at most 20 of many", async () => {
    const skillsOnly = await tempDir("gamma monorepo skills");
    mkdirSync(join(skillsOnly, ".git"));
    for (const name of ["x", "y"]) mkdirSync(join(skillsOnly, "packages", name, "skills", "k"), { recursive: true });
    const run = await runCliInProcessFrom(skillsOnly, "lint");
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toContain("; projects below it: packages/x, packages/y; pass --root");
    const many = await tempDir("gamma monorepo many");
    mkdirSync(join(many, ".git"));
    const names = Array.from({ length: 25 }, (_, index) => `p${String(index).padStart(2, "0")}`);
    for (const name of names) mkdirSync(join(many, name, "skills"), { recursive: true });
    const crowded = await runCliInProcessFrom(many, "build");
    expect(crowded.code).toBe(2);
    expect(crowded.stderr).toContain(`; projects below it: ${names.slice(0, 20).join(", ")}, and more; pass --root`);
  });

  it("names a dot folder that holds skills (where hosts keep a repository's skills), and looks inside no other dot folder", async () => {
    const repository = await tempDir("gamma repository claude skills");
    mkdirSync(join(repository, ".claude", "skills", "brainstorming"), { recursive: true });
    // Not a project, and not walked into: a folder two levels down in .cache is never named.
    mkdirSync(join(repository, ".cache", "tool", "skills"), { recursive: true });
    mkdirSync(join(repository, ".git"));
    const run = await runCliInProcessFrom(repository, "lint");
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toBe("gamma-prompt lint: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); projects below it: .claude; pass --root with the project's folder\n");
  });

  it("run by a package manager from the monorepo's top, as pnpm exec and yarn do, takes the project of the folder they were started in (INIT_CWD)", async () => {
    const before = process.env["INIT_CWD"];
    try {
      process.env["INIT_CWD"] = join(agent, "skills");
      const run = await runCliInProcessFrom(mono, "lint");
      expect(run.stderr).toBe("gamma-prompt lint: using the project in packages/agent/ (its gamma-prompt.config.json)\n");
      expect(run.code).toBe(0);
      // A starting folder outside the working folder is not the package manager's: the usage error stands.
      process.env["INIT_CWD"] = repoRoot;
      expect((await runCliInProcessFrom(mono, "lint")).code).toBe(2);
    } finally {
      if (before === undefined) delete process.env["INIT_CWD"];
      else process.env["INIT_CWD"] = before;
    }
  });

  it("--root still decides, and is never announced", async () => {
    const run = await runCliInProcessFrom(join(agent, "skills"), "build", "--root", "../../support");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(existsSync(join(support, "dist", "manifest.json"))).toBe(true);
  });

  it("an empty --root (a CI variable that is not set) is one usage line and exit 2 in every command that takes --root, never the working folder", async () => {
    const commands = [["lint"], ["build"], ["check"], ["watch"], ["cost"], ["report"], ["audit", "session.jsonl"], ["mcp"], ["eval", "--replay"]];
    for (const args of commands) {
      for (const root of [["--root", ""], ["--root="]]) {
        const run = await runCliInProcessFrom(agent, ...args, ...root);
        expect(run, `${[...args, ...root].join(" ")}`).toEqual({
          code: 2,
          stdout: "",
          stderr: `gamma-prompt ${args[0]}: --root names no folder (an empty name); pass --root with the project's folder, or leave it out to use the project found from the working folder up\n`,
        });
      }
    }
  });

  it("a --root that does not exist or is a file is one usage line saying which, exit 2, in every command that takes --root (never \"no build\")", async () => {
    const commands = [["lint"], ["build"], ["check"], ["watch"], ["cost"], ["report"], ["audit", "session.jsonl"], ["mcp"], ["eval", "--replay"]];
    for (const args of commands) {
      for (const [root, what] of [
        ["../nope", "does not exist"],
        ["gamma-prompt.config.json", "is a file, not a folder"],
        ["gamma-prompt.config.json/inside", "does not exist (a part of its path is a file)"],
      ] as const) {
        const run = await runCliInProcessFrom(agent, ...args, "--root", root);
        expect(run, `${args.join(" ")} --root ${root}`).toEqual({ code: 2, stdout: "", stderr: `gamma-prompt ${args[0]}: project root "${root}" ${what}; pass --root with the project's folder\n` });
      }
    }
  });

  it("a project without a config is the nearest folder holding skills/ (the embedded default's layout)", async () => {
    const root = join(await tempDir("gamma no config"), "gamma");
    for (const part of ["skills", "prompts", "schemas", "knowledge", "dist"]) cpSync(join(repoRoot, part), join(root, part), { recursive: true });
    const run = await runCliInProcessFrom(join(root, "skills", "deck-generation"), "check");
    expect(run.stderr).toBe("gamma-prompt check: using the project in ../../ (its skills/ or prompts/)\n");
    expect(run.code).toBe(0);
  });

  it("a plugin's skills/ inside a collection whose config names it belongs to the collection: a staged file is linted with the collection's config and its other plugins", async () => {
    const root = await tempDir("gamma plugin collection");
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "agentskills", "skills": ["plugins/*/skills/*"] }\n');
    const skill = (plugin: string, name: string) => {
      mkdirSync(join(root, "plugins", plugin, "skills", name), { recursive: true });
      writeFileSync(join(root, "plugins", plugin, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: Use when committing changes in the ${plugin} plugin's repositories.\n---\n\n# Commit\n\nCommit the staged changes.\n`);
    };
    skill("a", "commit");
    skill("b", "commit");
    // From the collection's top, as a pre-commit hook passes a staged file: the collection, with the duplicate name across plugins.
    const staged = await runCliInProcessFrom(root, "lint", "--format", "json", "plugins/b/skills/commit/SKILL.md");
    expect((JSON.parse(staged.stdout) as { diagnostics: Array<{ ruleId: string }> }).diagnostics.map((finding) => finding.ruleId)).toContain("skill/name-duplicate");
    const inside = await runCliInProcessFrom(join(root, "plugins", "b"), "lint");
    expect(inside.stderr.split("\n")[0]).toBe("gamma-prompt lint: using the project in ../../ (its gamma-prompt.config.json)");
    // A folder with skills/ that the globs do not name stays a project of its own.
    mkdirSync(join(root, "tools", "other", "skills", "helper"), { recursive: true });
    writeFileSync(join(root, "tools", "other", "skills", "helper", "SKILL.md"), "---\nname: helper\ndescription: Use when helping with the tools folder.\n---\n\n# Helper\n\nHelp.\n");
    const other = await runCliInProcessFrom(join(root, "tools", "other", "skills"), "lint");
    expect(other.stderr.split("\n")[0]).toBe("gamma-prompt lint: using the project in ../ (its skills/ or prompts/)");
  });

  it("cost, report and eval find a project that is only a build (dist/ and evals/) from a folder inside it", async () => {
    const root = await tempDir("gamma dist only");
    cpSync(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
    cpSync(join(repoRoot, "evals"), join(root, "evals"), { recursive: true });
    mkdirSync(join(root, "sessions"));
    const cost = await runCliInProcessFrom(join(root, "sessions"), "cost", "--format", "json");
    expect(cost.stderr).toBe("gamma-prompt cost: using the project in ../ (its built dist/)\n");
    expect(cost.code).toBe(0);
    const replay = await runCliInProcessFrom(join(root, "sessions"), "eval", "--replay", "../evals/blocking-question.yaml");
    expect(replay.stderr).toBe("gamma-prompt eval: using the project in ../ (its built dist/)\n");
    expect(replay.code).toBe(0);
  }, 60_000);

  it("mcp started in packages/agent/skills serves packages/agent (a real process over the SDK's client)", async () => {
    const session = await startMcp(join(agent, "skills"));
    expect(structured(await session.call("lint"))).toMatchObject({ errorCount: 0 });
    expect(session.stderr()).toBe("gamma-prompt mcp: using the project in ../ (its gamma-prompt.config.json)\n");
    expect(await session.close()).toBe(0);
  });

  it("watch from packages/agent/prompts watches packages/agent (a real process)", async () => {
    const child = spawn(process.execPath, [cliPath, "watch", "--format", "json"], { cwd: join(agent, "prompts"), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    try {
      const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
      expect(JSON.parse(first)).toMatchObject({ type: "initial", ok: true });
      expect(stderr).toBe("gamma-prompt watch: using the project in ../ (its gamma-prompt.config.json)\n");
    } finally {
      child.kill("SIGINT");
    }
  });
});
