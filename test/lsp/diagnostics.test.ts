import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCodes, type Diagnostic } from "vscode-languageserver/node";
import { lint } from "../../src/lint.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { CLIENT_CAPABILITIES, copyEmbeddedDefault, disposeClients, start, startInProcess, type TestClient } from "./client.js";

const clientsToDispose: TestClient[] = [];

const IMPORT = "skills/import/SKILL.md";
afterEach(async () => {
  await Promise.all(clientsToDispose.splice(0).map((client) => client.dispose()));
  await disposeClients();
  await removeTempDirs();
});

const codes = (diagnostics: Diagnostic[]): string[] => diagnostics.map((diagnostic) => String(diagnostic.code)).sort();

describe("diagnostics as you type", () => {
  it("judges an unsaved buffer as written, at lint's positions, with rule ids, doc links and related places, and never writes the file", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    // A second skill named like the first: name-duplicate carries the first one as its related place.
    const edited = onDisk.replace(/^name: import$/m, "name: gml-cli");
    await client.open(IMPORT, edited);
    const published = await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/name-duplicate"));

    // The same text saved in another copy: lint's findings for that file, position for position.
    const saved = await copyEmbeddedDefault();
    writeFileSync(join(saved, IMPORT), edited);
    const expected = (await lint({ root: saved })).diagnostics.filter((diagnostic) => diagnostic.file === IMPORT);
    expect(published.map((diagnostic) => [diagnostic.code, diagnostic.range.start.line + 1, diagnostic.range.start.character + 1, diagnostic.range.end.line + 1, diagnostic.range.end.character + 1, diagnostic.message])).toEqual(
      expected.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.column, diagnostic.endLine, diagnostic.endColumn, diagnostic.message]),
    );
    const duplicate = published.find((diagnostic) => diagnostic.code === "skill/name-duplicate");
    expect(duplicate?.codeDescription?.href).toBe(expected.find((diagnostic) => diagnostic.ruleId === "skill/name-duplicate")?.url);
    expect(duplicate?.relatedInformation?.[0]?.location.uri).toBe(client.uri("skills/gml-cli/SKILL.md"));
    expect(duplicate?.source).toBe("gamma-prompt");
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(onDisk);
  });

  it("republishes the files a rename affects and sends one empty list to each file that went clean", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    await client.open(IMPORT, onDisk.replace(/^name: import$/m, "name: importer"));
    const variants = await client.diagnosticsFor("prompts/variants.yaml", (diagnostics) => diagnostics.length > 0);
    expect(codes(variants)).toContain("variant/unknown-skill");
    const before = client.published.length;
    await client.change(IMPORT, onDisk);
    await client.diagnosticsFor("prompts/variants.yaml", (diagnostics) => diagnostics.length === 0, before);
    await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length === 0, before);
    // A request answers only after the edit's analysis: nothing more arrives for the clean files.
    await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 0, character: 0 } });
    const emptyPublishes = client.published.slice(before).filter((entry) => entry.uri === client.uri("prompts/variants.yaml"));
    expect(emptyPublishes).toHaveLength(1);
  });

  it("honours inline suppressions and the config's severities, the config read from its buffer", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    const renamed = onDisk.replace(/^name: import$/m, "name: importer");
    await client.open(IMPORT, renamed);
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0))).toContain("skill/name-mismatch");
    let since = client.published.length;
    await client.change(IMPORT, renamed.replace(/^name: importer$/m, "# gamma-prompt-disable-next-line skill/name-mismatch -- kept while moving\nname: importer"));
    expect(codes(await client.diagnosticsFor(IMPORT, () => true, since))).not.toContain("skill/name-mismatch");
    since = client.published.length;
    await client.change(IMPORT, renamed);
    await client.diagnosticsFor(IMPORT, (diagnostics) => codes(diagnostics).includes("skill/name-mismatch"), since);
    since = client.published.length;
    await client.open("gamma-prompt.config.json", JSON.stringify({ rules: { "skill/name-mismatch": "note" } }));
    const noted = await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.some((diagnostic) => diagnostic.code === "skill/name-mismatch" && diagnostic.severity === 3), since);
    expect(noted.length).toBeGreaterThan(0);
  });

  it("reports template findings on the partial being edited", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    const path = "prompts/partials/identity.hbs";
    await client.open(path, `${readFileSync(join(root, path), "utf8")}\n{{> no-such-partial}}\n`);
    expect(codes(await client.diagnosticsFor(path, (diagnostics) => diagnostics.length > 0))).toContain("template/unknown-partial");
  });
});

