import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InitCancelled, runInitCommand } from "../../src/cli/commands/init.js";
import { init, InitUsageError, planScaffold } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { listFiles, removeTempDirs, spawnCli, snapshotTree, tempDir } from "../build/helpers.js";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";

afterAll(removeTempDirs);

const AGENT_FILES = [
  "gamma-prompt.config.json",
  "prompts/injections.yaml",
  "prompts/partials/compaction.hbs",
  "prompts/partials/identity.hbs",
  "prompts/partials/injections.hbs",
  "prompts/partials/precedence.hbs",
  "prompts/partials/skill-contracts.hbs",
  "prompts/partials/skill-selection.hbs",
  "prompts/partials/task-state.hbs",
  "prompts/partials/yield.hbs",
  "prompts/prefix.hbs",
  "prompts/variant.hbs",
  "prompts/variants.yaml",
  "schemas/tools/bash.json",
  "schemas/tools/edit.json",
  "schemas/tools/message_user.json",
  "schemas/tools/order.json",
  "schemas/tools/read.json",
  "schemas/tools/skill.json",
  "schemas/tools/todo.json",
  "schemas/tools/write.json",
  "skills/draft-outline/SKILL.md",
  "skills/style-guide/SKILL.md",
  "skills/style-guide/references/checklist.md",
];

