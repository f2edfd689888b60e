import { existsSync } from "node:fs";
import { join } from "node:path";
import { ErrorCodes, LSPErrorCodes, ResponseError, type TextDocumentEdit, type TextEdit, type WorkspaceEdit } from "vscode-languageserver/node";
import type { ProjectAnalysis } from "../analyze.js";
import { FILE_START } from "../diagnostics/diagnostic.js";
import { checkSkillFile } from "../pipeline/lint-skills/checked-skill.js";
import { skillSetDiagnostics } from "../pipeline/validate/skill-set-rules.js";
import type { EditSupport } from "./client-support.js";
import { toLspRange, type ProjectPaths } from "./locations.js";
import { occurrencesOf, partialName, partialPath, type Occurrence, type SymbolIndex, type SymbolKind } from "./symbols.js";

/**
 * Renaming a skill or a partial as one workspace edit: every text edit
 * first, then the folder (skill) or file (partial) rename. Never half a
 * rename: a skill whose folder must move is refused, saying why and what to
 * do, by a client that cannot move folders in a workspace edit; once its
 * folder has the new name, renaming it again moves nothing and works in any
 * client. A new name that breaks a rule or is taken is refused with the
 * rule's own message. A skill folder renamed in the editor's file explorer
 * (`workspace/willRenameFiles`) gets the same text edits, without the move.
 */

export interface RenameContext {
  analysis: ProjectAnalysis;
  index: SymbolIndex;
  paths: ProjectPaths;
  root: string;
  support: EditSupport;
  /** The version of an open buffer, for edits the client must apply to exactly that text. */
  versionOf(path: string): number | null;
  /** The URI an edit of a file names: an open buffer's as the editor spelled it, else the file's. */
  uriOf(path: string): string;
}

export async function renameSymbol(context: RenameContext, symbol: { kind: SymbolKind; name: string }, newName: string): Promise<WorkspaceEdit> {
  if (symbol.kind === "tool") throw new ResponseError(ErrorCodes.InvalidRequest, "Renaming a tool is not supported: its name is part of the model's tool schema.");
  if (newName === symbol.name) return {};
  const occurrences = occurrencesOf(context.index, symbol).filter((occurrence) => !(symbol.kind === "partial" && occurrence.definition));
  if (symbol.kind === "skill") {
    const file = context.analysis.skillFiles.find((record) => record.manifest?.name === symbol.name);
    const refusal = await skillNameProblem(context, newName, file?.path);
    if (refusal !== undefined) throw new ResponseError(LSPErrorCodes.RequestFailed, refusal);
    const folder = file ? file.path.slice(0, file.path.lastIndexOf("/")) : undefined;
    const target = folder === undefined ? undefined : `${folder.slice(0, folder.lastIndexOf("/") + 1)}${newName}`;
    const move = folder !== undefined && target !== undefined && file?.folder === symbol.name ? { from: folder, to: target } : undefined;
    if (move && context.support.folderRenameProblem !== undefined) {
      throw new ResponseError(
        LSPErrorCodes.RequestFailed,
        `Renaming skill "${symbol.name}" moves its folder ${move.from}/ to ${move.to}/, and ${context.support.folderRenameProblem}. ` +
          `Rename the folder to ${move.to}/ first (in a file explorer, or \`mv ${move.from} ${move.to}\`, and close the editor's buffers of files under ${move.from}/: an open buffer is a file to the server), then rename "${symbol.name}" again: ` +
          `with the folder already named "${newName}", the rename changes name: and every reference, and moves nothing.`,
      );
    }
    return workspaceEdit(context, occurrences, newName, move);
  }
  const refusal = refusePartialName(context, newName);
  if (refusal !== undefined) throw new ResponseError(LSPErrorCodes.RequestFailed, refusal);
  const move = { from: partialPath(symbol.name), to: partialPath(newName) };
  // Never half a rename: a client that would apply the references and not the file's move gets no edit.
  if (context.support.fileRenameProblem !== undefined) {
    throw new ResponseError(
      LSPErrorCodes.RequestFailed,
      `Renaming partial "${symbol.name}" moves ${move.from} to ${move.to}, and ${context.support.fileRenameProblem}. Rename the file (\`mv ${move.from} ${move.to}\`) and each {{> ${symbol.name}}} by hand, or in an editor that applies file renames.`,
    );
  }
  return workspaceEdit(context, occurrences, newName, move);
}

