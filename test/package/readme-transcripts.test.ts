import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

/**
 * The README's transcripts are produced by the CLI against the fixture
 * projects in test/fixtures/readme/, so the manual cannot drift from what
 * the tool prints.
 */

const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/readme/${name}`, import.meta.url));

/** Runs the CLI from inside a fixture project, as a user in their repository would: files print relative to it. */
async function runIn(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcessFrom(fixture(name), ...args);
}


/** The text of every fenced code block, without its fences. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

/** The one block that starts with `start`. */
function blockStartingWith(start: string): string {
  const found = codeBlocks(readme).filter((block) => block.startsWith(start));
  expect(found, `one README block starting with ${JSON.stringify(start)}`).toHaveLength(1);
  return found[0] as string;
}

describe("README transcripts", () => {
  it("shows lint's stylish output exactly as printed", async () => {
    const transcript = blockStartingWith("$ gamma-prompt lint\n");
    const { code, stdout } = await runIn("lint-example", "lint");
    expect(code).toBe(1);
    expect(transcript.slice("$ gamma-prompt lint\n".length)).toBe(stdout);
  });

  it("shows lint's JSON document exactly as printed", async () => {
    const { stdout } = await runIn("lint-warning", "lint", "--format", "json");
    expect(blockStartingWith('{"diagnostics":')).toBe(stdout);
  });

  it("shows lint's GitHub annotations exactly as printed", async () => {
    const { stdout } = await runIn("lint-warning", "lint", "--format", "github");
    expect(blockStartingWith("::warning ")).toBe(stdout);
  });

  it("shows build's table for the embedded default exactly as printed on a current dist/", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme build"), "gamma"));
    const { code, stdout } = await runCliInProcess("build", "--root", root);
    expect(code).toBe(0);
    expect(blockStartingWith("$ npx gamma-prompt build\nvariant          bytes")).toBe(`$ npx gamma-prompt build\n${stdout}`);
  });

  it("shows build and check on a fresh `init` project exactly as printed", async () => {
    const root = join(await tempDir("readme init"), "my-agent");
    expect((await runCliInProcess("init", root)).code).toBe(0);
    const built = await runCliInProcess("build", "--root", root);
    expect(built.code).toBe(0);
    const checked = await runCliInProcess("check", "--root", root);
    expect(checked.code).toBe(0);
    const block = blockStartingWith("$ npx gamma-prompt init my-agent\n");
    const tail = block.slice(block.indexOf("$ cd my-agent\n") + "$ cd my-agent\n".length);
    expect(tail).toBe(`$ npx gamma-prompt build\n${built.stdout}$ npx gamma-prompt check\n${checked.stdout}`);
  });

  it("shows check's drift report on an edited identity exactly as printed, where `...` leaves lines out", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist"], join(await tempDir("readme check"), "gamma"));
    const identity = join(root, "prompts/partials/identity.hbs");
    await writeFile(identity, (await readFile(identity, "utf8")).replace(/^# Gamma agent$/m, "# Gamma!"));
    const { code, stdout } = await runCliInProcessFrom(root, "check");
    expect(code).toBe(1);
    const transcript = blockStartingWith("$ gamma-prompt check\n").slice("$ gamma-prompt check\n".length);
    expectExcerptOf(transcript, stdout);
  });
});

/** `excerpt` is `full` with some runs of whole lines replaced by a `...` line; every other byte must match, in order. */
function expectExcerptOf(excerpt: string, full: string): void {
  const pieces = excerpt.split(/^\.\.\.\n/m);
  expect(pieces.length, "the excerpt leaves something out").toBeGreaterThan(1);
  let at = 0;
  for (const [index, piece] of pieces.entries()) {
    const found = full.indexOf(piece, at);
    expect(found, `README excerpt piece ${index} in order:\n${piece}`).toBeGreaterThanOrEqual(at);
    if (index === 0) expect(found, "the excerpt starts where the output starts").toBe(0);
    // A piece must begin at a line start so that `...` stands for whole lines.
    expect(found === 0 || full[found - 1] === "\n", `piece ${index} starts a line`).toBe(true);
    at = found + piece.length;
  }
  if (pieces.at(-1) !== "") expect(at, "the excerpt ends where the output ends").toBe(full.length);
}
