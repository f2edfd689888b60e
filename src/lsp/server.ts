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
  type InitializeError,
  MessageType,
  ResponseError,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { packageVersion } from "../version.js";
import { noProjectMessage, WorkspaceProjects } from "./projects.js";
import { registerFeatures } from "./features.js";
import { answering } from "./lifecycle.js";
import { SHOW_COMPILED_PROMPT } from "./cache-lens.js";
import { OPEN_RULE_DOC } from "./code-actions.js";
import { COMPILED_SCHEME } from "./compiled-prompt.js";
import { editSupport, type EditSupport } from "./client-support.js";

/**
 * `gamma-prompt lsp`: the wiring between the protocol and the library. The
 * server analyses the project of each workspace folder (else of the root the
 * client names), found as the CLI finds one: that folder or the nearest one
 * above it with gamma-prompt.config.json or skills/; and the project of each
 * file opened outside those, found the same way from the file's folder (see
 * projects.ts). It judges open buffers as if saved, and never writes a file.
 */

export interface ServerOptions {
  /** Quiet period after an edit before the project is analysed again (default {@link DEFAULT_LSP_DEBOUNCE_MS}). */
  debounceMs?: number;
  /** The folder a project is looked for in when the client names none. */
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
  let projects: WorkspaceProjects | undefined;
  let folders: string[] = [];
  let withoutProject: string[] = [];
  let watchedFilesRegistered = false;

  const answer = answering(connection);
  connection.onInitialize((params: InitializeParams): InitializeResult | ResponseError<InitializeError> => {
    // One initialize per session: a second would set up the projects and every handler again.
    const refused = answer.refuseInitialize();
    if (refused) return refused;
    capabilities = params.capabilities;
    support = editSupport(params);
    folders = workspaceFolders(params) ?? [options.root ?? process.cwd()];
    projects = new WorkspaceProjects(
      {
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
    withoutProject = projects.addFolders(folders).withoutProject;
    registerFeatures(connection, projects, documents, { capabilities: () => capabilities, support: () => support }, answer);
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
          workspaceFolders: { supported: true, changeNotifications: true },
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
    const current = projects;
    if (!current) return;
    if (capabilities.workspace?.workspaceFolders === true) connection.workspace.onDidChangeWorkspaceFolders(followFolders);
    if (capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: WATCHED_GLOB }] }).then(
        () => (watchedFilesRegistered = true),
        () => undefined,
      );
    }
    if (withoutProject.length > 0 && current.all().length === 0) {
      // Nothing to analyse until a file in a project is opened: the editor says so where the user looks.
      void connection.sendNotification("window/showMessage", { type: MessageType.Warning, message: noProjectMessage(withoutProject) });
    } else {
      for (const folder of withoutProject) connection.console.info(`gamma-prompt: no project in the workspace folder ${folder} or above it`);
    }
    current.start();
  });

  const followFolders = (event: { added?: Array<{ uri: string }>; removed?: Array<{ uri: string }> } | undefined): void => {
    const current = projects;
    if (!current) return;
    const removed = new Set((event?.removed ?? []).flatMap(({ uri }) => folderPath(uri) ?? []));
    const added = (event?.added ?? []).flatMap(({ uri }) => folderPath(uri) ?? []);
    folders = [...folders.filter((folder) => !removed.has(folder)), ...added];
    current.addFolders(added);
    current.retain(folders);
  };
  // A client that declares workspace folders (VS Code, Neovim) has its changes taken by the server library's
  // own handler, installed during initialize over this one: they arrive through its event (registered below,
  // once initialized). A client that declares none reaches this handler.
  connection.onNotification("workspace/didChangeWorkspaceFolders", (params: { event?: Parameters<typeof followFolders>[0] }) => followFolders(params.event));

  connection.onDidChangeWatchedFiles(({ changes }) => {
    for (const change of changes) {
      // Every project the file lies in: a nested project's file can be one its neighbour's config names.
      for (const project of projects?.all() ?? []) {
        const path = project.paths.pathOf(change.uri);
        if (path !== undefined) project.changedOnDisk(path);
      }
    }
  });

  const touch = (uri: string): void => {
    const project = projects?.forUri(uri);
    const path = project?.paths.pathOf(uri);
    if (path !== undefined) project?.touch(path);
  };
  documents.onDidOpen(({ document }) => touch(document.uri));
  documents.onDidChangeContent(({ document }) => touch(document.uri));
  documents.onDidClose(({ document }) => {
    touch(document.uri);
    // A project found through a file outside the workspace folders lives while one of its buffers is open: closed,
    // its findings are withdrawn and nothing of it is held for the rest of a long session.
    projects?.retain(folders);
  });
  // A renamed folder moved every file in it: the next analysis looks at every file again.
  connection.workspace.onDidRenameFiles(() => {
    for (const project of projects?.all() ?? []) project.rescan();
  });
  documents.onDidSave(({ document }) => {
    const project = projects?.forUri(document.uri);
    const path = project?.paths.pathOf(document.uri);
    if (path !== undefined) project?.saved(path);
  });
  documents.listen(connection);
  connection.listen();
  return { shutDown: () => answer.shutDown() };
}

/** The workspace folders, else the deprecated rootUri (or rootPath); undefined when the client names none. */
function workspaceFolders(params: InitializeParams): string[] | undefined {
  const named = (params.workspaceFolders ?? []).flatMap(({ uri }) => folderPath(uri) ?? []);
  if (named.length > 0) return named;
  const root = (params.rootUri ? folderPath(params.rootUri) : undefined) ?? params.rootPath ?? undefined;
  return root === undefined ? undefined : [root];
}

function folderPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
