import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Diagnostic, InitializeResult } from "vscode-languageserver/node";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { CLIENT_CAPABILITIES, repoRoot, startInProcess, type TestClient } from "./client.js";

/**
 * Which project a document is analysed in: the one found from its folder up,
 * as the CLI finds one from the working folder, in whatever folder the editor
 * opened (a monorepo's root, a folder inside a project, several folders).
 */

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await removeTempDirs();
});

const IMPORT = "skills/import/SKILL.md";
const PARTS = ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces"), "evals", "knowledge"];

/** A monorepo (a git checkout) with two agents in packages/, each a copy of the embedded default. */
async function monorepo(): Promise<string> {
  const root = await tempDir("gamma lsp mono");
  mkdirSync(join(root, ".git"));
  for (const agent of ["agent-a", "agent-b"]) await copyParts(repoRoot, PARTS, join(root, "packages", agent));
  return root;
}

/** The import skill renamed to a name another skill has: skill/name-duplicate. */
function duplicateName(root: string, agent: string): string {
  return readFileSync(join(root, "packages", agent, IMPORT), "utf8").replace(/^name: import$/m, "name: gml-cli");
}

async function open(root: string, folders: readonly string[], capabilities = CLIENT_CAPABILITIES): Promise<TestClient & { initialize: InitializeResult }> {
  const client = await startInProcess(root, capabilities, undefined, folders);
  clients.push(client);
  return client;
}

const hasDuplicate = (diagnostics: Diagnostic[]): boolean => diagnostics.some((diagnostic) => diagnostic.code === "skill/name-duplicate");
const messages = (client: TestClient): unknown[] => client.serverRequests.filter((request) => request.method === "window/showMessage").map((request) => request.params);

