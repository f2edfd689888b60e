import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter, type CodeLens, type Hover, type InitializeResult } from "vscode-languageserver/node";
import { build } from "../../src/build.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { attach, CLIENT_CAPABILITIES, copyEmbeddedDefault, repoRoot } from "./client.js";

/**
 * The session docs/editors.md shows, run for real against the built CLI: the
 * messages a client sends and what `gamma-prompt lsp --stdio` answers, with
 * the temporary project folder written as /home/me/my-agent.
 */

const IMPORT = "skills/import/SKILL.md";
const SHOWN_ROOT = "file:///home/me/my-agent";

afterEach(removeTempDirs);

async function runSession(): Promise<string> {
  const root = await copyEmbeddedDefault();
  expect((await build({ root })).ok).toBe(true);
  const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "lsp", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const client = attach(createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin)), root);
  const shown = (value: unknown): string => JSON.stringify(value, null, 2).split(pathToFileURL(root).href).join(SHOWN_ROOT);
  const lines: string[] = [];
  const initialized = await client.connection.sendRequest<InitializeResult>("initialize", { processId: null, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES });
  lines.push(`--> initialize (rootUri ${SHOWN_ROOT})`, `<-- serverInfo ${shown(initialized.serverInfo)}`);
  await client.connection.sendNotification("initialized", {});

  const text = readFileSync(join(root, IMPORT), "utf8").replace(/^name: import$/m, "name: importer");
  await client.open(IMPORT, text);
  lines.push(`--> textDocument/didOpen ${IMPORT} (unsaved: "name: importer")`);
  const diagnostics = await client.diagnosticsFor(IMPORT, (found) => found.length > 0);
  lines.push(`<-- textDocument/publishDiagnostics ${shown({ uri: client.uri(IMPORT), diagnostics })}`);

  const since = client.published.length;
  await client.change(IMPORT, readFileSync(join(root, IMPORT), "utf8"));
  lines.push(`--> textDocument/didChange ${IMPORT} (back to "name: import")`);
  const clean = await client.diagnosticsFor(IMPORT, (found) => found.length === 0, since);
  lines.push(`<-- textDocument/publishDiagnostics ${JSON.stringify({ uri: client.uri(IMPORT).split(pathToFileURL(root).href).join(SHOWN_ROOT), diagnostics: clean })}`);

  const hover = await client.connection.sendRequest<Hover>("textDocument/hover", { textDocument: { uri: client.uri(IMPORT) }, position: { line: 5, character: 40 } });
  lines.push("--> textDocument/hover on `gml-cli` in metadata.gamma-requires-skills", `<-- ${shown(hover.contents)}`);

  const partial = "prompts/partials/identity.hbs";
  await client.open(partial, `${readFileSync(join(root, partial), "utf8")}Answer in the user's language.\n`);
  lines.push(`--> textDocument/didOpen ${partial} (unsaved: one sentence added)`);
  const lenses = await client.connection.sendRequest<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(partial) } });
  lines.push(`--> textDocument/codeLens ${partial}`, ...lenses.map((lens) => `<-- ${lens.command?.title ?? ""}${lens.command?.command ? ` [${lens.command.command} ${JSON.stringify(lens.command.arguments)}]` : ""}`));

  await client.connection.sendRequest("shutdown");
  await client.connection.sendNotification("exit");
  lines.push("--> shutdown, exit", `<-- (exit code ${String(await exited)})`);
  client.connection.dispose();
  return `${lines.join("\n")}\n`;
}

describe("docs/editors.md", () => {
  it("shows a real session with the server", async () => {
    const transcript = await runSession();
    const page = readFileSync(join(repoRoot, "docs", "editors.md"), "utf8");
    expect(page).toContain(`\n\`\`\`\n${transcript}\`\`\`\n`);
  });
});
