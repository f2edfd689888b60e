/**
 * Over the real protocol: "fix all" on a SKILL.md gives the text `lint --fix`
 * writes for it, when one fix makes another possible (a flow-style metadata
 * written in block style lets a top-level field move under it): the same
 * passes, in one edit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction, TextEdit } from "vscode-languageserver/node";
import { lint } from "../../src/lint.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { disposeClients, repoRoot, start } from "./client.js";
import { editedText } from "./edit.js";

afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

const CASE = join(repoRoot, "test/fixtures/fix/two-passes");
const SKILL = "skills/flow-metadata/SKILL.md";

describe("fix all in the editor", () => {
  it("makes every pass lint --fix makes, in one edit", async () => {
    const root = await copyParts(join(CASE, "project"), ["skills", "gamma-prompt.config.json"], await tempDir("gamma lsp fix all"));
    const text = readFileSync(join(root, SKILL), "utf8");
    const expected = readFileSync(join(CASE, "fixed", SKILL), "utf8");
    const dryRun = await lint({ root, fix: "dry-run" });
    expect(dryRun.fixedFiles?.find((file) => file.file === SKILL)?.after).toBe(expected);

    const client = await start(root);
    await client.open(SKILL, text);
    const found = await client.diagnosticsFor(SKILL, (diagnostics) => diagnostics.length > 0);
    const fixAll = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", {
      textDocument: { uri: client.uri(SKILL) },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ["source.fixAll.gamma-prompt"] },
    });
    expect(fixAll.map((action) => action.kind)).toEqual(["source.fixAll.gamma-prompt"]);
    const changes = fixAll[0]?.edit?.documentChanges ?? [];
    expect(changes).toHaveLength(1);
    const change = changes[0];
    const edits = change && "edits" in change ? change.edits.filter((entry): entry is TextEdit => "newText" in entry) : [];
    expect(edits).toHaveLength(1);
    const fixed = editedText(text, edits);
    expect(fixed).toBe(expected);

    // The fixed buffer has none of the findings that had a safe fix left.
    const since = client.published.length;
    await client.change(SKILL, fixed);
    const after = await client.diagnosticsFor(SKILL, () => true, since);
    expect(found.map((diagnostic) => diagnostic.code)).toContain("skill/portable-manifest");
    expect(after.map((diagnostic) => diagnostic.code)).toEqual([]);
  });
});
