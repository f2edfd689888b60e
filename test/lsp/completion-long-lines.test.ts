/**
 * Completion on long lines a hostile or generated SKILL.md can hold: each
 * request reads the line once, so the answers below come at once (on a
 * server that tried every start or every cut of the line, each request took
 * minutes and held up every request after it).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CompletionItem } from "vscode-languageserver/node";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { disposeClients, start } from "./client.js";

afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

const LONG = 200_000;

async function completeAtEndOf(frontmatterLine: string, extra = ""): Promise<CompletionItem[]> {
  const root = await tempDir("gamma-lsp-long-lines");
  for (const name of ["outline", "style"]) {
    mkdirSync(join(root, "skills", name), { recursive: true });
    writeFileSync(join(root, "skills", name, "SKILL.md"), `---\nname: ${name}\ntype: reference\ndescription: Use when writing the ${name}.\n---\n\n# ${name}\n`);
  }
  const text = `---\nname: outline\ntype: reference\ndescription: Use when writing the outline.\n${extra}${frontmatterLine}\n---\n\n# outline\n`;
  const client = await start(root);
  await client.open("skills/outline/SKILL.md", text);
  const line = text.split("\n").indexOf(frontmatterLine);
  return client.connection.sendRequest<CompletionItem[]>("textDocument/completion", { textDocument: { uri: client.uri("skills/outline/SKILL.md") }, position: { line, character: frontmatterLine.length } });
}

describe("completion on a long frontmatter line", () => {
  it("sees that a line of opening brackets closed at its end holds no open list", async () => {
    expect(await completeAtEndOf(`requiresSkills: ${"[".repeat(LONG)}]`)).toEqual([]);
  });

  it("offers the skills inside an open list whose typed name follows a long run of name characters", async () => {
    const items = await completeAtEndOf(`requiresSkills: [${"a".repeat(LONG)}!st`);
    expect(items.map((item) => item.label)).toContain("style");
    // The typed name is what follows the `!`: the edit replaces those two characters only.
    const edit = items[0]?.textEdit as { range: { start: { character: number }; end: { character: number } } } | undefined;
    expect((edit?.range.end.character ?? 0) - (edit?.range.start.character ?? 0)).toBe(2);
  });

  it("offers nothing after a portable skill list's long run of spaces that ends in what no name holds", async () => {
    expect(await completeAtEndOf(`  gamma-requires-skills:${" ".repeat(40)}!`, "metadata:\n")).toEqual([]);
  });
});