describe("changes on disk", () => {
  it("reads a file the client reports changed on disk", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    await client.open(IMPORT, readFileSync(join(root, IMPORT), "utf8"));
    await client.diagnosticsFor(IMPORT);
    writeFileSync(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: [nobody]\n");
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: client.uri("prompts/variants.yaml"), type: 2 }] });
    expect(codes(await client.diagnosticsFor("prompts/variants.yaml", (diagnostics) => diagnostics.length > 0))).toEqual(["variant/unknown-skill"]);
  });

  // Editors' watchers name a file by its own path, not by the path through the link the project reads it at.
  it.each([
    ["a skill folder linked in from vendor/", "vendor/import/SKILL.md", (root: string) => {
      renameSync(join(root, "skills/import"), join(root, "vendor/import"));
      symlinkSync("../vendor/import", join(root, "skills/import"));
    }],
    ["a SKILL.md that is a link to a file", "vendor/import.md", (root: string) => {
      renameSync(join(root, IMPORT), join(root, "vendor/import.md"));
      symlinkSync("../../vendor/import.md", join(root, IMPORT));
    }],
  ])("rereads %s when the client reports the change under the file's own path", async (_case, reported, link) => {
    const root = await copyEmbeddedDefault();
    mkdirSync(join(root, "vendor"));
    link(root);
    const client = await start(root);
    // A request is answered after the first analysis: what follows is a change to a file it read.
    await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 1, character: 7 } });
    const onDisk = readFileSync(join(root, reported), "utf8");
    writeFileSync(join(root, reported), onDisk.replace(/^name: import$/m, "name: importer"));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: client.uri(reported), type: 2 }] });
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0))).toContain("skill/name-mismatch");
    const since = client.published.length;
    writeFileSync(join(root, reported), onDisk);
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: client.uri(reported), type: 2 }] });
    await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length === 0, since);
  });

  it("follows a linked skill folder's target moved away and back, as reported under its own path", async () => {
    const root = await copyEmbeddedDefault();
    mkdirSync(join(root, "vendor"));
    renameSync(join(root, "skills/import"), join(root, "vendor/import"));
    symlinkSync("../vendor/import", join(root, "skills/import"));
    const client = await start(root);
    await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 1, character: 7 } });
    renameSync(join(root, "vendor/import"), join(root, "vendor/away"));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [
        { uri: client.uri("vendor/import/SKILL.md"), type: 3 },
        { uri: client.uri("vendor/away/SKILL.md"), type: 1 },
      ],
    });
    // The link now points to nothing: the finding is reported at the link.
    expect(codes(await client.diagnosticsFor("skills/import", (diagnostics) => diagnostics.length > 0))).toContain("skill/missing-skill-file");
    const since = client.published.length;
    const text = readFileSync(join(root, "vendor/away/SKILL.md"), "utf8");
    writeFileSync(join(root, "vendor/away/SKILL.md"), text.replace(/^name: import$/m, "name: importer"));
    renameSync(join(root, "vendor/away"), join(root, "vendor/import"));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [
        { uri: client.uri("vendor/away/SKILL.md"), type: 3 },
        { uri: client.uri("vendor/import/SKILL.md"), type: 1 },
      ],
    });
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0, since))).toContain("skill/name-mismatch");
    await client.diagnosticsFor("skills/import", (diagnostics) => diagnostics.length === 0, since);
  });

  it("looks at the whole disk again on a save when the client reports no changes on disk", async () => {
    const root = await copyEmbeddedDefault();
    const client = await startInProcess(root, { ...CLIENT_CAPABILITIES, workspace: { ...CLIENT_CAPABILITIES.workspace, didChangeWatchedFiles: { dynamicRegistration: false } } });
    clientsToDispose.push(client);
    await client.open(IMPORT, readFileSync(join(root, IMPORT), "utf8"));
    await client.diagnosticsFor(IMPORT);
    writeFileSync(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: [nobody]\n");
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(IMPORT) } });
    expect(codes(await client.diagnosticsFor("prompts/variants.yaml", (diagnostics) => diagnostics.length > 0))).toEqual(["variant/unknown-skill"]);
  });
});

