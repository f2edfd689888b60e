/**
 * The line that tells the model where a skill's supporting files are, the
 * way Pi and Claude Code give a skill's base folder: paths in the body are
 * relative to it, and the host's `read` executor resolves
 * `skills/<name>/<path>` (the runtime's `readSkillFile`). One text for the
 * compiler (a preloaded skill in a variant) and the runtime (the `skill`
 * tool's result and the anchor after compaction).
 */

/** Files listed by name; a larger folder is summarised after these. */
const LISTED_FILES = 50;

/** `skills/<name>`: the folder that holds a skill's supporting files, in dist/ and in the paths the model sees. */
export function skillBaseDir(name: string): string {
  return `skills/${name}`;
}

/** Undefined when the skill ships no files; `paths` are relative to the skill's folder, in manifest order. */
export function baseFolderLine(name: string, paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const baseDir = skillBaseDir(name);
  const listed = paths.slice(0, LISTED_FILES).join(", ");
  const more = paths.length > LISTED_FILES ? ` and ${paths.length - LISTED_FILES} more` : "";
  return (
    `Base folder of skill "${name}": ${baseDir}/. Paths in the skill are relative to it; read a file with \`read\` at ${baseDir}/<path>, ` +
    `e.g. ${baseDir}/${paths[0]}. Files (${paths.length}): ${listed}${more}.`
  );
}
