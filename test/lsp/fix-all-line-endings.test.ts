/**
 * Over the real protocol: "fix all" on a SKILL.md whose lines end in different ways gives, once the client's
 * own text library applies it, the text `lint --fix` writes. The edit's range never ends between a CR and its
 * LF: a text library takes the pair as one line break and moves such an end past it, keeping the CR.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction, TextEdit } from "vscode-languageserver/node";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { disposeClients, repoRoot, start } from "./client.js";
import { editedText } from "./edit.js";

afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

const CASE = join(repoRoot, "test/fixtures/fix/mixed-endings");
const SKILL = "skills/mixed/SKILL.md";

describe("fix all in the editor, lines ending in LF and CRLF", () => {
  it("gives the text lint --fix writes, and no range that splits a CRLF", async () => {
    const root = await copyParts(join(CASE, "project"), ["skills", "gamma-prompt.config.json"], await tempDir("gamma lsp fix all endings"));
    const text = readFileSync(join(root, SKILL), "utf8");
    const expected = readFileSync(join(CASE, "fixed", SKILL), "utf8");

    const client = await start(root);
    await client.open(SKILL, text);
    await client.diagnosticsFor(SKILL, (diagnostics) => diagnostics.length > 0);
    const fixAll = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", {
      textDocument: { uri: client.uri(SKILL) },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ["source.fixAll.gamma-prompt"] },
    });
    const change = fixAll[0]?.edit?.documentChanges?.[0];
    const edits = change && "edits" in change ? change.edits.filter((entry): entry is TextEdit => "newText" in entry) : [];
    expect(edits).toHaveLength(1);
    expect(editedText(text, edits)).toBe(expected);
  });
});
