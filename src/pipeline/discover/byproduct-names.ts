/**
 * Names that are never sources: what tools write beside the sources on one
 * machine. `build`, `lint` and `check` skip them in a skill's folder, and
 * `watch` ignores their events, from this one list, so a watched project and
 * a clean build always agree on what the sources are. (Dotfiles and
 * dot-folders, vim's `.SKILL.md.swp` and emacs' `.#SKILL.md` among them, are
 * skipped by every reader before this list is asked.)
 */

/** Folders of installed packages and interpreter caches, wherever they sit. */
const BYPRODUCT_FOLDERS = new Set(["node_modules", "__pycache__"]);

/** Compiled Python, editor backups, merge leftovers, and the folder metadata Windows and macOS write. */
const TOOL_FILE = /\.py[co]$|~$|\.(?:orig|rej)$|^(?:Thumbs\.db|desktop\.ini|Icon\r)$/i;

/**
 * What an editor writes for a moment while it saves, or keeps while a buffer
 * has unsaved changes (emacs' `#SKILL.md#` holds a draft nobody saved): a
 * build that ran then would ship it, and the next would take it out again.
 */
function isEditorScratch(name: string): boolean {
  return (
    name === "4913" || // vim's probe file when checking a folder is writable
    /\.sw[a-z]$/.test(name) || // vim swap files: .swp, .swo, ...
    // GNU sed -i writes the new text to sedXXXXXX (random letters and digits), then renames it over the file;
    // a word such as "sediments" is not one.
    (/^sed[A-Za-z0-9]{6}$/.test(name) && /[A-Z0-9]/.test(name.slice(3))) ||
    /___jb_(?:tmp|old)___$/.test(name) || // JetBrains' safe write
    (name.length > 1 && name.startsWith("#") && name.endsWith("#")) // emacs auto-save
  );
}

/** A folder a skill may hold that is never a source: not listed, not copied, not watched. */
export function isByproductFolder(name: string): boolean {
  return BYPRODUCT_FOLDERS.has(name);
}

/** A file a skill may hold that is never a source: not listed, not copied, not watched. */
export function isByproductFile(name: string): boolean {
  return TOOL_FILE.test(name) || isEditorScratch(name);
}
