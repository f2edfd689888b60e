import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction, CodeLens, CompletionItem, Hover, Location, WorkspaceEdit } from "vscode-languageserver/node";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { CLIENT_CAPABILITIES, copyEmbeddedDefault, disposeClients, start, type TestClient } from "./client.js";
import { applyWorkspaceEdit, editedText } from "./edit.js";

const IMPORT = "skills/import/SKILL.md";
const DECK = "skills/deck-generation/SKILL.md";
afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

async function openFromDisk(client: TestClient, path: string, edit: (text: string) => string = (text) => text): Promise<string> {
  const text = edit(readFileSync(join(client.root, path), "utf8"));
  await client.open(path, text);
  return text;
}

const at = (client: TestClient, path: string, line: number, character: number) => ({ textDocument: { uri: client.uri(path) }, position: { line, character } });
const labels = (items: CompletionItem[]): string[] => items.map((item) => item.label);
const hoverText = (hover: Hover | null): string => (hover && typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "");

describe("completion", () => {
  it("offers skill names, manifest keys and values, partials, and rule ids where each belongs", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, DECK, (text) => text.replace("  gamma-conflicts-with: import\n", "  gamma-conflicts-with: import \n  gam\n\nlic\ntype: \n# gamma-prompt-disable-next-line skill/na\n"));
    const complete = (path: string, line: number, character: number) => client.connection.sendRequest<CompletionItem[]>("textDocument/completion", at(client, path, line, character));
    // Skill names inside the portable spelling's space-separated string, after a space.
    const skills = labels(await complete(DECK, 6, 31));
    expect(skills).toEqual(expect.arrayContaining(["import", "gml-cli", "ask-user-questions"]));
    expect(skills).not.toContain("deck-generation");
    expect(labels(await complete(DECK, 4, 14))).toEqual(["workflow", "reference"]);
    expect(labels(await complete(DECK, 7, 5))).toEqual(["gamma-tool-namespaces"]);
    const keys = labels(await complete(DECK, 9, 3));
    expect(keys).toEqual(expect.arrayContaining(["license", "allowed-tools", "version", "disable-model-invocation"]));
    expect(keys).not.toContain("name");
    expect(labels(await complete(DECK, 10, 6))).toEqual(["workflow", "reference"]);
    const ruleIds = await complete(DECK, 11, 41);
    expect(labels(ruleIds)).toEqual(expect.arrayContaining(["skill/name-mismatch", "skill/name-format"]));
    // Each item replaces the whole id typed so far, `/` included: a client that takes words as runs of letters
    // would otherwise insert `skill/skill/name-mismatch` or filter every item out.
    const range = { start: { line: 11, character: 33 }, end: { line: 11, character: 41 } };
    expect(ruleIds.find((item) => item.label === "skill/name-mismatch")).toMatchObject({ textEdit: { range, newText: "skill/name-mismatch" } });
    expect(ruleIds.every((item) => item.filterText === undefined)).toBe(true);
    // So does a skill name with `-` in it, typed in part.
    const named = await complete(DECK, 6, 31);
    expect(named.every((item) => item.textEdit !== undefined && "range" in item.textEdit && item.textEdit.range.end.character === 31)).toBe(true);

    await openFromDisk(client, "prompts/variants.yaml");
    expect(labels(await complete("prompts/variants.yaml", 6, 14))).toContain("import");
    await openFromDisk(client, "prompts/prefix.hbs", (text) => `{{> }}\n${text}`);
    expect(labels(await complete("prompts/prefix.hbs", 0, 4))).toEqual(expect.arrayContaining(["identity", "yield", "skill-selection"]));
    await client.open("gamma-prompt.config.json", '{\n  "rules": {\n    "skill/\n  }\n}\n');
    const rules = labels(await complete("gamma-prompt.config.json", 2, 11));
    expect(rules).toContain("skill/description-trigger");
    expect(rules.every((id) => id.startsWith("skill/"))).toBe(true);
  });
});

