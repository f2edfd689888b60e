/**
 * Over the real protocol: under the agentskills profile, a top-level design
 * field is published as skill/portable-manifest, and the server offers the
 * rewrite into the portable spelling as a quick fix (and in fix-all); the
 * fixed buffer is what `lint --fix` writes, and it publishes clean.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction } from "vscode-languageserver/node";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { disposeClients, start } from "./client.js";
import { editedText } from "./edit.js";

afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

const DRAFT = "skills/draft/SKILL.md";
const BODY = ["# Draft", "", "1. Read the notes.", "2. Write the draft.", "3. Check the draft against the notes.", ""];
const WRITTEN = [
  "---",
  "name: draft",
  "type: workflow # an ordered procedure",
  "description: Use when asked to draft a document from notes.",
  "requiresSkills:",
  "  - style",
  "conflictsWith: []",
  "license: MIT",
  "---",
  "",
  ...BODY,
].join("\n");
const PORTABLE = [
  "---",
  "name: draft",
  "description: Use when asked to draft a document from notes.",
  "license: MIT",
  "metadata:",
  "  gamma-type: workflow # an ordered procedure",
  "  gamma-requires-skills: style",
  "---",
  "",
  ...BODY,
].join("\n");

/** A plain skills collection (no prompts/: the agentskills profile) with one skill in each spelling. */
async function collection(): Promise<string> {
  const root = await tempDir("gamma lsp portable");
  mkdirSync(join(root, "skills", "draft"), { recursive: true });
  mkdirSync(join(root, "skills", "style"), { recursive: true });
  writeFileSync(join(root, DRAFT), WRITTEN);
  writeFileSync(join(root, "skills/style/SKILL.md"), "---\nname: style\ndescription: Use BEFORE writing text the user reads.\nmetadata:\n  gamma-type: reference\n---\n\n# Style\n\n- Short sentences.\n");
  return root;
}

describe("the portable spelling in the editor", () => {
  it("publishes skill/portable-manifest on each top-level field and offers the rewrite as a quick fix", async () => {
    const client = await start(await collection());
    await client.open(DRAFT, WRITTEN);
    const diagnostics = await client.diagnosticsFor(DRAFT, (found) => found.some((diagnostic) => diagnostic.code === "skill/portable-manifest"));
    const portable = diagnostics.filter((diagnostic) => diagnostic.code === "skill/portable-manifest");
    expect(portable.map((diagnostic) => [diagnostic.range.start.line, diagnostic.message])).toEqual([
      [2, 'Unexpected top-level "type", expected "gamma-type: workflow" under metadata, the spelling Agent Skills validators such as skills-ref accept (gamma-prompt lint --fix moves it)'],
      [4, 'Unexpected top-level "requiresSkills", expected "gamma-requires-skills: style" under metadata, the spelling Agent Skills validators such as skills-ref accept (gamma-prompt lint --fix moves it)'],
      [6, 'Unexpected top-level "conflictsWith", expected the empty list left out (a list goes under metadata as "gamma-conflicts-with: a b"), the spelling Agent Skills validators such as skills-ref accept (gamma-prompt lint --fix moves it)'],
    ]);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toContain("skill/yaml-portable");

    // The quick fix on any one of the fields moves them all: one manifest, one spelling.
    const [requires] = portable.slice(1);
    const actions = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(DRAFT) }, range: requires?.range, context: { diagnostics: [requires] } });
    const fix = actions.find((action) => action.title.startsWith("Fix:"));
    expect(fix?.title).toBe("Fix: moved type, requiresSkills and conflictsWith under metadata as gamma-type and gamma-requires-skills (the empty conflictsWith left out)");
    expect(fix?.kind).toBe("quickfix");
    const change = fix?.edit?.documentChanges?.[0];
    const edits = change && "edits" in change ? change.edits.filter((entry) => "newText" in entry) : [];
    const fixed = editedText(WRITTEN, edits);
    expect(fixed).toBe(PORTABLE);

    const fixAll = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(DRAFT) }, range: requires?.range, context: { diagnostics: [], only: ["source.fixAll.gamma-prompt"] } });
    const all = fixAll[0]?.edit?.documentChanges?.[0];
    expect(editedText(WRITTEN, all && "edits" in all ? all.edits.filter((entry) => "newText" in entry) : [])).toBe(PORTABLE);

    const since = client.published.length;
    await client.change(DRAFT, fixed);
    expect(await client.diagnosticsFor(DRAFT, () => true, since)).toEqual([]);
  });
});