/** The message of the rule a skill named `newName` would break here: its format, or a name (or folder) another skill already has. */
async function skillNameProblem(context: RenameContext, newName: string, renamedPath: string | undefined): Promise<string | undefined> {
  const probe = `---\nname: ${JSON.stringify(newName)}\ndescription: Use when renaming.\ntype: reference\n---\n`;
  const checked = await checkSkillFile({ path: "SKILL.md", text: probe, contentHash: "" }, undefined, context.analysis.profile);
  const format = checked.diagnostics.find((diagnostic) => diagnostic.ruleId === "skill/name-format");
  if (format) return format.message;
  const owner = context.analysis.skillFiles.find((record) => record.path !== renamedPath && (record.manifest?.name === newName || record.folder === newName));
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
  // The build reads the files directly in prompts/partials/: a name with "/" would move the partial out of its reach.
  if (!/^[A-Za-z0-9_-]+$/.test(newName)) return `Unexpected partial name "${newName}", expected letters, digits, "-" and "_" (a file name under prompts/partials/ without .hbs)`;
  const taken = (context.analysis.sources?.partials ?? []).some((partial) => partialName(partial.path) === newName) || existsSync(join(context.root, partialPath(newName)));
  return taken ? `Unexpected second partial named "${newName}", expected unique partial names` : undefined;
}

function workspaceEdit(context: RenameContext, occurrences: readonly Occurrence[], newName: string | ((occurrence: Occurrence) => string), move: { from: string; to: string } | undefined): WorkspaceEdit {
  const byFile = new Map<string, TextEdit[]>();
  for (const occurrence of occurrences) {
    const edits = byFile.get(occurrence.path) ?? [];
    edits.push({ range: toLspRange(occurrence.range), newText: typeof newName === "string" ? newName : newName(occurrence) });
    byFile.set(occurrence.path, edits);
  }
  const files = [...byFile.keys()].sort();
  const moves = move !== undefined && move.from !== move.to;
  if (!moves && !context.support.documentChanges) {
    const changes: Record<string, TextEdit[]> = {};
    for (const file of files) changes[context.uriOf(file)] = byFile.get(file) ?? [];
    return { changes };
  }
  const documentChanges: WorkspaceEdit["documentChanges"] = files.map(
    (file): TextDocumentEdit => ({ textDocument: { uri: context.uriOf(file), version: context.versionOf(file) }, edits: byFile.get(file) ?? [] }),
  );
  if (moves) documentChanges.push({ kind: "rename", oldUri: context.paths.uriOf(move.from), newUri: context.paths.uriOf(move.to) });
  return { documentChanges };
}

/**
 * `workspace/willRenameFiles`: a skill folder about to be renamed in the
 * editor gets its `name` and every reference changed to the folder's new
 * name, in the files at their current places (the client applies the edit,
 * then renames). Nothing when the folder holds no skill named after it, or
 * when the new name breaks a rule or is taken: the lint findings then say so.
 */
export async function folderRenameEdit(context: RenameContext, renames: ReadonlyArray<{ from: string; to: string }>): Promise<WorkspaceEdit | null> {
  const occurrences: Occurrence[] = [];
  const names = new Map<Occurrence, string>();
  for (const { from, to } of renames) {
    const skill = context.analysis.skillFiles.find((record) => record.path === `${from}/SKILL.md` && record.manifest?.name === record.folder);
    const oldName = skill?.manifest?.name;
    const newName = to.slice(to.lastIndexOf("/") + 1);
    if (!skill || oldName === undefined || newName === oldName) continue;
    if ((await skillNameProblem(context, newName, skill.path)) !== undefined) continue;
    for (const occurrence of occurrencesOf(context.index, { kind: "skill", name: oldName })) {
      occurrences.push(occurrence);
      names.set(occurrence, newName);
    }
  }
  if (occurrences.length === 0) return null;
  return workspaceEdit(context, occurrences, (occurrence) => names.get(occurrence) ?? occurrence.name, undefined);
}