describe("completion in the text as clients send it", () => {
  const EDITED = (text: string): string => text.replace("  gamma-conflicts-with: import\n", "  gamma-conflicts-with: import \n  gam\n\nlic\n# gamma-prompt-disable-next-line skill/na\n");
  /** Positions in EDITED: a skill name in the portable list, the type's values, a metadata key, a top-level key, a rule id. */
  const POSITIONS = [[6, 31], [4, 14], [7, 5], [9, 3], [10, 41]] as const;

  it("offers the same items, with the same ranges, in a file with CRLF line endings, with lone CRs and with a leading byte order mark", async () => {
    const client = await start(await copyEmbeddedDefault());
    const original = readFileSync(join(client.root, DECK), "utf8");
    const itemsFor = async (text: string) => {
      await client.change(DECK, text);
      return Promise.all(POSITIONS.map(([line, character]) => client.connection.sendRequest<CompletionItem[]>("textDocument/completion", at(client, DECK, line, character))));
    };
    await client.open(DECK, original);
    const lf = await itemsFor(EDITED(original));
    expect(lf.every((items) => items.length > 0)).toBe(true);
    expect(await itemsFor(EDITED(original).replace(/\n/g, "\r\n"))).toEqual(lf);
    expect(await itemsFor(EDITED(original).replace(/\n/g, "\r"))).toEqual(lf);
    expect(await itemsFor(`\uFEFF${EDITED(original)}`)).toEqual(lf);
    expect(await itemsFor(`\uFEFF${EDITED(original).replace(/\n/g, "\r\n")}`)).toEqual(lf);
  });

  it("offers skill names inside a quoted portable list and a quoted list item, as it does unquoted", async () => {
    const client = await start(await copyEmbeddedDefault());
    const original = readFileSync(join(client.root, DECK), "utf8");
    const complete = async (text: string, line: number, character: number) => {
      await client.change(DECK, text);
      return client.connection.sendRequest<CompletionItem[]>("textDocument/completion", at(client, DECK, line, character));
    };
    await client.open(DECK, original);
    const cases = [
      ['  gamma-conflicts-with: "import "', 31],
      ["  gamma-conflicts-with: 'import '", 31],
      ['  gamma-conflicts-with: "imp"', 27],
      ['  gamma-conflicts-with: "import gml"', 34],
    ] as const;
    for (const [written, character] of cases) {
      const items = await complete(original.replace("  gamma-conflicts-with: import", written), 6, character);
      expect(labels(items), written).toEqual(expect.arrayContaining(["import", "gml-cli"]));
      expect(labels(items), written).not.toContain("deck-generation");
      // The item replaces the name typed after the quote or the space, and leaves the quote alone.
      const typed = /[\w-]*$/.exec(written.slice(0, character))?.[0] ?? "";
      expect(items[0]?.textEdit && "range" in items[0].textEdit ? items[0].textEdit.range : undefined, written).toEqual({ start: { line: 6, character: character - typed.length }, end: { line: 6, character } });
    }
    // A closed string is a finished value: nothing after its closing quote.
    expect(await complete(original.replace("  gamma-conflicts-with: import", '  gamma-conflicts-with: "import" '), 6, 33)).toEqual([]);
    // Top-level lists, one item per line, quoted.
    const topLevel = original.replace(/metadata:\n[\s\S]*?\n---/, "type: workflow\nrequiresSkills:\n  - gml-cli\n  - \"g\n---");
    for (const character of [5, 6]) expect(labels(await complete(topLevel, 6, character))).toEqual(expect.arrayContaining(["gml-cli", "gml-authoring"]));
    expect(labels(await complete(topLevel.replace('  - "g', "  - 'g"), 6, 5))).toEqual(expect.arrayContaining(["gml-cli", "gml-authoring"]));
  });

  it("offers the design's keys only in the spelling the manifest already writes", async () => {
    const client = await start(await copyEmbeddedDefault());
    const original = readFileSync(join(client.root, DECK), "utf8");
    const complete = async (text: string, line: number, character: number) => {
      await client.change(DECK, text);
      return labels(await client.connection.sendRequest<CompletionItem[]>("textDocument/completion", at(client, DECK, line, character)));
    };
    await client.open(DECK, original);
    // Portable spelling (metadata.gamma-type): no top-level type, requiresSkills, conflictsWith or toolNamespaces.
    const portable = await complete(original.replace("  gamma-conflicts-with: import\n", "  gamma-conflicts-with: import\nty\n"), 7, 2);
    expect(portable).toEqual(expect.arrayContaining(["license", "allowed-tools"]));
    for (const key of ["type", "requiresSkills", "conflictsWith", "toolNamespaces"]) expect(portable).not.toContain(key);
    // Top-level spelling: no gamma-… key under metadata, but the design's other top-level keys.
    const topLevel = original.replace(/metadata:\n[\s\S]*?\n---/, "type: workflow\nmetadata:\n  author: me\n  gam\nre\n---");
    expect(await complete(topLevel, 6, 5)).toEqual([]);
    const keys = await complete(topLevel, 7, 2);
    expect(keys).toEqual(expect.arrayContaining(["requiresSkills", "conflictsWith", "toolNamespaces"]));
    expect(keys).not.toContain("type");
    // Neither yet: both spellings are offered, as before.
    const neither = original.replace(/metadata:\n[\s\S]*?\n---/, "metadata:\n  gam\nty\n---");
    expect(await complete(neither, 4, 5)).toEqual(expect.arrayContaining(["gamma-type", "gamma-requires-skills"]));
    expect(await complete(neither, 5, 2)).toEqual(expect.arrayContaining(["type", "requiresSkills"]));
  });
});

