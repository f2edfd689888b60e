/**
 * A real protocol client for the language server: JSON-RPC over a pair of
 * in-memory streams to a server in this process, or over a spawned
 * process's standard input and output. Notifications are recorded so tests
 * can wait for the publication they expect.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import {
  createConnection,
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver/node";
import { startLanguageServer } from "../../src/lsp/server.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";

export const repoRoot = new URL("../..", import.meta.url).pathname;

/** The embedded default's sources (and its evaluation scenarios), copied into a fresh temp folder. */
export async function copyEmbeddedDefault(): Promise<string> {
  return copyParts(repoRoot, ["skills", "prompts", join("schemas", "tools"), join("schemas", "namespaces"), "evals", "knowledge"], await tempDir("gamma lsp"));
}

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  workspace: {
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
    didChangeWatchedFiles: { dynamicRegistration: true },
    codeLens: { refreshSupport: false },
  },
  window: { showDocument: { support: true } },
  textDocument: { publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true } },
};

export interface TestClient {
  connection: ProtocolConnection;
  root: string;
  uri(relPath: string): string;
  /** Every publication so far, in order. */
  published: PublishDiagnosticsParams[];
  /** The next publication for `relPath` that satisfies `accept` (one already received counts when `since` is before it). */
  diagnosticsFor(relPath: string, accept?: (diagnostics: Diagnostic[]) => boolean, since?: number): Promise<Diagnostic[]>;
  open(relPath: string, text: string, languageId?: string): Promise<void>;
  change(relPath: string, text: string): Promise<void>;
  close(relPath: string): Promise<void>;
  /** Requests (showDocument, registrations) and messages (showMessage) sent from the server to the client. */
  serverRequests: Array<{ method: string; params: unknown }>;
  dispose(): Promise<void>;
}

/** A server in this process. `exit` is never sent here: the server library would end the test process. */
export async function startInProcess(
  root: string,
  capabilities: ClientCapabilities = CLIENT_CAPABILITIES,
  clientInfo?: { name: string; version?: string },
  /** The workspace folders, relative to `root` (default: `root` itself); the client's paths stay relative to `root`. */
  folders: readonly string[] = ["."],
): Promise<TestClient & { initialize: InitializeResult }> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const serverConnection = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  startLanguageServer(serverConnection, { debounceMs: 20 });
  const connection = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const client = attach(connection, root);
  const initialize = await client.connection.sendRequest<InitializeResult>("initialize", {
    processId: null,
    rootUri: pathToFileURL(join(root, folders[0] ?? ".")).href,
    workspaceFolders: folders.map((folder) => ({ uri: pathToFileURL(join(root, folder)).href, name: folder === "." ? "project" : folder })),
    capabilities,
    ...(clientInfo ? { clientInfo } : {}),
  });
  await client.connection.sendNotification("initialized", {});
  const dispose = client.dispose;
  return {
    ...client,
    initialize,
    async dispose() {
      await dispose();
      serverConnection.dispose();
    },
  };
}

const started: TestClient[] = [];

/** A server in this process, shut down by {@link disposeClients}. */
export async function start(root: string, capabilities?: ClientCapabilities, clientInfo?: { name: string; version?: string }): Promise<TestClient> {
  const client = await startInProcess(root, capabilities, clientInfo);
  started.push(client);
  return client;
}

export async function disposeClients(): Promise<void> {
  await Promise.all(started.splice(0).map((client) => client.dispose()));
}

export function attach(connection: ProtocolConnection, root: string): TestClient {
  const published: PublishDiagnosticsParams[] = [];
  const waiters: Array<() => void> = [];
  const serverRequests: Array<{ method: string; params: unknown }> = [];
  const versions = new Map<string, number>();
  const uri = (relPath: string): string => pathToFileURL(join(root, relPath)).href;
  connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
    published.push(params);
    for (const waiter of waiters.splice(0)) waiter();
  });
  connection.onNotification("window/showMessage", (params: unknown) => {
    serverRequests.push({ method: "window/showMessage", params });
  });
  for (const method of ["window/showDocument", "client/registerCapability", "workspace/codeLens/refresh"]) {
    connection.onRequest(method, (params: unknown) => {
      serverRequests.push({ method, params });
      return method === "window/showDocument" ? { success: true } : null;
    });
  }
  connection.onNotification("window/logMessage", () => undefined);
  connection.listen();
  return {
    connection,
    root,
    uri,
    published,
    serverRequests,
    diagnosticsFor(relPath, accept = () => true, since = 0) {
      const target = uri(relPath);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching diagnostics for ${relPath}; got ${JSON.stringify(published.filter((entry) => entry.uri === target).map((entry) => entry.diagnostics.map((d) => d.code)))}`)), 20_000);
        const check = (): void => {
          const found = published.slice(since).find((entry) => entry.uri === target && accept(entry.diagnostics));
          if (found) {
            clearTimeout(timer);
            resolve(found.diagnostics);
          } else waiters.push(check);
        };
        check();
      });
    },
    async open(relPath, text, languageId = languageOf(relPath)) {
      versions.set(relPath, 1);
      await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri(relPath), languageId, version: 1, text } });
    },
    async change(relPath, text) {
      const version = (versions.get(relPath) ?? 1) + 1;
      versions.set(relPath, version);
      await connection.sendNotification("textDocument/didChange", { textDocument: { uri: uri(relPath), version }, contentChanges: [{ text }] });
    },
    async close(relPath) {
      versions.delete(relPath);
      await connection.sendNotification("textDocument/didClose", { textDocument: { uri: uri(relPath) } });
    },
    async dispose() {
      await connection.sendRequest("shutdown");
      connection.dispose();
    },
  };
}

function languageOf(relPath: string): string {
  if (relPath.endsWith(".md")) return "markdown";
  if (relPath.endsWith(".hbs")) return "handlebars";
  if (relPath.endsWith(".json")) return "json";
  return "yaml";
}
