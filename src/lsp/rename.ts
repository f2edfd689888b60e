import { existsSync } from "node:fs";
import { join } from "node:path";
import { ErrorCodes, LSPErrorCodes, ResponseError, type ClientCapabilities, type TextDocumentEdit, type TextEdit, type WorkspaceEdit } from "vscode-languageserver/node";
import type { ProjectAnalysis } from "../analyze.js";
import { FILE_START } from "../diagnostics/diagnostic.js";
import { checkSkillFile } from "../pipeline/lint-skills/checked-skill.js";
import { skillSetDiagnostics } from "../pipeline/validate/skill-set-rules.js";
import { toLspRange, type ProjectPaths } from "./locations.js";
import { occurrencesOf, partialName, partialPath, type Occurrence, type SymbolIndex, type SymbolKind } from "./symbols.js";

/**
 * Renaming a skill or a partial as one workspace edit: every text edit
 * first, then the folder (skill) or file (partial) rename, which is sent only
 * to a client that declares it can apply one. A new name that breaks a rule
 * or is taken is refused with the rule's own message.
 */

export interface RenameContext {
  analysis: ProjectAnalysis;
  index: SymbolIndex;
  paths: ProjectPaths;
  root: string;
  capabilities: ClientCapabilities;
  /** The version of an open buffer, for edits the client must apply to exactly that text. */
  versionOf(path: string): number | null;
}

export async function renameSymbol(context: RenameContext, symbol: { kind: SymbolKind; name: string }, newName: string): Promise<WorkspaceEdit> {
  if (symbol.kind === "tool") throw new ResponseError(ErrorCodes.InvalidRequest, "Renaming a tool is not supported: its name is part of the model's tool schema.");
  if (newName === symbol.name) return {};
  const occurrences = occurrencesOf(context.index, symbol).filter((occurrence) => !(symbol.kind === "partial" && occurrence.definition));
  if (symbol.kind === "skill") {
    const refusal = await skillNameProblem(context, newName);
    if (refusal !== undefined) throw new ResponseError(LSPErrorCodes.RequestFailed, refusal);
    const file = context.analysis.skillFiles.find((record) => record.manifest?.name === symbol.name);
    const folder = file ? file.path.slice(0, file.path.lastIndexOf("/")) : undefined;
    const target = folder === undefined ? undefined : `${folder.slice(0, folder.lastIndexOf("/") + 1)}${newName}`;
    return workspaceEdit(context, occurrences, newName, folder !== undefined && target !== undefined && file?.folder === symbol.name ? { from: folder, to: target } : undefined);
  }
  const refusal = refusePartialName(context, newName);
  if (refusal !== undefined) throw new ResponseError(LSPErrorCodes.RequestFailed, refusal);
  return workspaceEdit(context, occurrences, newName, { from: partialPath(symbol.name), to: partialPath(newName) });
}

/** The message of the rule a skill named `newName` would break here: its format, or a name (or folder) already taken. */
async function skillNameProblem(context: RenameContext, newName: string): Promise<string | undefined> {
  const probe = `---\nname: ${JSON.stringify(newName)}\ndescription: Use when renaming.\ntype: reference\n---\n`;
  const checked = await checkSkillFile({ path: "SKILL.md", text: probe, contentHash: "" }, undefined, context.analysis.profile);
  const format = checked.diagnostics.find((diagnostic) => diagnostic.ruleId === "skill/name-format");
  if (format) return format.message;
  const owner = context.analysis.skillFiles.find((record) => record.manifest?.name === newName || record.folder === newName);
  if (!owner) return undefined;
  // The set rule's own finding for two skills of that name.
  const named = { name: newName, nameRange: FILE_START, requiresSkills: [], conflictsWith: [], toolNamespaces: [] };
  const duplicate = skillSetDiagnostics([
    { path: owner.path, folder: newName, manifest: named, opening: FILE_START },
    { path: `${owner.path}\u0000renamed`, folder: newName, manifest: named, opening: FILE_START },
  ]).find((diagnostic) => diagnostic.ruleId === "skill/name-duplicate");
  return duplicate?.message;
}

function refusePartialName(context: RenameContext, newName: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/.test(newName)) return `Unexpected partial name "${newName}", expected letters, digits, "-" and "_" (a file name under prompts/partials/ without .hbs)`;
  const taken = (context.analysis.sources?.partials ?? []).some((partial) => partialName(partial.path) === newName) || existsSync(join(context.root, partialPath(newName)));
  return taken ? `Unexpected second partial named "${newName}", expected unique partial names` : undefined;
}

function workspaceEdit(context: RenameContext, occurrences: readonly Occurrence[], newName: string, move: { from: string; to: string } | undefined): WorkspaceEdit {
  const byFile = new Map<string, TextEdit[]>();
  for (const occurrence of occurrences) {
    const edits = byFile.get(occurrence.path) ?? [];
    edits.push({ range: toLspRange(occurrence.range), newText: newName });
    byFile.set(occurrence.path, edits);
  }
  const files = [...byFile.keys()].sort();
  const workspace = context.capabilities.workspace?.workspaceEdit;
  const canRename = workspace?.documentChanges === true && (workspace.resourceOperations ?? []).includes("rename");
  if (!canRename) {
    const changes: Record<string, TextEdit[]> = {};
    for (const file of files) changes[context.paths.uriOf(file)] = byFile.get(file) ?? [];
    return { changes };
  }
  const documentChanges: WorkspaceEdit["documentChanges"] = files.map(
    (file): TextDocumentEdit => ({ textDocument: { uri: context.paths.uriOf(file), version: context.versionOf(file) }, edits: byFile.get(file) ?? [] }),
  );
  if (move && move.from !== move.to) documentChanges.push({ kind: "rename", oldUri: context.paths.uriOf(move.from), newUri: context.paths.uriOf(move.to) });
  return { documentChanges };
}