describe("hover, definition and references", () => {
  it("shows a skill's description, type and body tokens, a partial's tokens and a rule's doc", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, IMPORT, (text) => text.replace("---\nname: import", "---\n# gamma-prompt-disable-next-line skill/name-mismatch -- x\nname: import"));
    const skill = hoverText(await client.connection.sendRequest<Hover | null>("textDocument/hover", at(client, IMPORT, 6, 41)));
    expect(skill).toMatch(/\*\*gml-cli\*\* \(reference skill/);
    expect(skill).toMatch(/Body: [\d,]+ o200k tokens/);
    const rule = hoverText(await client.connection.sendRequest<Hover | null>("textDocument/hover", at(client, IMPORT, 1, 40)));
    expect(rule).toContain("**skill/name-mismatch**");
    expect(rule).toContain("Rule documentation");
    await openFromDisk(client, "prompts/prefix.hbs");
    const partial = hoverText(await client.connection.sendRequest<Hover | null>("textDocument/hover", at(client, "prompts/prefix.hbs", 0, 6)));
    expect(partial).toMatch(/\{\{> identity\}\}.*\n\n[\d,]+ o200k tokens of template text, inside the shared static prefix/);
  });

  it("goes to the definition of skills, partials and tools, and finds every reference to a skill", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, IMPORT);
    const definition = await client.connection.sendRequest<Location[]>("textDocument/definition", at(client, IMPORT, 5, 40));
    expect(definition).toEqual([{ uri: client.uri("skills/gml-cli/SKILL.md"), range: { start: { line: 1, character: 6 }, end: { line: 1, character: 13 } } }]);
    // A position past its line's end means the line's end: the name that ends the line.
    const pastEnd = await client.connection.sendRequest<Location[]>("textDocument/definition", at(client, IMPORT, 6, 200));
    expect(pastEnd.map((location) => location.uri)).toEqual([client.uri(DECK)]);
    const hoverPastEnd = await client.connection.sendRequest<Hover | null>("textDocument/hover", at(client, IMPORT, 6, 200));
    expect(hoverText(hoverPastEnd)).toContain("deck-generation");
    const partial = await client.connection.sendRequest<Location[]>("textDocument/definition", at(client, "prompts/prefix.hbs", 0, 6));
    expect(partial.map((location) => location.uri)).toEqual([client.uri("prompts/partials/identity.hbs")]);
    const tool = await client.connection.sendRequest<Location[]>("textDocument/definition", at(client, "skills/gml-cli/SKILL.md", 9, 24));
    expect(tool.map((location) => location.uri)).toEqual([client.uri("schemas/tools/bash.json")]);

    const references = await client.connection.sendRequest<Location[]>("textDocument/references", { ...at(client, IMPORT, 1, 7), context: { includeDeclaration: true } });
    const files = [...new Set(references.map((location) => location.uri.slice(client.uri("").length + 1)))].sort();
    expect(files).toEqual(["evals/conflicting-request.yaml", "evals/drive-import.yaml", "evals/import-request.yaml", "knowledge/deck-typography.md", "prompts/variants.yaml", "skills/deck-generation/SKILL.md", "skills/import/SKILL.md"]);
    const partialReferences = await client.connection.sendRequest<Location[]>("textDocument/references", { ...at(client, "prompts/partials/yield.hbs", 0, 0), context: { includeDeclaration: false } });
    expect(partialReferences.map((location) => location.uri)).toEqual([client.uri("prompts/prefix.hbs")]);
  });
});

