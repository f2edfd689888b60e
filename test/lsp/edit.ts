/** Applies a server's WorkspaceEdit to the files on disk, as an editor would: text edits first, then file renames. */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TextEdit, WorkspaceEdit } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";

export function applyWorkspaceEdit(edit: WorkspaceEdit): void {
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) applyTextEdits(uri, edits);
  for (const change of edit.documentChanges ?? []) {
    if ("textDocument" in change) applyTextEdits(change.textDocument.uri, change.edits.filter((entry): entry is TextEdit => "newText" in entry));
    else if (change.kind === "rename") renameSync(fileURLToPath(change.oldUri), fileURLToPath(change.newUri));
    else throw new Error(`unexpected resource operation ${change.kind}`);
  }
}

export function applyTextEdits(uri: string, edits: readonly TextEdit[]): void {
  const path = fileURLToPath(uri);
  writeFileSync(path, editedText(readFileSync(path, "utf8"), edits));
}

export function editedText(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create("file:///x", "text", 1, text), [...edits]);
}
