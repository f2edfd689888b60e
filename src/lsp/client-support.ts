import type { InitializeParams } from "vscode-languageserver/node";

/**
 * What a client can do with a workspace edit, from what it declares and,
 * where an editor is known to declare more than it does, from its name and
 * version. A skill rename moves a folder: the server sends that move only to
 * a client that will make it, and otherwise says why it cannot rename.
 */

export interface EditSupport {
  /** Versioned text document edits (`documentChanges`). */
  documentChanges: boolean;
  /** Undefined when the client renames folders in a workspace edit; else why not, for the refusal. */
  folderRenameProblem?: string;
  /** Undefined when the client renames files in a workspace edit (a partial's .hbs file); else why not. */
  fileRenameProblem?: string;
}

/** Neovim declares resource operations, but before 0.9 its folder rename writes the folder as a buffer and fails (E502). */
const NEOVIM_FOLDER_RENAME_SINCE: readonly [number, number] = [0, 9];

export function editSupport(params: Pick<InitializeParams, "capabilities" | "clientInfo">): EditSupport {
  const workspaceEdit = params.capabilities.workspace?.workspaceEdit;
  const resourceOperations = workspaceEdit?.resourceOperations ?? [];
  // Resource operations exist only inside `documentChanges`: a client that declares them applies that form.
  const documentChanges = workspaceEdit?.documentChanges === true || resourceOperations.length > 0;
  if (!resourceOperations.includes("rename")) {
    const problem = 'this editor does not declare that it can rename files and folders in a workspace edit (workspace.workspaceEdit.resourceOperations "rename")';
    return { documentChanges, folderRenameProblem: problem, fileRenameProblem: problem };
  }
  const info = params.clientInfo;
  if (info?.name === "Neovim" && olderThan(info.version, NEOVIM_FOLDER_RENAME_SINCE)) {
    return { documentChanges, folderRenameProblem: `Neovim ${info.version ?? ""} cannot rename a folder in a workspace edit (it can from 0.9 on)`.replace("  ", " ") };
  }
  return { documentChanges };
}

function olderThan(version: string | undefined, floor: readonly [number, number]): boolean {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? "");
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return major < floor[0] || (major === floor[0] && minor < floor[1]);
}