describe("gamma-prompt init", () => {
  it("scaffolds a neutral agent that builds and checks at once, with no finding at all (real processes in the new folder, exit 0 each)", async () => {
    const parent = await tempDir();
    const created = spawnCli(["init", "my agent"], { cwd: parent });
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    expect(created.stdout.split("\n")[0]).toBe("Created a new agent in my agent/ (template agent, profile gamma): 24 files");
    expect(created.stdout).toContain('\nNext:\n  cd "my agent"\n  npx gamma-prompt build\n  npx gamma-prompt check\n');
    const root = join(parent, "my agent");
    expect(await listFiles(root)).toEqual(AGENT_FILES);

    const built = spawnCli(["build"], { cwd: root });
    expect(built.stderr).toBe("");
    expect(built.status).toBe(0);
    expect(built.stdout).toMatch(/^variant\s+bytes\s+tokens\s+shared prefix\s+cacheable\s+prefix share\nbase\s+\d+/);
    const checked = spawnCli(["check"], { cwd: root });
    expect(checked.status).toBe(0);
    expect((await lint({ root })).diagnostics).toEqual([]);

    const prefix = await readFile(join(root, "dist/prefix.md"), "utf8");
    expect(prefix.startsWith("# Assistant\n\nYou are Assistant, an agent")).toBe(true);
    expect(prefix).not.toMatch(/gamma/i);
    for (const section of ["# Instruction precedence", "# Runtime injections", "# Skills", "<available_skills>", "## Workflow skills", "## Reference skills", "# Task state", "# Messages and yield control", "Your task state and active skills survive context compaction."]) {
      expect(prefix).toContain(section);
    }
    const config = JSON.parse(await readFile(join(root, "gamma-prompt.config.json"), "utf8")) as Record<string, unknown>;
    // No installed package at the project's folder or above: the schema's stable URL.
    expect(config).toEqual({ $schema: "https://unpkg.com/gamma-prompt/schemas/config.schema.json", profile: "gamma" });
  });

  it("points $schema at the installed package's schema from the config's folder, also from a subfolder", async () => {
    const root = await tempDir();
    await mkdir(join(root, "node_modules/gamma-prompt/schemas"), { recursive: true });
    await writeFile(join(root, "node_modules/gamma-prompt/schemas/config.schema.json"), "{}\n");
    for (const [dir, expected] of [
      [root, "./node_modules/gamma-prompt/schemas/config.schema.json"],
      [join(root, "agents/my-agent"), "../../node_modules/gamma-prompt/schemas/config.schema.json"],
    ] as const) {
      expect((await init({ dir })).ok).toBe(true);
      const ref = (JSON.parse(await readFile(join(dir, "gamma-prompt.config.json"), "utf8")) as { $schema: string }).$schema;
      expect(ref).toBe(expected);
      expect(existsSync(join(dir, ref))).toBe(true);
    }
  });

  it("never overwrites: lists the files it would skip, writes nothing and exits 1; --force overwrites", async () => {
    const root = await tempDir();
    await writeFile(join(root, "gamma-prompt.config.json"), "{}\n");
    const before = await snapshotTree(root);
    const refused = await runCliInProcess("init", root);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("1 file of the scaffold already exists in");
    expect(refused.stderr).toContain("nothing was written:\n  gamma-prompt.config.json\nRe-run with --force to overwrite them.\n");
    expect(await snapshotTree(root)).toEqual(before);

    const forced = await runCliInProcess("init", root, "--force");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("  gamma-prompt.config.json  (overwritten)\n");
    expect(await listFiles(root)).toEqual(AGENT_FILES);
  });

  it("takes every answer as a flag: --name, --template gamma, --profile agentskills", async () => {
    const named = await tempDir();
    expect((await init({ dir: named, name: "Support agent" })).ok).toBe(true);
    expect(await readFile(join(named, "prompts/partials/identity.hbs"), "utf8")).toMatch(/^# Support agent\n\nYou are Support agent, /);

    const gamma = await tempDir();
    expect((await init({ dir: gamma, template: "gamma" })).ok).toBe(true);
    const built = await runCliInProcess("build", "--root", gamma);
    expect(built.code).toBe(0);
    expect(await readFile(join(gamma, "dist/manifest.json"), "utf8")).toBe(await readFile(join(process.cwd(), "dist/manifest.json"), "utf8"));

    const collection = await tempDir();
    const result = await init({ dir: collection, profile: "agentskills" });
    expect(result.files).toEqual(["gamma-prompt.config.json", "skills/draft-outline/SKILL.md", "skills/style-guide/SKILL.md", "skills/style-guide/references/checklist.md"]);
    const skill = await readFile(join(collection, "skills/draft-outline/SKILL.md"), "utf8");
    expect(skill.split("\n---\n")[0]).toBe("---\nname: draft-outline\ndescription: Use when the user asks for an outline of a document, talk, report or plan, including a request that names only a topic.");
    expect(JSON.parse(await readFile(join(collection, "gamma-prompt.config.json"), "utf8"))).toMatchObject({ profile: "agentskills" });
    // lint reads the profile the config names: the collection passes at once.
    const linted = await runCliInProcessFrom(collection, "lint");
    expect(linted).toEqual({ code: 0, stdout: "✔ no problems · 2 skills, profile agentskills\n", stderr: "" });
  });

  it("--template gamma copies the evaluations too: `eval --replay` in the copy runs every shipped scenario and passes", async () => {
    const root = await tempDir();
    expect((await init({ dir: root, template: "gamma" })).ok).toBe(true);
    const shipped = (await listFiles(join(process.cwd(), "evals"))).map((file) => `evals/${file}`);
    expect(shipped.filter((file) => file.endsWith(".yaml")).length).toBeGreaterThanOrEqual(7);
    expect((await listFiles(root)).filter((file) => file.startsWith("evals/"))).toEqual(shipped);
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
    const replay = await runCliInProcessFrom(root, "eval", "--replay");
    expect(replay.stderr).toBe("");
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(`${shipped.filter((file) => file.endsWith(".yaml")).length} scenarios passed`);
  }, 120_000);

  it("on a terminal asks for each choice not given as a flag; flags are never asked again", async () => {
    const root = await tempDir();
    const asked: string[] = [];
    const answers: Record<string, string> = { Template: "agent", Profile: "gamma", "Agent name": "Release helper" };
    const ask = async (question: string, fallback: string): Promise<string> => {
      asked.push(`${question} [${fallback}]`);
      return answers[question.split(" (")[0] ?? ""] ?? fallback;
    };
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(await runInitCommand(root, {}, ask)).toBe(0);
      expect(asked).toEqual(["Template (agent/gamma) [agent]", "Profile (gamma/agentskills) [gamma]", "Agent name [Assistant]"]);
      expect(await readFile(join(root, "prompts/partials/identity.hbs"), "utf8")).toMatch(/^# Release helper\n/);
      asked.length = 0;
      expect(await runInitCommand(root, { template: "agent", profile: "gamma", name: "X" }, async (question, fallback) => {
        asked.push(question);
        return question.includes("overwrite") ? "y" : fallback;
      })).toBe(0);
      expect(asked).toEqual(["24 files already exist; overwrite? (y/N)"]);
      expect(await readFile(join(root, "prompts/partials/identity.hbs"), "utf8")).toMatch(/^# X\n/);
    } finally {
      process.stdout.write = write;
    }
  });

  it("on a terminal asks a mistyped choice again, and a prompt ended with Ctrl+C or Ctrl+D writes nothing (exit 130)", async () => {
    const root = await tempDir();
    const asked: string[] = [];
    const answers = ["gama", "gamma"];
    const write = process.stdout.write;
    const writeError = process.stderr.write;
    const errors: string[] = [];
    process.stdout.write = (() => true) as typeof process.stdout.write;
    process.stderr.write = ((text: string) => errors.push(text) > 0) as typeof process.stderr.write;
    try {
      const typo = await runInitCommand(root, {}, async (question) => {
        asked.push(question);
        return answers.shift() ?? "";
      });
      expect(typo).toBe(0);
      expect(asked).toEqual(["Template (agent/gamma)", "Template (agent/gamma)"]);
      expect(errors).toEqual(['Unexpected template "gama", expected one of agent, gamma\n']);
      const other = await tempDir();
      errors.length = 0;
      const cancelled = await runInitCommand(other, {}, async () => {
        throw new InitCancelled();
      });
      expect(cancelled).toBe(130);
      expect(errors).toEqual(["gamma-prompt init: cancelled; nothing was written\n"]);
      expect(await listFiles(other)).toEqual([]);
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeError;
    }
  });

  it("refuses bad choices as usage errors (exit 2) without writing", async () => {
    expect(() => planScaffold({ template: "gamma", profile: "agentskills" })).toThrow(InitUsageError);
    expect(() => planScaffold({ name: "{{evil}}" })).toThrow(/agent name/);
    const root = await tempDir();
    const run = await runCliInProcess("init", root, "--template", "nope");
    expect(run.code).toBe(2);
    expect(await listFiles(root)).toEqual([]);
    await writeFile(join(root, "prompts"), "a file where a folder belongs");
    const blocked = await runCliInProcess("init", root);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain("  prompts/prefix.hbs\n");
    const file = join(root, "a-file");
    await writeFile(file, "x");
    expect((await runCliInProcess("init", file)).code).toBe(2);
  });
});