describe("rename", () => {
  it("renames a skill from a reference in one edit (folder, name, requires, conflicts, preload, scenarios); the project builds and checks clean", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    await openFromDisk(client, DECK);
    const prepared = await client.connection.sendRequest<{ placeholder: string } | null>("textDocument/prepareRename", at(client, DECK, 6, 26));
    expect(prepared?.placeholder).toBe("import");
    const edit = await client.connection.sendRequest<WorkspaceEdit>("textDocument/rename", { ...at(client, DECK, 6, 26), newName: "file-import" });
    const operations = edit.documentChanges ?? [];
    expect(operations.at(-1)).toEqual({ kind: "rename", oldUri: client.uri("skills/import"), newUri: client.uri("skills/file-import") });
    expect(operations.slice(0, -1).every((operation) => "textDocument" in operation)).toBe(true);
    applyWorkspaceEdit(edit);
    expect(readFileSync(join(root, "skills/file-import/SKILL.md"), "utf8")).toMatch(/^name: file-import$/m);
    expect(readFileSync(join(root, DECK), "utf8")).toContain("  gamma-conflicts-with: file-import\n");
    expect(readFileSync(join(root, "prompts/variants.yaml"), "utf8")).toContain("preload: [file-import]");
    expect(readFileSync(join(root, "evals/import-request.yaml"), "utf8")).toContain("skillActivated: { name: file-import, beforeFirstTaskAction: true }");
    expect(existsSync(join(root, "skills/import"))).toBe(false);
    const built = await build({ root });
    expect(built.diagnostics.filter((diagnostic) => diagnostic.severity !== "note")).toEqual([]);
    expect(built.ok).toBe(true);
    const checked = await check({ root });
    expect(checked.ok).toBe(true);
    expect(checked.errorCount + checked.warningCount).toBe(0);
  });

  it("refuses a name that breaks the name rule or is taken, with the rule's message", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, IMPORT);
    const rename = (newName: string) => client.connection.sendRequest("textDocument/rename", { ...at(client, IMPORT, 1, 7), newName });
    await expect(rename("File_Import")).rejects.toMatchObject({ code: -32803, message: expect.stringContaining('Unexpected name "File_Import", expected lowercase letters and digits') });
    await expect(rename("gml-cli")).rejects.toMatchObject({ code: -32803, message: 'Unexpected second skill named "gml-cli", expected unique names' });
  });

  it("never sends half a rename: a client that cannot move folders is told why and what to do, and the second step works there", async () => {
    const root = await copyEmbeddedDefault();
    const textOnly = { ...CLIENT_CAPABILITIES, workspace: { ...CLIENT_CAPABILITIES.workspace, workspaceEdit: {} } };
    const client = await start(root, textOnly);
    await openFromDisk(client, DECK);
    const rename = () => client.connection.sendRequest<WorkspaceEdit>("textDocument/rename", { ...at(client, DECK, 6, 26), newName: "file-import" });
    await expect(rename()).rejects.toMatchObject({
      code: -32803,
      message:
        'Renaming skill "import" moves its folder skills/import/ to skills/file-import/, and this editor does not declare that it can rename files and folders in a workspace edit (workspace.workspaceEdit.resourceOperations "rename"). ' +
        'Rename the folder to skills/file-import/ first (in a file explorer, or `mv skills/import skills/file-import`, and close the editor\'s buffers of files under skills/import/: an open buffer is a file to the server), then rename "import" again: with the folder already named "file-import", the rename changes name: and every reference, and moves nothing.',
    });
    expect(readFileSync(join(root, IMPORT), "utf8")).toMatch(/^name: import$/m);
    // The second step: the folder already has the new name, so plain text edits finish the rename.
    renameSync(join(root, "skills/import"), join(root, "skills/file-import"));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: client.uri(IMPORT), type: 3 }, { uri: client.uri("skills/file-import/SKILL.md"), type: 1 }] });
    const edit = await rename();
    expect(edit.documentChanges).toBeUndefined();
    expect(Object.keys(edit.changes ?? {})).toContain(client.uri("skills/file-import/SKILL.md"));
    applyWorkspaceEdit(edit);
    expect(readFileSync(join(root, "skills/file-import/SKILL.md"), "utf8")).toMatch(/^name: file-import$/m);
    const built = await build({ root });
    expect(built.ok).toBe(true);
    expect(built.diagnostics.filter((diagnostic) => diagnostic.severity !== "note")).toEqual([]);
  });

  it("refuses a folder move to Neovim before 0.9, which declares folder renames but cannot make them", async () => {
    const client = await start(await copyEmbeddedDefault(), CLIENT_CAPABILITIES, { name: "Neovim", version: "0.7.2" });
    await openFromDisk(client, DECK);
    await expect(client.connection.sendRequest("textDocument/rename", { ...at(client, DECK, 6, 26), newName: "file-import" })).rejects.toMatchObject({
      code: -32803,
      message: expect.stringContaining("and Neovim 0.7.2 cannot rename a folder in a workspace edit (it can from 0.9 on). Rename the folder to skills/file-import/ first"),
    });
    const recent = await start(await copyEmbeddedDefault(), { workspace: { workspaceEdit: { resourceOperations: ["rename", "create", "delete"] } } }, { name: "Neovim", version: "0.10.4" });
    await openFromDisk(recent, DECK);
    const edit = await recent.connection.sendRequest<WorkspaceEdit>("textDocument/rename", { ...at(recent, DECK, 6, 26), newName: "file-import" });
    expect(edit.documentChanges?.at(-1)).toEqual({ kind: "rename", oldUri: recent.uri("skills/import"), newUri: recent.uri("skills/file-import") });
  });

  it("follows a skill folder renamed in the editor's file explorer (willRenameFiles): name and every reference", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    const edit = await client.connection.sendRequest<WorkspaceEdit | null>("workspace/willRenameFiles", { files: [{ oldUri: client.uri("skills/import"), newUri: client.uri("skills/file-import") }] });
    const operations = edit?.documentChanges ?? [];
    expect(operations.every((operation) => "textDocument" in operation)).toBe(true);
    const files = operations.map((operation) => ("textDocument" in operation ? operation.textDocument.uri.slice(client.uri("").length + 1) : "")).sort();
    expect(files).toEqual(["evals/conflicting-request.yaml", "evals/drive-import.yaml", "evals/import-request.yaml", "knowledge/deck-typography.md", "prompts/variants.yaml", "skills/deck-generation/SKILL.md", "skills/import/SKILL.md"]);
    // The client applies the edit, then renames the folder.
    applyWorkspaceEdit(edit ?? {});
    renameSync(join(root, "skills/import"), join(root, "skills/file-import"));
    await client.connection.sendNotification("workspace/didRenameFiles", { files: [{ oldUri: client.uri("skills/import"), newUri: client.uri("skills/file-import") }] });
    expect(readFileSync(join(root, "skills/file-import/SKILL.md"), "utf8")).toMatch(/^name: file-import$/m);
    const built = await build({ root });
    expect(built.ok).toBe(true);
    expect(built.diagnostics.filter((diagnostic) => diagnostic.severity !== "note")).toEqual([]);
    // Not a skill's folder, or a name the rules refuse: nothing to edit, and the rename itself is not in the way.
    expect(await client.connection.sendRequest("workspace/willRenameFiles", { files: [{ oldUri: client.uri("prompts/partials"), newUri: client.uri("prompts/pieces") }] })).toBeNull();
    expect(await client.connection.sendRequest("workspace/willRenameFiles", { files: [{ oldUri: client.uri("skills/gml-cli"), newUri: client.uri("skills/Gml_Cli") }] })).toBeNull();
  });

  it("renames a partial: its file and every call, and the project still builds", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    await openFromDisk(client, "prompts/prefix.hbs");
    const edit = await client.connection.sendRequest<WorkspaceEdit>("textDocument/rename", { ...at(client, "prompts/prefix.hbs", 0, 6), newName: "who-we-are" });
    applyWorkspaceEdit(edit);
    expect(readFileSync(join(root, "prompts/prefix.hbs"), "utf8").startsWith("{{> who-we-are}}")).toBe(true);
    expect(existsSync(join(root, "prompts/partials/who-we-are.hbs"))).toBe(true);
    expect((await build({ root })).ok).toBe(true);
  });

  it("never sends half a partial rename: a client that cannot rename files is told why, and gets no edit", async () => {
    const root = await copyEmbeddedDefault();
    const textOnly = { ...CLIENT_CAPABILITIES, workspace: { ...CLIENT_CAPABILITIES.workspace, workspaceEdit: {} } };
    const client = await start(root, textOnly);
    await openFromDisk(client, "prompts/prefix.hbs");
    await expect(client.connection.sendRequest("textDocument/rename", { ...at(client, "prompts/prefix.hbs", 0, 6), newName: "who-we-are" })).rejects.toMatchObject({
      code: -32803,
      message:
        'Renaming partial "identity" moves prompts/partials/identity.hbs to prompts/partials/who-we-are.hbs, and this editor does not declare that it can rename files and folders in a workspace edit (workspace.workspaceEdit.resourceOperations "rename"). Rename the file (`mv prompts/partials/identity.hbs prompts/partials/who-we-are.hbs`) and each {{> identity}} by hand, or in an editor that applies file renames.',
    });
  });

  it("answers a rename without a new name as invalid params, never an internal error", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, DECK);
    await expect(client.connection.sendRequest("textDocument/rename", at(client, DECK, 6, 26))).rejects.toMatchObject({ code: -32602, message: "Unexpected params, expected { newName: string }" });
  });

  it("edits an open buffer the editor named with its own spelling of the URI (VS Code's %28, Neovim's lower-case hex) as the buffer holds it", async () => {
    const root = join(await tempDir("gamma lsp"), "my agent (copy) é");
    cpSync(await copyEmbeddedDefault(), root, { recursive: true });
    const client = await start(root);
    await openFromDisk(client, DECK);
    const evals = "evals/import-request.yaml";
    // The editor's spelling: parentheses encoded, hex in lower case; the buffer holds two unsaved lines at the top.
    const spelled = client.uri(evals).replace(/\(/g, "%28").replace(/\)/g, "%29").replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    expect(spelled).not.toBe(client.uri(evals));
    const buffer = `# draft\n# notes\n${readFileSync(join(root, evals), "utf8")}`;
    await client.connection.sendNotification("textDocument/didOpen", { textDocument: { uri: spelled, languageId: "yaml", version: 7, text: buffer } });
    const edit = await client.connection.sendRequest<WorkspaceEdit>("textDocument/rename", { ...at(client, DECK, 6, 26), newName: "file-import" });
    const evalsEdit = (edit.documentChanges ?? []).find((change) => "textDocument" in change && change.textDocument.uri === spelled);
    expect(evalsEdit && "textDocument" in evalsEdit ? evalsEdit.textDocument.version : undefined).toBe(7);
    const edited = editedText(buffer, evalsEdit && "edits" in evalsEdit ? evalsEdit.edits.filter((entry) => "newText" in entry) : []).split("\n");
    const lines = buffer.split("\n");
    expect(edited).toHaveLength(lines.length);
    const changed = lines.flatMap((line, index) => (edited[index] === line ? [] : [[line, edited[index] ?? ""] as const]));
    expect(changed.length).toBeGreaterThan(0);
    // Each edit replaced the skill's name where the buffer has it, and nothing else.
    for (const [before, after] of changed) expect(after.replaceAll("file-import", "import")).toBe(before);
    expect(changed.map(([, after]) => after)).toContain("    skillActivated: { name: file-import, beforeFirstTaskAction: true }");
  });

  it("refuses a partial name the build could not find (one with \"/\", which would move it into a subfolder), with the name rule's message", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, "prompts/prefix.hbs");
    const rename = (newName: string) => client.connection.sendRequest("textDocument/rename", { ...at(client, "prompts/prefix.hbs", 0, 6), newName });
    for (const newName of ["sections/identity", "a/b", "x y", "../identity"]) {
      await expect(rename(newName), newName).rejects.toMatchObject({ message: `Unexpected partial name "${newName}", expected letters, digits, "-" and "_" (a file name under prompts/partials/ without .hbs)` });
    }
  });
});

