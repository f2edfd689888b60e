import { fileURLToPath } from "node:url";
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type ClientCapabilities,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { packageVersion } from "../version.js";
import { ProjectWorkspace } from "./workspace.js";
import { registerFeatures } from "./features.js";
import { answering } from "./lifecycle.js";
import { SHOW_COMPILED_PROMPT } from "./cache-lens.js";
import { OPEN_RULE_DOC } from "./code-actions.js";
import { COMPILED_SCHEME } from "./compiled-prompt.js";
import { editSupport, type EditSupport } from "./client-support.js";

/**
 * `gamma-prompt lsp`: the wiring between the protocol and the library. The
 * server holds one project (the workspace's first folder, else the root the
 * client names), judges open buffers as if saved, and never writes a file.
 */

export interface ServerOptions {
  /** Quiet period after an edit before the project is analysed again (default {@link DEFAULT_LSP_DEBOUNCE_MS}). */
  debounceMs?: number;
  /** The project root when the client names none. */
  root?: string;
}

export const DEFAULT_LSP_DEBOUNCE_MS = 0;

/** Every file: a skill's supporting files (scripts, references) are checked too, and the readers ignore what is not a source. */
const WATCHED_GLOB = "**/*";

/** The running server, as its transport needs to know it. */
export interface RunningServer {
  /** True once the client sent `shutdown`: a transport that ends then ends a clean session. */
  shutDown(): boolean;
}

export function startLanguageServer(connection: Connection, options: ServerOptions = {}): RunningServer {
  const documents = new TextDocuments(TextDocument);
  let capabilities: ClientCapabilities = {};
  let support: EditSupport = { documentChanges: false };
  let workspace: ProjectWorkspace | undefined;
  let watchedFilesRegistered = false;

  const answer = answering(connection);
  connection.onInitialize((params: InitializeParams): InitializeResult => {
    capabilities = params.capabilities;
    support = editSupport(params);
    const root = projectRoot(params) ?? options.root ?? process.cwd();
    workspace = new ProjectWorkspace(
      {
        root,
        debounceMs: options.debounceMs ?? DEFAULT_LSP_DEBOUNCE_MS,
        reportsFileChanges: () => watchedFilesRegistered,
        publish: (uri, diagnostics) => {
          try {
            void connection.sendDiagnostics({ uri, diagnostics }).catch(() => undefined);
          } catch {
            // The connection closed mid-analysis: nobody is left to show the findings to.
          }
        },
        log: (message) => {
          try {
            connection.console.warn(message);
          } catch {
            // As above: the connection is gone.
          }
        },
      },
      documents,
    );
    registerFeatures(connection, workspace, documents, { capabilities: () => capabilities, support: () => support }, answer);
    answer.initialized();
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        completionProvider: { triggerCharacters: [" ", ">", "[", ",", "-", '"', "/"] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, `${CodeActionKind.SourceFixAll}.gamma-prompt`] },
        codeLensProvider: { resolveProvider: false },
        executeCommandProvider: { commands: [OPEN_RULE_DOC, SHOW_COMPILED_PROMPT] },
        workspace: {
          textDocumentContent: { schemes: [COMPILED_SCHEME] },
          // A folder renamed in the editor's file explorer: if it is a skill's, its name and every reference follow.
          fileOperations: {
            willRename: { filters: [{ scheme: "file", pattern: { glob: "**/*", matches: "folder" } }] },
            didRename: { filters: [{ scheme: "file", pattern: { glob: "**/*" } }] },
          },
        },
      },
      serverInfo: { name: "gamma-prompt", version: packageVersion },
    };
  });

  connection.onInitialized(() => {
    const current = workspace;
    if (!current) return;
    if (capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: WATCHED_GLOB }] }).then(
        () => (watchedFilesRegistered = true),
        () => undefined,
      );
    }
    current.start();
  });

  connection.onDidChangeWatchedFiles(({ changes }) => {
    for (const change of changes) {
      const path = workspace?.paths.pathOf(change.uri);
      if (path !== undefined) workspace?.touch(path);
    }
  });

  const touch = (uri: string): void => {
    const path = workspace?.paths.pathOf(uri);
    if (path !== undefined) workspace?.touch(path);
  };
  documents.onDidOpen(({ document }) => touch(document.uri));
  documents.onDidChangeContent(({ document }) => touch(document.uri));
  documents.onDidClose(({ document }) => touch(document.uri));
  // A renamed folder moved every file in it: the next analysis looks at every file again.
  connection.workspace.onDidRenameFiles(() => workspace?.rescan());
  documents.onDidSave(({ document }) => {
    const path = workspace?.paths.pathOf(document.uri);
    if (path !== undefined) workspace?.saved(path);
  });
  documents.listen(connection);
  connection.listen();
  return { shutDown: () => answer.shutDown() };
}

/** The first workspace folder, else the deprecated rootUri. */
function projectRoot(params: InitializeParams): string | undefined {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
  if (!uri?.startsWith("file:")) return params.rootPath ?? undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
