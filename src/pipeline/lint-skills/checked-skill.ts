import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import { ruleRegistry } from "../../diagnostics/rules/index.js";
import type { SourceFile } from "../../stage-data.js";
import { packageVersion } from "../../version.js";
import { isMapping, parseSkillFile, type SkillFrontmatter } from "../parse/parse.js";
import type { SkillType } from "../../stage-data.js";
import type { Profile } from "../validate/lint-config.js";
import { skillFileDiagnostics } from "../validate/skill-file-rules.js";
import { extractChecklist } from "../parse/checklist.js";
import type { ChecklistStep } from "../../protocol/checklist.js";

/**
 * Everything that follows from one SKILL.md's bytes alone (parse plus the
 * per-file rules), so it can be cached by content hash. Findings that depend
 * on the file's folder or on other skills are made by the cross-file rules.
 */
export interface CheckedSkill {
  diagnostics: Diagnostic[];
  /** Undefined when the frontmatter could not be read as a mapping. */
  manifest: SkillFrontmatter | undefined;
  body: string;
  bodyStartLine: number;
  /** Range of the opening `---` line (or of line 1): where findings about the whole manifest point. */
  opening: Range;
  /** A workflow skill's checklist steps, from the same ordered lists the body rules judge. */
  checklist?: ChecklistStep[];
}

/**
 * Parses one SKILL.md and applies the per-file rules; a cache hit skips all
 * work. Never throws: a failure inside a dependency becomes a diagnostic on
 * this file, so the other skills are still checked.
 */
export async function checkSkillFile(source: SourceFile, cache?: SkillParseCache, profile: Profile = "gamma", checklist = true, defaultType?: SkillType): Promise<CheckedSkill> {
  // Findings depend on the profile: an entry made under one must not answer for the other.
  // Without a cache the key is never needed, and hashing is most of what reading a small file costs.
  const key = cache === undefined ? "" : `${source.contentHash}${profile === "gamma" ? "" : `:${profile}`}${defaultType === undefined ? "" : `:${defaultType}`}`;
  const cached = cache?.get(key);
  if (cached) return restamp(cached, source.path);
  let checked: CheckedSkill;
  try {
    const parsed = await parseSkillFile(source, defaultType);
    checked = {
      diagnostics: [...parsed.diagnostics, ...skillFileDiagnostics(parsed, profile)],
      manifest: parsed.manifest,
      body: parsed.body,
      bodyStartLine: parsed.bodyStartLine,
      opening: parsed.opening,
    };
    // A cached entry may serve a later build, which needs the checklist: only an uncached check may leave it out.
    const steps = (checklist || cache !== undefined) && parsed.manifest?.type === "workflow" && parsed.orderedLists ? extractChecklist(parsed.index, parsed.orderedLists, parsed.bodyStartLine) : undefined;
    if (steps) checked.checklist = steps;
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const start = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };
    const diagnostic = createDiagnostic("skill/parse-failure", source.path, start, `Unexpected failure while checking this file (${reason.split("\n")[0] ?? reason}), expected a file gamma-prompt can check`);
    return { diagnostics: [diagnostic], manifest: undefined, body: "", bodyStartLine: 1, opening: start };
  }
  cache?.set(key, checked);
  return checked;
}

function restamp(checked: CheckedSkill, path: string): CheckedSkill {
  if (checked.diagnostics.every((diagnostic) => diagnostic.file === path)) return checked;
  // A related place in the same file (the other spelling of a field) moves with it.
  const moved = (diagnostic: Diagnostic): Diagnostic => (diagnostic.related?.file === diagnostic.file ? { ...diagnostic, file: path, related: { ...diagnostic.related, file: path } } : { ...diagnostic, file: path });
  return { ...checked, diagnostics: checked.diagnostics.map(moved) };
}

/** 3: manifests read both spellings of the design's fields, and the portability rules joined the per-file findings. */
const CACHE_FORMAT = 3;

/**
 * Checked skill files keyed by the sha256 of a file's raw bytes. A build or
 * watch session keeps one across runs (and may persist it with
 * toJSON/fromJSON), so unchanged skills are never parsed twice. Entries made
 * by another gamma-prompt version are dropped on load: rules may have changed.
 * Each lint keeps only the entries it used ({@link dropUnused}): a session
 * that lives for a workday (watch, the language server, the MCP server)
 * holds one lint's worth, not every version of every file it ever checked.
 */
export class SkillParseCache {
  private readonly entries = new Map<string, CheckedSkill>();
  private readonly used = new Set<string>();

  get(contentHash: string): CheckedSkill | undefined {
    const checked = this.entries.get(contentHash);
    if (checked !== undefined) this.used.add(contentHash);
    return checked;
  }

  set(contentHash: string, checked: CheckedSkill): void {
    this.entries.set(contentHash, checked);
    this.used.add(contentHash);
  }

  /** Drops the entries no lookup or store touched since the last call (every lint checks every skill of its project). */
  dropUnused(): void {
    for (const hash of this.entries.keys()) if (!this.used.has(hash)) this.entries.delete(hash);
    this.used.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops entries whose hash is not in `keep`, e.g. after files were deleted. */
  retain(keep: ReadonlySet<string>): void {
    for (const hash of this.entries.keys()) if (!keep.has(hash)) this.entries.delete(hash);
  }

  toJSON(): { format: number; version: string; entries: Array<[string, CheckedSkill]> } {
    return { format: CACHE_FORMAT, version: packageVersion, entries: [...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
  }

  /** Rebuilds a cache from {@link toJSON} output; anything malformed or from another version gives an empty cache. */
  static fromJSON(json: unknown): SkillParseCache {
    const cache = new SkillParseCache();
    if (!isMapping(json) || json["format"] !== CACHE_FORMAT || json["version"] !== packageVersion || !Array.isArray(json["entries"])) return cache;
    for (const entry of json["entries"] as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isCheckedSkill(entry[1])) continue;
      cache.set(entry[0], entry[1]);
    }
    return cache;
  }
}

function isCheckedSkill(value: unknown): value is CheckedSkill {
  if (!isMapping(value)) return false;
  const diagnostics = value["diagnostics"];
  return (
    Array.isArray(diagnostics) &&
    diagnostics.every((diagnostic: unknown) => isMapping(diagnostic) && typeof diagnostic["ruleId"] === "string" && Object.prototype.hasOwnProperty.call(ruleRegistry, diagnostic["ruleId"])) &&
    typeof value["body"] === "string" &&
    typeof value["bodyStartLine"] === "number" &&
    isMapping(value["opening"])
  );
}
