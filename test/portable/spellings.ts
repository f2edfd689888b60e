import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DESIGN_FIELDS } from "../../src/protocol/manifest-spellings.js";

/**
 * The embedded default rewritten in the top-level spelling, for comparing the
 * two: each `gamma-…` entry of a block `metadata` becomes its top-level key
 * (a list as a block list), placed where the metadata block was; a metadata
 * block left empty goes. Only the block shape the embedded default uses is
 * understood; anything else throws, so a test never compares a half-rewritten file.
 */
export function toTopLevelSpelling(text: string): string {
  const end = text.indexOf("\n---\n", 4);
  if (!text.startsWith("---\n") || end < 0) throw new Error("no frontmatter");
  const lines = text.slice(4, end + 1).split("\n").slice(0, -1);
  const out: string[] = [];
  const moved: string[] = [];
  const kept: string[] = [];
  let inMetadata = false;
  let metadataAt = -1;
  for (const line of lines) {
    if (line === "metadata:") {
      inMetadata = true;
      metadataAt = out.length;
      continue;
    }
    if (inMetadata && line.startsWith("  ")) {
      const entry = /^ {2}([\w-]+): (.*)$/.exec(line);
      const spelling = DESIGN_FIELDS.find((candidate) => candidate.portableKey === entry?.[1]);
      if (!entry || !spelling) {
        kept.push(line);
        continue;
      }
      const value = entry[2] ?? "";
      if (!/^[\w -]+$/.test(value)) throw new Error(`unexpected value ${value}`);
      moved.push(spelling.list ? `${spelling.field}:\n${value.split(" ").map((name) => `  - ${name}`).join("\n")}` : `${spelling.field}: ${value}`);
      continue;
    }
    inMetadata = false;
    out.push(line);
  }
  if (metadataAt < 0 || moved.length === 0) throw new Error("no portable manifest to rewrite");
  out.splice(metadataAt, 0, ...moved, ...(kept.length > 0 ? ["metadata:", ...kept] : []));
  return `---\n${out.join("\n")}\n${text.slice(end + 1)}`;
}

/** Rewrites every skills/<name>/SKILL.md under `root` in place; returns how many changed. */
export function rewriteSkillsToTopLevel(root: string): number {
  let changed = 0;
  for (const name of readdirSync(join(root, "skills"))) {
    const path = join(root, "skills", name, "SKILL.md");
    const text = readFileSync(path, "utf8");
    const rewritten = toTopLevelSpelling(text);
    if (rewritten !== text) changed++;
    writeFileSync(path, rewritten);
  }
  return changed;
}
