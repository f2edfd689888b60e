import { statIfPossible } from "../../protocol/regular-file.js";
import { join } from "node:path";
import type { SourceFile } from "../../stage-data.js";
import { DEFAULT_LAYOUT, type SkillLayout, type UnreadableFolder } from "./skill-folders.js";
import { sameStamp, stampOf, type FileStamp } from "./file-stamp.js";
import { loadSkillSources, readSourceFileSync, skillFoldersWithUnsaved, SKILL_FILE, type SkillSources } from "./discover.js";
import type { SourceOverrides } from "./read-source.js";

/**
 * SKILL.md reading for watch rebuilds. The folder listing is always fresh. A
 * file read before is read again only when it is named in the changed paths
 * (watch mode, the same rule as for prompt sources: the watcher reports every
 * save) or, without that list, when its size, modification time or inode
 * moved. Anything unusual (an unreadable file, a folder without SKILL.md)
 * falls back to a full read, so the result is always what
 * `loadSkillSources` gives for the files as last reported.
 */

/** One SKILL.md as last read, with the stamp it had just before the read. */
export interface SkillSourceRecord extends FileStamp {
  file: SourceFile;
}

export async function loadSkillSourcesReusing(
  root: string,
  records: Map<string, SkillSourceRecord>,
  changedPaths?: readonly string[],
  layout: SkillLayout = DEFAULT_LAYOUT,
  overrides?: SourceOverrides,
  configFile?: string,
): Promise<SkillSources> {
  const changed = changedPaths ? new Set(changedPaths) : undefined;
  const files: SourceFile[] = [];
  const listed = new Set<string>();
  const unlisted: UnreadableFolder[] = [];
  const folders = skillFoldersWithUnsaved(root, layout, overrides, unlisted);
  if (unlisted.length > 0) {
    // A folder that cannot be listed is a finding: the full read words it.
    records.clear();
    return loadSkillSources(root, layout, overrides, configFile);
  }
  for (const folder of folders) {
    const path = `${folder}/${SKILL_FILE}`;
    listed.add(path);
    const override = overrides?.get(path);
    if (override !== undefined) {
      // The record (if any) stays as the disk had it: the caller names the path as changed once the override ends.
      if (!("text" in override)) {
        records.clear();
        return loadSkillSources(root, layout, overrides, configFile);
      }
      files.push(override);
      continue;
    }
    const record = records.get(path);
    if (record && changed && !changed.has(path)) {
      files.push(record.file);
      continue;
    }
    const now = statIfPossible(join(root, path));
    if (record && now && !changed && sameStamp(record, now)) {
      files.push(record.file);
      continue;
    }
    const read = now?.isFile() ? readSourceFileSync(root, path) : undefined;
    if (!now || !read || !("text" in read)) {
      // Findings about the tree or a file: the full read words them.
      records.clear();
      return loadSkillSources(root, layout, overrides, configFile);
    }
    // The stamp taken before reading: a write during the read leaves it stale, so the file is read again next time.
    records.set(path, { file: read, ...stampOf(now) });
    files.push(read);
  }
  for (const path of records.keys()) if (!listed.has(path)) records.delete(path);
  return { files, diagnostics: [], unreadFolders: [], folders, unlisted: [] };
}

