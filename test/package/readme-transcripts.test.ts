import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcess, runCliInProcessFrom, startCliInProcess, type CliRun } from "../helpers/cli.js";
import { docPage, expectExcerptOf, readme } from "../helpers/docs.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { saveAtomically } from "../watch/helpers.js";

afterAll(removeTempDirs);

/**
 * The manual's transcripts (README.md and the pages under docs/) are produced
 * by the CLI against the fixture projects in test/fixtures/readme/, so the
 * manual cannot drift from what the tool prints.
 */

const cliReference = docPage("docs/reference/cli.md");
const promptsGuide = docPage("docs/guide/prompts-and-variants.md");
const editorGuide = docPage("docs/guide/editor.md");
const cachingGuide = docPage("docs/guide/caching-and-cost.md");
const evaluationsGuide = docPage("docs/guide/evaluations-and-audits.md");

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/readme/${name}`, import.meta.url));

/** Runs the CLI from inside a fixture project, as a user in their repository would: files print relative to it. */
async function runIn(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcessFrom(fixture(name), ...args);
}

describe("manual transcripts", () => {
  it("shows lint's stylish output exactly as printed", async () => {
    const transcript = cliReference.blockStartingWith("$ gamma-prompt lint\n");
    const { code, stdout } = await runIn("lint-example", "lint");
    expect(code).toBe(1);
    expect(transcript.slice("$ gamma-prompt lint\n".length)).toBe(stdout);
  });

  it("shows lint --fix and --fix-dry-run exactly as printed, on a copy of the lint-fix project", async () => {
    for (const [flag, stream] of [["--fix-dry-run", "stdout"], ["--fix", "stdout"]] as const) {
      const copy = await copyParts(fixture("lint-fix"), ["skills", "gamma-prompt.config.json"], await tempDir("readme fix"));
      const transcript = cliReference.blockStartingWith(`$ gamma-prompt lint ${flag}\n`);
      const output = await runCliInProcessFrom(copy, "lint", flag);
      expect(output.code).toBe(0);
      expect(transcript.slice(`$ gamma-prompt lint ${flag}\n`.length)).toBe(output[stream]);
    }
  });

  it("shows lint's JSON document exactly as printed", async () => {
    const { stdout } = await runIn("lint-warning", "lint", "--format", "json");
    expect(cliReference.blockStartingWith('{"diagnostics":')).toBe(stdout);
  });

  it("shows explain for a rule, and for a rule named without its category, exactly as printed", async () => {
    const explained = await runCliInProcess("explain", "variant/unknown-skill");
    expect(explained.code).toBe(0);
    const unknown = await runCliInProcess("explain", "unknown-skill");
    expect(unknown.code).toBe(2);
    expect(cliReference.blockStartingWith("$ gamma-prompt explain variant/unknown-skill\n")).toBe(
      `$ gamma-prompt explain variant/unknown-skill\n${explained.stdout}$ gamma-prompt explain unknown-skill\n${unknown.stderr}`,
    );
  });

  it("shows lint's GitHub annotations exactly as printed", async () => {
    const { stdout } = await runIn("lint-warning", "lint", "--format", "github");
    expect(cliReference.blockStartingWith("::warning ")).toBe(stdout);
  });

  it("shows build's table for the embedded default exactly as printed on a current dist/", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme build"), "gamma"));
    const { code, stdout } = await runCliInProcess("build", "--root", root);
    expect(code).toBe(0);
    expect(readme.blockStartingWith("$ npx gamma-prompt build\nvariant          bytes")).toBe(`$ npx gamma-prompt build\n${stdout}`);
  });

  it("shows `init my-agent`, then build and check in the new project, exactly as printed", async () => {
    const parent = await tempDir("readme init");
    const created = await runCliInProcessFrom(parent, "init", "my-agent");
    expect(created.code).toBe(0);
    const root = join(parent, "my-agent");
    const built = await runCliInProcessFrom(root, "build");
    expect(built.code).toBe(0);
    const checked = await runCliInProcessFrom(root, "check");
    expect(checked.code).toBe(0);
    expect(readme.blockStartingWith("$ npx gamma-prompt init my-agent\n")).toBe(
      `$ npx gamma-prompt init my-agent\n${created.stdout}$ cd my-agent\n$ npx gamma-prompt build\n${built.stdout}$ npx gamma-prompt check\n${checked.stdout}`,
    );
  });

  it("shows the build after adding the prompts guide's `outline` variant to a fresh `init` project exactly as printed", async () => {
    const root = join(await tempDir("readme outline"), "my-agent");
    expect((await runCliInProcess("init", root)).code).toBe(0);
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
    // The variants file as the prompts guide shows it, then the build that follows.
    await writeFile(join(root, "prompts/variants.yaml"), promptsGuide.blockStartingWith("variants:\n  base:\n    preload: []\n  outline:"));
    const { code, stdout } = await runCliInProcessFrom(root, "build");
    expect(code).toBe(0);
    expect(promptsGuide.blockStartingWith("$ npx gamma-prompt build\nvariant  bytes")).toBe(`$ npx gamma-prompt build\n${stdout}`);
  });

  it("shows watch's lines for the edits the editor guide names exactly as printed, durations aside", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("readme watch"), "gamma"));
    const deckGeneration = join(root, "skills/deck-generation/SKILL.md");
    const importSkill = join(root, "skills/import/SKILL.md");
    const original = await readFile(importSkill, "utf8");
    const listenersBefore = new Set(process.listeners("SIGINT"));
    const watching = startCliInProcess(root, "watch");
    try {
      await untilOutput(watching, (out) => out.includes("(Ctrl-C to stop)\n"));
      // Saved as editors save (a temp file renamed over it): one change per edit, never read half-written.
      await saveAtomically(deckGeneration, (await readFile(deckGeneration, "utf8")).replace(/^(description: TRIGGER for every new presentation request)/m, "$1 or outline"));
      await untilBuilds(watching, 2);
      await saveAtomically(importSkill, original.replace(/^  gamma-type: workflow$/m, "  gamma-type: workflw"));
      await untilBuilds(watching, 3);
      await saveAtomically(importSkill, original);
      await untilBuilds(watching, 4);
    } finally {
      // What Ctrl-C does: the listener watch installed for SIGINT runs, and watch returns.
      for (const listener of process.listeners("SIGINT")) if (!listenersBefore.has(listener)) listener("SIGINT");
    }
    const { code, stdout, stderr } = await watching.done;
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(withoutDurations(editorGuide.blockStartingWith("$ gamma-prompt watch\n"))).toBe(withoutDurations(`$ gamma-prompt watch\n${stdout}`));
  });

  it("shows check's drift report on an edited identity exactly as printed, where `...` leaves lines out", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme check"), "gamma"));
    const identity = join(root, "prompts/partials/identity.hbs");
    await writeFile(identity, (await readFile(identity, "utf8")).replace(/^# Gamma agent$/m, "# Gamma!"));
    const { code, stdout } = await runCliInProcessFrom(root, "check");
    expect(code).toBe(1);
    const transcript = cliReference.blockStartingWith("$ gamma-prompt check\n").slice("$ gamma-prompt check\n".length);
    expectExcerptOf(transcript, stdout);
  });

  it("shows check's cost of an edit to the identity exactly as printed, where `...` leaves lines out", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme edit cost"), "gamma"));
    const identity = join(root, "prompts/partials/identity.hbs");
    const text = await readFile(identity, "utf8");
    expect(text).toContain("You are the Gamma agent");
    await writeFile(identity, text.replace("You are the Gamma agent", "You are the Gamma presentation agent"));
    const { code, stdout } = await runCliInProcessFrom(root, "check");
    expect(code).toBe(1);
    const command = '$ gamma-prompt check          # after "You are the Gamma agent" became "You are the Gamma presentation agent"\n';
    expectExcerptOf(cachingGuide.blockStartingWith(command).slice(command.length), stdout);
  });

  it("shows check's cost of an edit inside a variant tail exactly as printed, where `...` leaves lines out", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme tail edit cost"), "gamma"));
    const skill = join(root, "skills/ask-user-questions/SKILL.md");
    await writeFile(skill, `${await readFile(skill, "utf8")}\nAsk one question at a time when the answers depend on each other.\n`);
    const { code, stdout } = await runCliInProcessFrom(root, "check");
    expect(code).toBe(1);
    const command = "$ gamma-prompt check          # after a line was added at the end of skills/ask-user-questions/SKILL.md\n";
    expectExcerptOf(cachingGuide.blockStartingWith(command).slice(command.length), stdout);
  });

  it("shows eval's replay of two shipped scenarios exactly as printed, and the scenario file it quotes", async () => {
    const command = "$ gamma-prompt eval --replay evals/topic-only-deck.yaml evals/blocking-question.yaml\n";
    const { code, stdout } = await runCliInProcessFrom(repoRoot, ...command.slice(2).trim().split(" ").slice(1));
    expect(code).toBe(0);
    expect(evaluationsGuide.blockStartingWith(command)).toBe(`${command}${stdout}`);
    const scenario = await readFile(join(repoRoot, "evals/blocking-question.yaml"), "utf8");
    expect(evaluationsGuide.blockStartingWith(scenario.slice(0, scenario.indexOf("\n") + 1), "yaml")).toBe(scenario);
  });

  it("shows cost for the embedded default under the default profile exactly as printed", async () => {
    const { code, stdout } = await runCliInProcessFrom(repoRoot, "cost");
    expect(code).toBe(0);
    expect(cachingGuide.blockStartingWith("$ gamma-prompt cost\n")).toBe(`$ gamma-prompt cost\n${stdout}`);
  });
});

/** Durations differ from run to run: the editor guide's watch transcript matches the output with every `in N ms` as `in … ms`. */
function withoutDurations(text: string): string {
  return text.replace(/\bin \d+ ms\b/g, "in … ms");
}

/** Waits until the output of a running command satisfies `ready` (watch prints each build's lines in one go). */
async function untilOutput(run: CliRun, ready: (stdout: string) => boolean): Promise<void> {
  // Polling, not a fixed pause: the wait ends as soon as the lines are there, however long the build took.
  while (!ready(run.stdout())) {
    const ended = await Promise.race([run.done.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 10))]);
    if (ended) throw new Error(`the command ended early:\n${run.stdout()}${run.stderr()}`);
  }
}

/** Waits until watch has reported `count` builds, each on a line of its own. */
function untilBuilds(run: CliRun, count: number): Promise<void> {
  return untilOutput(run, (out) => out.split("\n").filter((line) => /^[✔✖] .*\b(built|rebuilt|build failed) in \d+ ms\b/.test(line)).length >= count);
}

describe("manual evaluations", () => {
  it("shows the eval summary table exactly as a replay of the shipped cassettes prints it", async () => {
    const command = "$ gamma-prompt eval --replay evals/topic-only-deck.yaml evals/blocking-question.yaml\n";
    const { code, stdout } = await runCliInProcessFrom(repoRoot, ...command.slice(2).trim().split(" ").slice(1));
    expect(code).toBe(0);
    expect(evaluationsGuide.blockStartingWith(command), "after a prompt change: re-record with node scripts/record-eval-cassettes.mjs, then copy the table").toBe(`${command}${stdout}`);
  });

  it("shows evals/blocking-question.yaml as it is", async () => {
    expect(evaluationsGuide.blockStartingWith("# The request depends on notes")).toBe(await readFile(join(repoRoot, "evals/blocking-question.yaml"), "utf8"));
  });
});
