import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { ruleRegistry } from "../../diagnostics/rules/index.js";
import type { SkillType, SourceFile } from "../../model.js";
import { packageVersion } from "../../version.js";
import { findOrderedLists, MAX_INDENT, MAX_NESTING, tooDeepLine } from "./body.js";
import { bodyProblems } from "../validate/body-rules.js";
import { splitFrontmatter } from "./frontmatter.js";
import { schemaProblems } from "../validate/manifest-schema.js";
import { LineIndex } from "./positions.js";
import { parseYamlTree, type YamlTree } from "./yaml-tree.js";

/** A name in `requiresSkills` or `conflictsWith`, with where it is written. */
export interface SkillReference {
  name: string;
  range: Range;
}

/** The manifest fields the cross-file rules need, each with its source range. */
export interface SkillManifestData {
  name?: string;
  nameRange?: Range;
  type?: SkillType;
  description?: string;
  requiresSkills: SkillReference[];
  conflictsWith: SkillReference[];
}

/**
 * Everything that follows from one file's bytes alone, so it can be cached by
 * content hash. Findings that depend on the file's folder or on other skills
 * are made later, by validate.
 */
export interface ParsedSkill {
  diagnostics: Diagnostic[];
  /** Undefined when the frontmatter could not be read as a mapping. */
  manifest: SkillManifestData | undefined;
  body: string;
  bodyStartLine: number;
  /** Range of the opening `---` line (or of line 1): where findings about the whole manifest point. */
  opening: Range;
}

/**
 * Parses and checks one SKILL.md; a cache hit skips all work. Never throws:
 * a failure inside a dependency becomes a diagnostic on this file, so the
 * other skills are still checked.
 */
export async function parseSkill(source: SourceFile, cache?: SkillParseCache): Promise<ParsedSkill> {
  const cached = cache?.get(source.contentHash);
  if (cached) return restamp(cached, source.path);
  let parsed: ParsedSkill;
  try {
    parsed = await parseUncached(source);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const start = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };
    const diagnostic = createDiagnostic("skill/parse-failure", source.path, start, `Unexpected failure while checking this file (${reason.split("\n")[0] ?? reason}), expected a file gamma-prompt can check`);
    return { diagnostics: [diagnostic], manifest: undefined, body: "", bodyStartLine: 1, opening: start };
  }
  cache?.set(source.contentHash, parsed);
  return parsed;
}

async function parseUncached(source: SourceFile): Promise<ParsedSkill> {
  const index = new LineIndex(source.text);
  const diagnostics: Diagnostic[] = [];
  const report = (ruleId: RuleId, range: Range, message: string): void => {
    diagnostics.push(createDiagnostic(ruleId, source.path, range, message));
  };
  const split = splitFrontmatter(index);
  if ("ruleId" in split) {
    report(split.ruleId, split.range, split.message);
    return { diagnostics, manifest: undefined, body: "", bodyStartLine: 1, opening: index.lineRange(1) };
  }
  const parsed: ParsedSkill = { diagnostics, manifest: undefined, body: split.body, bodyStartLine: split.bodyStartLine, opening: split.opening };
  const tree = parseYamlTree(source.text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, index);
  if (Array.isArray(tree)) {
    for (const problem of tree) report(problem.ruleId, problem.range, problem.message);
    return parsed;
  }
  if (!isMapping(tree.value)) {
    const what = tree.value === null ? "empty frontmatter" : `YAML ${Array.isArray(tree.value) ? "list" : "scalar"} as frontmatter`;
    report("skill/frontmatter-not-mapping", tree.valueRanges.get("") ?? split.opening, `Unexpected ${what}, expected a mapping with name, type and description`);
    return parsed;
  }
  for (const problem of schemaProblems(tree, split.opening, index)) report(problem.ruleId, problem.range, problem.message);
  const manifest = extractManifest(tree, tree.value);
  parsed.manifest = manifest;
  if (manifest.description !== undefined && manifest.description.trim() !== "" && !statesTrigger(manifest.description)) {
    report(
      "skill/description-trigger",
      tree.valueRanges.get("/description") ?? split.opening,
      `Unexpected description without a trigger, expected the matching task in direct terms ("TRIGGER when …", "Use when …", "Use BEFORE …", "Use for …")`,
    );
  }
  const deepLine = tooDeepLine(split.body);
  if (deepLine !== undefined) {
    const line = split.bodyStartLine + deepLine - 1;
    report("skill/body-too-deep", index.lineRange(line), `Unexpected nesting deeper than ${MAX_NESTING} lists or block quotes (or ${MAX_INDENT} spaces), expected a flatter body`);
  } else if (manifest.type) {
    const lists = await findOrderedLists(source.text, split.body, split.bodyStartLine);
    for (const problem of bodyProblems(manifest.type, lists, index, split)) report(problem.ruleId, problem.range, problem.message);
  }
  return parsed;
}