describe("the project of each document", () => {
  it("at a monorepo's root, names the projects below once and analyses an opened file in its own project", async () => {
    const root = await monorepo();
    const client = await open(root, ["."]);
    await expect.poll(() => messages(client)).toEqual([
      {
        type: 2,
        message: `gamma-prompt: no project in the workspace folder ${root} or above it (a folder with gamma-prompt.config.json or skills/); projects below it: packages/agent-a, packages/agent-b. A file opened in one is analysed in its project; open that folder to see all of its findings`,
      },
    ]);
    const file = `packages/agent-a/${IMPORT}`;
    await client.open(file, duplicateName(root, "agent-a"));
    const published = await client.diagnosticsFor(file, hasDuplicate);
    expect(published.find(hasDuplicateOne)?.relatedInformation?.[0]?.location.uri).toBe(client.uri("packages/agent-a/skills/gml-cli/SKILL.md"));
    const hover = await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri(file) }, position: { line: 1, character: 8 } });
    expect(hover).not.toBeNull();
    expect(messages(client)).toHaveLength(1);
  });

  it("closes a project found through a file outside the workspace folders once its last buffer closes", async () => {
    const root = await monorepo();
    // The finding is on disk too: a project still held would go on publishing it after the buffer closed.
    writeFileSync(join(root, "packages", "agent-a", IMPORT), duplicateName(root, "agent-a"));
    const client = await open(root, ["."]);
    const file = `packages/agent-a/${IMPORT}`;
    await client.open(file, readFileSync(join(root, "packages", "agent-a", IMPORT), "utf8"));
    await client.diagnosticsFor(file, hasDuplicate);
    // Its findings are withdrawn with it: nothing of the project is held for the rest of the session.
    const before = client.published.length;
    await client.close(file);
    await client.diagnosticsFor(file, (diagnostics) => diagnostics.length === 0, before);
    // Opened again, it is analysed afresh.
    const reopened = client.published.length;
    await client.open(file, readFileSync(join(root, "packages", "agent-a", IMPORT), "utf8"));
    await client.diagnosticsFor(file, hasDuplicate, reopened);
  });

  it("in a folder inside a project, analyses that project as the CLI does there", async () => {
    const root = await monorepo();
    const client = await open(root, ["packages/agent-a/skills"]);
    const file = `packages/agent-a/${IMPORT}`;
    await client.open(file, duplicateName(root, "agent-a"));
    await client.diagnosticsFor(file, hasDuplicate);
    expect(messages(client)).toEqual([]);
  });

  it("in a workspace of several folders, analyses each folder's project", async () => {
    const root = await monorepo();
    // A finding on disk in the second folder's project, in no open buffer: published by that project's first analysis.
    writeFileSync(join(root, "packages", "agent-b", IMPORT), duplicateName(root, "agent-b"));
    const client = await open(root, ["packages/agent-a", "packages/agent-b"]);
    expect(client.initialize.capabilities.workspace?.workspaceFolders).toEqual({ supported: true, changeNotifications: true });
    await client.diagnosticsFor(`packages/agent-b/${IMPORT}`, hasDuplicate);
    // The same file in the first project, edited: judged in that project, not in the other.
    await client.open(`packages/agent-a/${IMPORT}`, duplicateName(root, "agent-a"));
    const first = await client.diagnosticsFor(`packages/agent-a/${IMPORT}`, hasDuplicate);
    expect(first.find(hasDuplicateOne)?.relatedInformation?.[0]?.location.uri).toBe(client.uri("packages/agent-a/skills/gml-cli/SKILL.md"));
    expect(messages(client)).toEqual([]);
  });

  // VS Code and Neovim declare workspace folders (the server library then takes the notification itself); other clients do not.
  for (const [client, capabilities] of [
    ["declares workspace folders, as VS Code and Neovim do", { ...CLIENT_CAPABILITIES, workspace: { ...CLIENT_CAPABILITIES.workspace, workspaceFolders: true } }],
    ["declares none", CLIENT_CAPABILITIES],
  ] as const) {
    it(`follows folders the editor adds to and removes from the workspace, when the client ${client}`, async () => {
      const root = await monorepo();
      writeFileSync(join(root, "packages", "agent-b", IMPORT), duplicateName(root, "agent-b"));
      const opened = await open(root, ["packages/agent-a"], capabilities);
      const folder = { uri: pathToFileURL(join(root, "packages", "agent-b")).href, name: "packages/agent-b" };
      // Added: its project is analysed, its finding on disk published.
      await opened.connection.sendNotification("workspace/didChangeWorkspaceFolders", { event: { added: [folder], removed: [] } });
      await opened.diagnosticsFor(`packages/agent-b/${IMPORT}`, hasDuplicate);
      // Removed: its findings withdrawn.
      const before = opened.published.length;
      await opened.connection.sendNotification("workspace/didChangeWorkspaceFolders", { event: { added: [], removed: [folder] } });
      await opened.diagnosticsFor(`packages/agent-b/${IMPORT}`, (diagnostics) => diagnostics.length === 0, before);
    });
  }

  it("shows a project's own compiled prompt from its lenses, whichever folder comes first", async () => {
    const root = await monorepo();
    const marker = "This sentence is only in the second agent's prompt.";
    const prefix = join(root, "packages", "agent-b", "prompts", "prefix.hbs");
    writeFileSync(prefix, `${readFileSync(prefix, "utf8")}\n${marker}\n`);
    const client = await open(root, ["packages/agent-a", "packages/agent-b"]);
    type Lens = { command?: { command: string; arguments?: unknown[] } };
    const showLens = async (agent: string): Promise<Lens["command"]> => {
      const lenses = await client.connection.sendRequest<Lens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(`packages/${agent}/prompts/prefix.hbs`) } });
      return lenses.find((lens) => lens.command?.command === "gamma-prompt.showCompiledPrompt")?.command;
    };
    const first = await showLens("agent-a");
    expect(first?.arguments).toHaveLength(1);
    const second = await showLens("agent-b");
    const project = pathToFileURL(join(root, "packages", "agent-b")).href;
    expect(second?.arguments).toEqual([first?.arguments?.[0], project]);
    const shown = await client.connection.sendRequest<{ uri: string; text: string }>("workspace/executeCommand", { command: second?.command, arguments: second?.arguments });
    expect(shown.text).toContain(marker);
    expect(shown.uri).toBe(`gamma-prompt-compiled:/variants/${String(first?.arguments?.[0])}.md?project=${encodeURIComponent(project)}`);
    const content = await client.connection.sendRequest<{ text: string }>("workspace/textDocumentContent", { uri: shown.uri });
    expect(content.text).toBe(shown.text);
    const own = await client.connection.sendRequest<{ uri: string; text: string }>("workspace/executeCommand", { command: first?.command, arguments: first?.arguments });
    expect(own.text).not.toContain(marker);
  });

  it("says so once when no folder holds a project and none is below", async () => {
    const root = await tempDir("gamma lsp empty");
    mkdirSync(join(root, ".git"));
    mkdirSync(join(root, "docs"));
    const client = await open(root, ["."]);
    await expect.poll(() => messages(client)).toEqual([
      { type: 2, message: `gamma-prompt: no project in the workspace folder ${root} or above it (a folder with gamma-prompt.config.json or skills/), and none below it: nothing is analysed until a file in a project is opened` },
    ]);
  });
});

function hasDuplicateOne(diagnostic: Diagnostic): boolean {
  return diagnostic.code === "skill/name-duplicate";
}
