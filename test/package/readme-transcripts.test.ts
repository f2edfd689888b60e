import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";

/**
 * The README's transcripts are produced by the CLI against the fixture
 * projects in test/fixtures/readme/, so the manual cannot drift from what
 * the tool prints.
 */

const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/readme/${name}`, import.meta.url));

/** Runs the CLI from inside a fixture project, as a user in their repository would: files print relative to it. */
async function runIn(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cwd = process.cwd();
  process.chdir(fixture(name));
  try {
    return await runCliInProcess(...args);
  } finally {
    process.chdir(cwd);
  }
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
});