const TRIGGER_FORM = /(?<![\p{L}\p{N}])(?:trigger(?:s|ed)?|use(?:\s+this(?:\s+skill)?)?)\s+(?:only\s+)?(?:when|whenever|before|after|for|if|on)(?![\p{L}\p{N}])/iu;

/** The design's description forms: "TRIGGER when/for …", "Use when …", "Use BEFORE …", "Use for …". */
export function statesTrigger(description: string): boolean {
  return TRIGGER_FORM.test(description);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function extractManifest(tree: YamlTree, value: Record<string, unknown>): SkillManifestData {
  const manifest: SkillManifestData = { requiresSkills: references(tree, value, "requiresSkills"), conflictsWith: references(tree, value, "conflictsWith") };
  const name = value["name"];
  const nameRange = tree.valueRanges.get("/name");
  if (typeof name === "string") manifest.name = name;
  if (nameRange) manifest.nameRange = nameRange;
  const type = value["type"];
  if (type === "workflow" || type === "reference") manifest.type = type;
  const description = value["description"];
  if (typeof description === "string") manifest.description = description;
  return manifest;
}

function references(tree: YamlTree, value: Record<string, unknown>, key: "requiresSkills" | "conflictsWith"): SkillReference[] {
  const list = value[key];
  if (!Array.isArray(list)) return [];
  const result: SkillReference[] = [];
  list.forEach((item: unknown, position) => {
    const range = tree.valueRanges.get(`/${key}/${position}`);
    if (typeof item === "string" && range) result.push({ name: item, range });
  });
  return result;
}

function restamp(parsed: ParsedSkill, path: string): ParsedSkill {
  if (parsed.diagnostics.every((diagnostic) => diagnostic.file === path)) return parsed;
  return { ...parsed, diagnostics: parsed.diagnostics.map((diagnostic) => ({ ...diagnostic, file: path })) };
}

const CACHE_FORMAT = 1;

/**
 * Parse results keyed by the sha256 of a file's raw bytes. A build or watch
 * session keeps one across runs (and may persist it with toJSON/fromJSON),
 * so unchanged skills are never parsed twice. Entries made by another
 * gamma-prompt version are dropped on load: rules may have changed.
 */
export class SkillParseCache {
  private readonly entries = new Map<string, ParsedSkill>();

  get(contentHash: string): ParsedSkill | undefined {
    return this.entries.get(contentHash);
  }

  set(contentHash: string, parsed: ParsedSkill): void {
    this.entries.set(contentHash, parsed);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops entries whose hash is not in `keep`, e.g. after files were deleted. */
  retain(keep: ReadonlySet<string>): void {
    for (const hash of this.entries.keys()) if (!keep.has(hash)) this.entries.delete(hash);
  }

  toJSON(): { format: number; version: string; entries: Array<[string, ParsedSkill]> } {
    return { format: CACHE_FORMAT, version: packageVersion, entries: [...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
  }

  /** Rebuilds a cache from {@link toJSON} output; anything malformed or from another version gives an empty cache. */
  static fromJSON(json: unknown): SkillParseCache {
    const cache = new SkillParseCache();
    if (!isMapping(json) || json["format"] !== CACHE_FORMAT || json["version"] !== packageVersion || !Array.isArray(json["entries"])) return cache;
    for (const entry of json["entries"] as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isParsedSkill(entry[1])) continue;
      cache.set(entry[0], entry[1]);
    }
    return cache;
  }
}

function isParsedSkill(value: unknown): value is ParsedSkill {
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
