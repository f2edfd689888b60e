import {
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowDocumentRequest,
  TextDocumentContentRequest,
  type ClientCapabilities,
  type Connection,
  type Location,
  type Position,
  type TextDocuments,
} from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { ProjectAnalysis } from "../analyze.js";
import { cacheLenses, SHOW_COMPILED_PROMPT } from "./cache-lens.js";
import { codeActions, OPEN_RULE_DOC } from "./code-actions.js";
import type { EditSupport } from "./client-support.js";
import { compiledPromptUri, markedPrompt, noCompiledPromptReason, variantOfUri } from "./compiled-prompt.js";
import { completions } from "./completion.js";
import { ruleHover, symbolHover } from "./hover.js";
import { fromLspPosition, toLspRange } from "./locations.js";
import { folderRenameEdit, renameSymbol, type RenameContext } from "./rename.js";
import { indexSymbols, occurrenceAt, occurrencesOf, symbolAt, type Occurrence, type SymbolIndex } from "./symbols.js";
import type { ProjectWorkspace } from "./workspace.js";
import type { WorkspaceProjects } from "./projects.js";
import { allOf, atPosition, holding, inDocument, type Answering } from "./lifecycle.js";

/**
 * The request handlers. Each answers from the project that holds the
 * document it names: it waits for the analysis of every edit sent before it,
 * then answers from that analysis; the symbol index is built once per
 * analysis, on the first request that needs it.
 */
export interface ClientView {
  capabilities(): ClientCapabilities;
  support(): EditSupport;
}