describe("code actions", () => {
  it("offers lint --fix's fix only while the buffer matches, fix-all and the rule's doc, and no suppression of a finding that would take the skill out of the build", async () => {
    const client = await start(await copyEmbeddedDefault());
    const text = await openFromDisk(client, IMPORT, (original) => original.replace("  gamma-type: workflow\n", ""));
    const [missing] = (await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/missing-key"))).filter((diagnostic) => diagnostic.code === "skill/missing-key");
    const actions = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: missing?.range, context: { diagnostics: [missing] } });
    const fix = actions.find((action) => action.title.startsWith("Fix:"));
    const change = fix?.edit?.documentChanges?.[0];
    expect(change && "textDocument" in change ? change.textDocument.version : undefined).toBe(1);
    const edits = change && "edits" in change ? change.edits.filter((entry) => "newText" in entry) : [];
    expect(editedText(text, edits)).toBe(readFileSync(join(client.root, IMPORT), "utf8"));
    expect(actions.map((action) => action.title)).toEqual(expect.arrayContaining(["Show documentation for skill/missing-key"]));
    // Suppressed, a missing type would take the skill out of the build without a word: no suppression is offered.
    expect(actions.some((action) => action.title.startsWith("Suppress"))).toBe(false);
    const fixAll = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: missing?.range, context: { diagnostics: [], only: ["source.fixAll.gamma-prompt"] } });
    expect(fixAll.map((action) => action.kind)).toEqual(["source.fixAll.gamma-prompt"]);

    const doc = actions.find((action) => action.title.startsWith("Show documentation"));
    await client.connection.sendRequest("workspace/executeCommand", doc?.command);
    expect(client.serverRequests.find((request) => request.method === "window/showDocument")?.params).toEqual({ uri: missing?.codeDescription?.href, external: true });

    // Once the buffer moved on, the old finding's fix is no longer offered.
    await client.change(IMPORT, `${text}\n`);
    const stale = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: missing?.range, context: { diagnostics: [missing] } });
    expect(stale.some((action) => action.title.startsWith("Fix:"))).toBe(false);
  });

  it("offers no suppression for a finding of an older version of the buffer: its line may hold something else by now", async () => {
    const client = await start(await copyEmbeddedDefault());
    const text = await openFromDisk(client, IMPORT, (original) => original.replace("name: import", "name: importer"));
    const [mismatch] = (await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/name-mismatch"))).filter((diagnostic) => diagnostic.code === "skill/name-mismatch");
    const ask = () => client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: mismatch?.range, context: { diagnostics: [mismatch] } });
    expect((await ask()).map((action) => action.title)).toContain("Suppress skill/name-mismatch on this line");
    // A line inserted above the finding's: the comment would land above the wrong line.
    await client.change(IMPORT, text.replace("---\n", "---\nlicense: MIT\n"));
    const stale = await ask();
    expect(stale.some((action) => action.title.startsWith("Suppress"))).toBe(false);
    expect(stale.map((action) => action.title)).toContain("Show documentation for skill/name-mismatch");
  });

  it("inserts a next-line suppression comment above a frontmatter finding", async () => {
    const { client, edited } = await suppressedNameMismatch((text) => text);
    expect(edited).toContain("---\n# gamma-prompt-disable-next-line skill/name-mismatch -- reason\nname: importer\n");
    await expectNameMismatchGone(client, edited);
  });
});

