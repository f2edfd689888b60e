import {
  ErrorCodes,
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
import { compiledPrompt, compiledPromptUri, variantOfUri } from "./compiled-prompt.js";
import { completions } from "./completion.js";
import { ruleHover, symbolHover } from "./hover.js";
import { fromLspPosition, toLspRange } from "./locations.js";
import { renameSymbol } from "./rename.js";
import { indexSymbols, occurrenceAt, occurrencesOf, symbolAt, type Occurrence, type SymbolIndex } from "./symbols.js";
import type { ProjectWorkspace } from "./workspace.js";

/**
 * The request handlers. Each waits for the analysis of every edit sent
 * before it, then answers from that analysis; the symbol index is built once
 * per analysis, on the first request that needs it.
 */
export function registerFeatures(connection: Connection, workspace: ProjectWorkspace, documents: TextDocuments<TextDocument>, capabilities: () => ClientCapabilities): void {
  const indexes = new WeakMap<ProjectAnalysis, Promise<SymbolIndex>>();
  const symbolIndex = (analysis: ProjectAnalysis): Promise<SymbolIndex> => {
    let index = indexes.get(analysis);
    if (!index) {
      index = indexSymbols(analysis, workspace.paths.root, (path) => workspace.bufferText(path));
      indexes.set(analysis, index);
    }
    return index;
  };
  /** The analysis, the document and its project path, once every earlier edit is in. */
  const context = async (uri: string): Promise<{ analysis: ProjectAnalysis; path: string; document: TextDocument | undefined } | undefined> => {
    const analysis = await workspace.current();
    const path = workspace.paths.pathOf(uri);
    if (!analysis || path === undefined) return undefined;
    return { analysis, path, document: documents.get(uri) };
  };

  connection.onCompletion(async ({ textDocument, position }) => {
    const found = await context(textDocument.uri);
    if (!found?.document) return [];
    return completions(found.analysis, found.path, found.document.getText(), position.line, position.character);
  });

  connection.onHover(async ({ textDocument, position }) => {
    const found = await context(textDocument.uri);
    if (!found) return null;
    const index = await symbolIndex(found.analysis);
    const occurrence = occurrenceAt(index, found.path, fromLspPosition(position));
    if (occurrence) return symbolHover(found.analysis, occurrence, index.toolFiles.get(occurrence.name));
    const line = found.document?.getText({ start: { line: position.line, character: 0 }, end: { line: position.line + 1, character: 0 } }) ?? "";
    return ruleHover(line, position.character) ?? null;
  });

  /** The places that name what is under the cursor, those `keep` accepts. */
  const locations = async (uri: string, position: Position, keep: (occurrence: Occurrence) => boolean): Promise<Location[] | null> => {
    const found = await context(uri);
    if (!found) return null;
    const index = await symbolIndex(found.analysis);
    const symbol = symbolAt(index, found.path, fromLspPosition(position));
    if (!symbol) return null;
    return occurrencesOf(index, symbol)
      .filter(keep)
      .map((occurrence) => workspace.paths.location(occurrence.path, occurrence.range));
  };
  connection.onDefinition(({ textDocument, position }) => locations(textDocument.uri, position, (occurrence) => occurrence.definition));
  connection.onReferences(({ textDocument, position, context: referenceContext }) =>
    locations(textDocument.uri, position, (occurrence) => referenceContext.includeDeclaration || !occurrence.definition),
  );

  connection.onPrepareRename(async ({ textDocument, position }) => {
    const found = await context(textDocument.uri);
    if (!found) return null;
    const index = await symbolIndex(found.analysis);
    const occurrence = occurrenceAt(index, found.path, fromLspPosition(position));
    if (!occurrence || occurrence.kind === "tool") return null;
    return { range: toLspRange(occurrence.range), placeholder: occurrence.name };
  });

  connection.onRenameRequest(async ({ textDocument, position, newName }) => {
    const found = await context(textDocument.uri);
    if (!found) throw new ResponseError(ErrorCodes.InvalidRequest, "The file is not part of the project.");
    const index = await symbolIndex(found.analysis);
    const symbol = symbolAt(index, found.path, fromLspPosition(position));
    if (!symbol) throw new ResponseError(ErrorCodes.InvalidRequest, "Nothing to rename here: place the cursor on a skill or partial name.");
    return renameSymbol(
      {
        analysis: found.analysis,
        index,
        paths: workspace.paths,
        root: workspace.paths.root,
        capabilities: capabilities(),
        versionOf: (path) => documents.get(workspace.paths.uriOf(path))?.version ?? null,
      },
      symbol,
      newName,
    );
  });

  connection.onCodeAction(async ({ textDocument, context: actionContext }) => {
    const found = await context(textDocument.uri);
    if (!found?.document) return [];
    return codeActions(
      { analysis: found.analysis, document: found.document, path: found.path, capabilities: capabilities(), analysedVersion: workspace.analysedVersion(found.path) },
      actionContext.diagnostics,
      actionContext.only,
    );
  });

  connection.onCodeLens(async ({ textDocument }) => {
    const found = await context(textDocument.uri);
    return found ? cacheLenses(found.analysis, found.path) : [];
  });
  workspace.onAnalysed(() => {
    if (capabilities().workspace?.codeLens?.refreshSupport === true) void connection.sendRequest("workspace/codeLens/refresh").catch(() => undefined);
  });

  connection.onRequest(TextDocumentContentRequest.type, async ({ uri }) => {
    const variant = variantOfUri(uri);
    const analysis = await workspace.current();
    const text = variant === undefined || !analysis ? undefined : compiledPrompt(analysis, variant);
    if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `No compiled prompt for ${uri}: the variant is unknown or the project has errors.`);
    return { text };
  });

  connection.onExecuteCommand(async ({ command, arguments: args }) => {
    if (command === OPEN_RULE_DOC) {
      const href = args?.[0];
      if (typeof href === "string" && capabilities().window?.showDocument?.support === true) await connection.sendRequest(ShowDocumentRequest.type, { uri: href, external: true });
      return null;
    }
    if (command === SHOW_COMPILED_PROMPT) {
      const analysis = await workspace.current();
      const variant = typeof args?.[0] === "string" ? args[0] : Object.keys(analysis?.manifest?.variants ?? {})[0];
      const text = variant === undefined || !analysis ? undefined : compiledPrompt(analysis, variant);
      if (variant === undefined || text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, "No compiled prompt: the variant is unknown or the project has errors.");
      const uri = compiledPromptUri(variant);
      const client = capabilities();
      if (client.window?.showDocument?.support === true && client.workspace?.textDocumentContent !== undefined) await connection.sendRequest(ShowDocumentRequest.type, { uri, takeFocus: true });
      return { uri, text };
    }
    throw new ResponseError(ErrorCodes.InvalidParams, `Unknown command ${command}`);
  });
}