describe("robustness", () => {
  it("answers an unknown method with MethodNotFound and keeps serving", async () => {
    const client = await start(await copyEmbeddedDefault());
    await expect(client.connection.sendRequest("gamma-prompt/no-such-method", {})).rejects.toMatchObject({ code: ErrorCodes.MethodNotFound });
    const hover = await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 1, character: 7 } });
    expect(hover).not.toBeUndefined();
  });

  it("survives a 1 MB buffer and a binary-looking one, reporting them as findings", async () => {
    const root = await copyEmbeddedDefault();
    const client = await start(root);
    await client.open(IMPORT, `---\nname: import\n---\n${"x".repeat(1024 * 1024)}`);
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0))).toEqual(["skill/file-too-large"]);
    const since = client.published.length;
    await client.change(IMPORT, `\u0000\u0001\u0002\uFFFD\uD800PK\u0003\u0004${"\u0000".repeat(5000)}`);
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => !codes(diagnostics).includes("skill/file-too-large"), since))).toContain("skill/missing-frontmatter");
    const completion = await client.connection.sendRequest("textDocument/completion", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 0, character: 3 } });
    expect(completion).toEqual([]);
  });

  it("judges an open buffer with the byte order mark its file has, which editors leave out of the text they send", async () => {
    const root = await copyEmbeddedDefault();
    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    writeFileSync(join(root, IMPORT), `\uFEFF${onDisk}`);
    const expected = (await lint({ root })).diagnostics.filter((diagnostic) => diagnostic.file === IMPORT);
    expect(expected.map((diagnostic) => diagnostic.ruleId)).toContain("skill/yaml-portable");
    const client = await start(root);
    await client.diagnosticsFor(IMPORT, (diagnostics) => codes(diagnostics).includes("skill/yaml-portable"));
    const since = client.published.length;
    // What Neovim and VS Code send for that file: the text without the mark.
    await client.open(IMPORT, onDisk);
    const published = await client.diagnosticsFor(IMPORT, () => true, since);
    expect(published.map((diagnostic) => [diagnostic.code, diagnostic.range.start.line + 1, diagnostic.range.start.character + 1])).toEqual(
      expected.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.column]),
    );
  });

  it("reports a FIFO where a SKILL.md belongs, and a SKILL.md that vanished", async () => {
    const root = await copyEmbeddedDefault();
    rmSync(join(root, IMPORT));
    execFileSync("mkfifo", [join(root, IMPORT)]);
    rmSync(join(root, "skills/gml-cli/SKILL.md"));
    const client = await start(root);
    expect(codes(await client.diagnosticsFor(IMPORT, (diagnostics) => diagnostics.length > 0))).toEqual(["source/not-a-file"]);
    expect(codes(await client.diagnosticsFor("skills/gml-cli", (diagnostics) => diagnostics.length > 0))).toContain("skill/missing-skill-file");
    // A buffer opened over the FIFO: looking for the file's byte order mark must not wait on it either.
    const since = client.published.length;
    await client.open(IMPORT, "---\nname: import\n---\n");
    expect(await client.diagnosticsFor(IMPORT, () => true, since)).toBeDefined();
  });
});