describe("suppression comments and YAML values", () => {
  /** The actions on `code`'s findings in the first publication from `since` on that `accept`s (the client sends the findings it shows). */
  const actionsFor = async (client: TestClient, code: string, accept: (diagnostics: import("vscode-languageserver/node").Diagnostic[]) => boolean = (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === code), since = 0) => {
    const found = (await client.diagnosticsFor(IMPORT, accept, since)).filter((diagnostic) => diagnostic.code === code);
    const actions = await Promise.all(found.map((diagnostic) => client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: diagnostic.range, context: { diagnostics: [diagnostic] } })));
    return { found, actions };
  };
  const editOf = (action: CodeAction | undefined) => {
    const change = action?.edit?.documentChanges?.[0];
    return change && "edits" in change ? change.edits.filter((entry) => "newText" in entry) : [];
  };

  it("puts a next-line suppression above a value over several lines, never inside it, and the suppression covers the whole value", async () => {
    const client = await start(await copyEmbeddedDefault());
    const text = await openFromDisk(client, IMPORT, (original) =>
      original.replace(/^description: .*$/m, "description: |\n  Use when importing.\n  It mentions <tag> here.").replace("  gamma-requires-skills: gml-authoring gml-cli ask-user-questions\n", "  gamma-requires-skills: >-\n    gml-cli\n    nosuch\n"),
    );
    const lines = text.split("\n");
    let shown = 0;
    for (const [code, valueLine] of [["skill/description-angle-bracket", "description: |"], ["skill/reference-unknown", "  gamma-requires-skills: >-"]] as const) {
      const { found, actions } = await actionsFor(client, code, undefined, shown);
      expect(found).toHaveLength(1);
      const suppress = actions[0]?.find((action) => action.title === `Suppress ${code} on this line`);
      const edits = editOf(suppress);
      expect(edits).toHaveLength(1);
      // Above the line that starts the value, with its indentation: inside it the comment would be part of the text.
      expect(edits[0]?.range.start).toEqual({ line: lines.indexOf(valueLine), character: 0 });
      const edited = editedText(text, edits);
      expect(edited).toContain(`\n${/^ */.exec(valueLine)?.[0]}# gamma-prompt-disable-next-line ${code} -- reason\n${valueLine}\n`);
      const since = client.published.length;
      await client.change(IMPORT, edited);
      const after = await client.diagnosticsFor(IMPORT, () => true, since);
      expect(after.map((diagnostic) => diagnostic.code)).not.toContain(code);
      expect(after.map((diagnostic) => diagnostic.code)).not.toContain("skill/unused-suppression");
      // The text as it was, in a new version: its findings are those of the publication that follows.
      shown = client.published.length;
      await client.change(IMPORT, text);
    }
  });

  it("reads a directive's text inside a block scalar as part of the value, not as a suppression", async () => {
    const client = await start(await copyEmbeddedDefault());
    await openFromDisk(client, IMPORT, (original) =>
      original.replace(/^description: .*$/m, "description: |\n  Use when importing.\n  # gamma-prompt-disable-next-line skill/description-angle-bracket -- reason\n  It mentions <tag> here."),
    );
    const { found } = await actionsFor(client, "skill/description-angle-bracket", () => true);
    expect(found.map((diagnostic) => diagnostic.range.start.line)).toEqual([5]);
  });

  it("offers no suppression for a finding that means the file could not be read as a skill, and reports a comment that names one", async () => {
    const client = await start(await copyEmbeddedDefault());
    const text = await openFromDisk(client, IMPORT, (original) => original.replace("  gamma-type: workflow\n", "\tgamma-type: workflow\n"));
    const { found, actions } = await actionsFor(client, "skill/yaml-tab-indent");
    expect(found).toHaveLength(1);
    expect(actions[0]?.map((action) => action.title)).toEqual(["Show documentation for skill/yaml-tab-indent"]);
    const since = client.published.length;
    await client.change(IMPORT, text.replace("\tgamma-type: workflow\n", "\t# gamma-prompt-disable-next-line skill/yaml-tab-indent -- reason\n\tgamma-type: workflow\n"));
    const after = await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/unused-suppression"), since);
    expect(after.map((diagnostic) => diagnostic.code)).toEqual(expect.arrayContaining(["skill/unused-suppression", "skill/yaml-tab-indent"]));
  });
});