export function registerFeatures(connection: Connection, projects: WorkspaceProjects, documents: TextDocuments<TextDocument>, client: ClientView, answer: Answering): void {
  const capabilities = (): ClientCapabilities => client.capabilities();
  const indexes = new WeakMap<ProjectAnalysis, Promise<SymbolIndex>>();
  const symbolIndex = (analysis: ProjectAnalysis, workspace: ProjectWorkspace): Promise<SymbolIndex> => {
    let index = indexes.get(analysis);
    if (!index) {
      index = indexSymbols(analysis, workspace.paths.root, (path) => workspace.bufferText(path));
      indexes.set(analysis, index);
    }
    return index;
  };
  /** The analysis, the document and its project path, once every earlier edit is in. */
  const context = async (uri: string): Promise<{ analysis: ProjectAnalysis; path: string; document: TextDocument | undefined; workspace: ProjectWorkspace } | undefined> => {
    const workspace = projects.forUri(uri);
    if (workspace === undefined) return undefined;
    const analysis = await workspace.current();
    const path = workspace.paths.pathOf(uri);
    if (!analysis || path === undefined) return undefined;
    return { analysis, path, document: documents.get(uri), workspace };
  };

  /** A position past its line's end means the line's end, as the protocol says; a file the editor has not opened is taken as given. */
  const within = (found: { document?: TextDocument | undefined }, position: Position): Position =>
    found.document === undefined ? position : found.document.positionAt(found.document.offsetAt(position));

  connection.onCompletion(answer.request(atPosition, async ({ textDocument, position: asked }) => {
    const found = await context(textDocument.uri);
    if (!found?.document) return [];
    const position = within(found, asked);
    return completions(found.analysis, found.path, found.document.getText(), position.line, position.character);
  }));

  connection.onHover(answer.request(atPosition, async ({ textDocument, position: asked }) => {
    const found = await context(textDocument.uri);
    if (!found) return null;
    const position = within(found, asked);
    const index = await symbolIndex(found.analysis, found.workspace);
    const occurrence = occurrenceAt(index, found.path, fromLspPosition(position));
    if (occurrence) return symbolHover(found.analysis, occurrence, index.toolFiles.get(occurrence.name));
    const line = found.document?.getText({ start: { line: position.line, character: 0 }, end: { line: position.line + 1, character: 0 } }) ?? "";
    return ruleHover(line, position.character) ?? null;
  }));

  /** The places that name what is under the cursor, those `keep` accepts. */
  const locations = async (uri: string, position: Position, keep: (occurrence: Occurrence) => boolean): Promise<Location[] | null> => {
    const found = await context(uri);
    if (!found) return null;
    const index = await symbolIndex(found.analysis, found.workspace);
    const symbol = symbolAt(index, found.path, fromLspPosition(within(found, position)));
    if (!symbol) return null;
    return occurrencesOf(index, symbol)
      .filter(keep)
      .map((occurrence) => found.workspace.paths.location(occurrence.path, occurrence.range));
  };
  connection.onDefinition(answer.request(atPosition, ({ textDocument, position }) => locations(textDocument.uri, position, (occurrence) => occurrence.definition)));
  connection.onReferences(
    answer.request(atPosition, ({ textDocument, position, context: referenceContext }) =>
      locations(textDocument.uri, position, (occurrence) => referenceContext?.includeDeclaration === true || !occurrence.definition),
    ),
  );

  connection.onPrepareRename(answer.request(atPosition, async ({ textDocument, position }) => {
    const found = await context(textDocument.uri);
    if (!found) return null;
    const index = await symbolIndex(found.analysis, found.workspace);
    const occurrence = occurrenceAt(index, found.path, fromLspPosition(within(found, position)));
    if (!occurrence || occurrence.kind === "tool") return null;
    return { range: toLspRange(occurrence.range), placeholder: occurrence.name };
  }));

  connection.onRenameRequest(answer.request(allOf(atPosition, holding("newName", "string")), async ({ textDocument, position, newName }) => {
    const found = await context(textDocument.uri);
    if (!found) throw new ResponseError(ErrorCodes.InvalidRequest, "The file is not part of the project.");
    const index = await symbolIndex(found.analysis, found.workspace);
    const symbol = symbolAt(index, found.path, fromLspPosition(within(found, position)));
    if (!symbol) throw new ResponseError(ErrorCodes.InvalidRequest, "Nothing to rename here: place the cursor on a skill or partial name.");
    return renameSymbol(renameContext(found.analysis, index, found.workspace), symbol, newName);
  }));
  const renameContext = (analysis: ProjectAnalysis, index: SymbolIndex, workspace: ProjectWorkspace): RenameContext => ({
    analysis,
    index,
    paths: workspace.paths,
    root: workspace.paths.root,
    support: client.support(),
    versionOf: (path) => workspace.openDocument(path)?.version ?? null,
    uriOf: (path) => workspace.openDocument(path)?.uri ?? workspace.paths.uriOf(path),
  });

  connection.workspace.onWillRenameFiles(answer.request(holding("files", "array"), async ({ files }) => {
    // The project of the first renamed folder that lies in one: a rename that spans projects edits that one's references.
    const workspace = files.map(({ oldUri }) => projects.forUri(oldUri, false)).find((project) => project !== undefined);
    if (workspace === undefined) return null;
    const analysis = await workspace.current();
    if (!analysis) return null;
    const renames = files.flatMap(({ oldUri, newUri }) => {
      const from = workspace.paths.pathOf(oldUri);
      const to = workspace.paths.pathOf(newUri);
      return from === undefined || to === undefined ? [] : [{ from, to }];
    });
    return renames.length === 0 ? null : folderRenameEdit(renameContext(analysis, await symbolIndex(analysis, workspace), workspace), renames);
  }));

  connection.onCodeAction(answer.request(inDocument, async ({ textDocument, context: actionContext }) => {
    const found = await context(textDocument.uri);
    if (!found?.document) return [];
    return codeActions(
      { analysis: found.analysis, document: found.document, path: found.path, capabilities: capabilities(), analysedVersion: found.workspace.analysedVersion(found.path), root: found.workspace.paths.root, buffers: found.workspace.analysedBuffers() },
      actionContext.diagnostics,
      actionContext.only,
    );
  }));

  connection.onCodeLens(answer.request(inDocument, async ({ textDocument }) => {
    const found = await context(textDocument.uri);
    if (!found) return [];
    const lenses = cacheLenses(found.analysis, found.path);
    // A project other than the first is named in the command, so the prompt shown is its own.
    const project = projects.nameOf(found.workspace);
    if (project !== undefined) for (const lens of lenses) if (lens.command?.command === SHOW_COMPILED_PROMPT) lens.command.arguments = [...(lens.command.arguments ?? []), project];
    return lenses;
  }));
  projects.onAnalysed(() => {
    if (capabilities().workspace?.codeLens?.refreshSupport === true) void connection.sendRequest("workspace/codeLens/refresh").catch(() => undefined);
  });

  connection.onRequest(TextDocumentContentRequest.type, answer.request(holding("uri", "string"), async ({ uri }) => {
    const named = variantOfUri(uri);
    const workspace = named?.project === undefined ? projects.primary() : projects.atRoot(named.project);
    const analysis = await workspace?.compiled();
    const text = named === undefined || !analysis || !workspace ? undefined : markedPrompt(analysis, workspace.paths.root, named.variant);
    if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `No compiled prompt for ${uri}: ${noCompiledPromptReason(analysis)}.`);
    return { text };
  }));

  connection.onExecuteCommand(answer.request(holding("command", "string"), async ({ command, arguments: args }) => {
    if (command === OPEN_RULE_DOC) {
      const href = args?.[0];
      if (typeof href !== "string") throw new ResponseError(ErrorCodes.InvalidParams, `${OPEN_RULE_DOC} takes the documentation URL, e.g. ["https://www.npmjs.com/package/gamma-prompt#rule-skill-type-value"]`);
      if (capabilities().window?.showDocument?.support === true) await connection.sendRequest(ShowDocumentRequest.type, { uri: href, external: true });
      // A client that cannot open it is told where it is.
      else void connection.sendNotification("window/showMessage", { type: MessageType.Info, message: `Rule documentation: ${href}` });
      return { uri: href };
    }
    if (command === SHOW_COMPILED_PROMPT) {
      const named = args?.[0];
      if (named !== undefined && typeof named !== "string") throw new ResponseError(ErrorCodes.InvalidParams, `${SHOW_COMPILED_PROMPT} takes a variant name, e.g. ["base"]`);
      const projectUri = args?.[1];
      if (projectUri !== undefined && typeof projectUri !== "string") throw new ResponseError(ErrorCodes.InvalidParams, `${SHOW_COMPILED_PROMPT} takes the project's root folder as a file URI after the variant name`);
      const workspace = projectUri === undefined ? projects.primary() : projects.atRoot(projectUri);
      if (projectUri !== undefined && workspace === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `${SHOW_COMPILED_PROMPT}: no open project at ${projectUri}`);
      const analysis = await workspace?.compiled();
      const variant = named ?? Object.keys(analysis?.manifest?.variants ?? {})[0];
      if (variant === undefined || !analysis || !workspace) throw new ResponseError(ErrorCodes.InvalidParams, `${SHOW_COMPILED_PROMPT}: pass a variant name, e.g. ["base"] (the sources have errors, so there is no default)`);
      const text = markedPrompt(analysis, workspace.paths.root, variant);
      if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `No compiled prompt for variant "${variant}": ${noCompiledPromptReason(analysis)}.`);
      const uri = compiledPromptUri(variant, projects.nameOf(workspace));
      const client = capabilities();
      if (client.window?.showDocument?.support === true && client.workspace?.textDocumentContent !== undefined) await connection.sendRequest(ShowDocumentRequest.type, { uri, takeFocus: true });
      return { uri, text };
    }
    throw new ResponseError(ErrorCodes.InvalidParams, `Unknown command ${command}`);
  }));
}