describe("code actions in a file with CRLF line endings", () => {
  it("offer the suppression comments, written with the file's own line endings, and lint honours them", async () => {
    const { client, edited } = await suppressedNameMismatch((text) => text.replace(/\n/g, "\r\n"));
    expect(edited).toContain("---\r\n# gamma-prompt-disable-next-line skill/name-mismatch -- reason\r\nname: importer\r\n");
    expect(edited.replace(/\r\n/g, "")).not.toContain("\n");
    await expectNameMismatchGone(client, edited);
  });
});

/** A buffer whose name no longer matches its folder, with the next-line suppression action applied. */
async function suppressedNameMismatch(lineEndings: (text: string) => string): Promise<{ client: TestClient; edited: string }> {
  const client = await start(await copyEmbeddedDefault());
  const text = await openFromDisk(client, IMPORT, (original) => lineEndings(original.replace("name: import", "name: importer")));
  const [mismatch] = (await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0)).filter((diagnostic) => diagnostic.code === "skill/name-mismatch");
  const actions = await client.connection.sendRequest<CodeAction[]>("textDocument/codeAction", { textDocument: { uri: client.uri(IMPORT) }, range: mismatch?.range, context: { diagnostics: [mismatch] } });
  const suppress = actions.find((action) => action.title === "Suppress skill/name-mismatch on this line");
  const change = suppress?.edit?.documentChanges?.[0];
  return { client, edited: editedText(text, change && "edits" in change ? change.edits.filter((entry) => "newText" in entry) : []) };
}

async function expectNameMismatchGone(client: TestClient, edited: string): Promise<void> {
  const since = client.published.length;
  await client.change(IMPORT, edited);
  expect((await client.diagnosticsFor(IMPORT, () => true, since)).map((diagnostic) => diagnostic.code)).not.toContain("skill/name-mismatch");
}

describe("the cache in the editor", () => {
  it("puts tokens, variants and the shared prefix on templates, preloaded skills and tool schemas, and prices an edit against dist/", async () => {
    const root = await copyEmbeddedDefault();
    expect((await build({ root })).ok).toBe(true);
    const client = await start(root);
    const lenses = async (path: string): Promise<string[]> =>
      (await client.connection.sendRequest<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(path) } })).map((lens) => lens.command?.title ?? "");
    expect((await lenses("prompts/partials/identity.hbs"))[0]).toMatch(/^[\d,]+ o200k tokens of template text, inside the shared static prefix of every variant \(base, deck-generation, import\)$/);
    expect((await lenses("schemas/tools/bash.json"))[0]).toMatch(/^[\d,]+ o200k tokens of tool schema, in the tools block every variant caches before the shared static prefix$/);
    expect((await lenses(IMPORT))[0]).toMatch(/^[\d,]+ o200k tokens, preloaded in the variant tail of import \(outside the shared static prefix\)$/);
    expect((await lenses("prompts/partials/identity.hbs")).some((title) => title.startsWith("Next build"))).toBe(false);

    await openFromDisk(client, "prompts/partials/identity.hbs", (text) => `${text}One more sentence in the static prefix.\n`);
    const edited = await lenses("prompts/partials/identity.hbs");
    const costs = edited.filter((title) => title.startsWith("Next build"));
    expect(costs.map((title) => /^Next build: ([a-z-]+): \d+ tokens uncached on Anthropic, \d+ on OpenAI until the cache is warm again, \$[\d.]+ \(anthropic\/claude-sonnet-4-5\), \$[\d.]+ \(openai\/gpt-5\) per 1,000 cold sessions$/.exec(title)?.[1])).toEqual(["base", "deck-generation", "import"]);
  });

  it("shows a variant's compiled prompt with the cache plan's blocks marked", async () => {
    const root = await copyEmbeddedDefault();
    expect((await build({ root })).ok).toBe(true);
    const client = await start(root);
    const shown = await client.connection.sendRequest<{ uri: string; text: string }>("workspace/executeCommand", { command: "gamma-prompt.showCompiledPrompt", arguments: ["import"] });
    expect(shown.uri).toBe("gamma-prompt-compiled:/variants/import.md");
    const markers = shown.text.split("\n").filter((line) => line.startsWith("⟦"));
    expect(markers.map((line) => /cache block ([a-z-]+)/.exec(line)?.[1] ?? line)).toEqual(["tools", "static-prefix", "variant-tail", "⟦ end of the cached blocks ⟧"]);
    const withoutMarkers = shown.text.split("\n").filter((line) => !line.startsWith("⟦")).join("\n");
    expect(withoutMarkers).toBe(readFileSync(join(root, "dist/variants/import.md"), "utf8"));
    const content = await client.connection.sendRequest<{ text: string }>("workspace/textDocumentContent", { uri: shown.uri });
    expect(content.text).toBe(shown.text);
  });

  it("shows the output folder's copy of a variant while the sources have errors, and says why there is none", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    await openFromDisk(client, IMPORT, (text) => text.replace("type: workflow", "type: workflw"));
    await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/type-value"));
    const show = () => client.connection.sendRequest<{ uri: string; text: string }>("workspace/executeCommand", { command: "gamma-prompt.showCompiledPrompt", arguments: ["base"] });
    await expect(show()).rejects.toMatchObject({ message: 'No compiled prompt for variant "base": the sources have 2 errors (see the problems list), and dist/ holds no build of it.' });
    expect((await build({ root })).ok).toBe(true);
    const shown = await show();
    expect(shown.text.split("\n")[0]).toBe("⟦ variants/base.md as last built: the sources have errors, so this is the output folder's copy ⟧");
    expect(shown.text.split("\n").filter((line) => !line.startsWith("⟦")).join("\n")).toBe(readFileSync(join(root, "dist/variants/base.md"), "utf8"));
    await expect(client.connection.sendRequest("workspace/executeCommand", { command: "gamma-prompt.showCompiledPrompt", arguments: [3] })).rejects.toMatchObject({ message: 'gamma-prompt.showCompiledPrompt takes a variant name, e.g. ["base"]' });
  });

  it("shows an agent's prompt as build compiles its sources when the config gives lint the agentskills profile", async () => {
    const root = await copyEmbeddedDefault();
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "agentskills" }\n');
    expect((await build({ root })).ok).toBe(true);
    const client = await start(root);
    const partial = "prompts/partials/identity.hbs";
    await openFromDisk(client, partial, (text) => `${text}One more sentence, not built yet.\n`);
    const show = () => client.connection.sendRequest<{ uri: string; text: string }>("workspace/executeCommand", { command: "gamma-prompt.showCompiledPrompt", arguments: ["base"] });
    const shown = await show();
    expect(shown.text.split("\n")[0]).toMatch(/^⟦ cache block tools/);
    expect(shown.text).toContain("One more sentence, not built yet.");
    const content = await client.connection.sendRequest<{ text: string }>("workspace/textDocumentContent", { uri: shown.uri });
    expect(content.text).toBe(shown.text);
    // A template the build cannot render: the output folder's copy, and the build's own errors are the reason.
    await client.change(partial, "{{#if}}\n");
    const fallback = await show();
    expect(fallback.text.split("\n")[0]).toBe("⟦ variants/base.md as last built: the sources have errors, so this is the output folder's copy ⟧");
    expect(fallback.text).not.toContain("One more sentence");
  });

  it("tells a client that cannot open documents where a rule's documentation is", async () => {
    const client = await start(await copyEmbeddedDefault(), { workspace: {} });
    const href = "https://www.npmjs.com/package/gamma-prompt#rule-skill-type-value";
    expect(await client.connection.sendRequest("workspace/executeCommand", { command: "gamma-prompt.openRuleDoc", arguments: [href] })).toEqual({ uri: href });
    await expect.poll(() => client.serverRequests.find((request) => request.method === "window/showMessage")?.params).toEqual({ type: 3, message: `Rule documentation: ${href}` });
  });
});
