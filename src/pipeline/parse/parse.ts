import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SkillType, SourceFile } from "../../stage-data.js";
import { findOrderedLists, tooDeepLine, type OrderedListShape } from "./body.js";
import { findStepHeadings } from "./step-headings.js";
import { splitFrontmatter, type FrontmatterSplit } from "./frontmatter.js";
import { LineIndex } from "./positions.js";
import { parseYamlTree, type YamlTree } from "./yaml-tree.js";
import { readManifestSpellings, type DesignField, type ManifestSpellings } from "./design-fields.js";

/** A name in `requiresSkills` or `conflictsWith`, with where it is written. */
export interface SkillReference {
  name: string;
  range: Range;
}

/** The manifest fields the cross-file rules need, each with its source range. */
export interface SkillFrontmatter {
  name?: string;
  nameRange?: Range;
  type?: SkillType;
  description?: string;
  requiresSkills: SkillReference[];
  conflictsWith: SkillReference[];
  /** `disable-model-invocation: true`: the model is not offered the skill. */
  disableModelInvocation?: true;
  /** `toolNamespaces`: the tool namespaces a workflow skill loads when it becomes active. */
  toolNamespaces: SkillReference[];
  /** The design fields read from their portable spelling under metadata (`gamma-type`, …); absent when none. */
  portableFields?: DesignField[];
}

/**
 * One SKILL.md taken apart: frontmatter split, YAML tree, manifest fields and
 * the body's shape. Only syntax problems are diagnostics here; what the parts
 * must satisfy is checked by validate/skill-file-rules.ts.
 */
export interface ParsedSkillFile {
  source: SourceFile;
  index: LineIndex;
  /** Syntax problems: no frontmatter, unclosed frontmatter, YAML that cannot be read. */
  diagnostics: Diagnostic[];
  /** Absent when the frontmatter could not be found. */
  split?: FrontmatterSplit;
  /** Absent when the frontmatter is not valid YAML. */
  tree?: YamlTree;
  /** Absent when the frontmatter is not a mapping. */
  manifest?: SkillFrontmatter;
  /**
   * Where the design's fields are written (top level, under metadata, or
   * both), and the frontmatter as the manifest reads it (`view`: the
   * metadata spelling put where the top-level keys would be, so the schema
   * and every rule read one shape). Absent when the frontmatter is not a mapping.
   */
  spellings?: ManifestSpellings;
  body: string;
  bodyStartLine: number;
  /** Range of the opening `---` line (or of line 1): where findings about the whole manifest point. */
  opening: Range;
  /** 1-based line (within `body`) of the first line nested too deep to be parsed, if any. */
  tooDeepLine?: number;
  /**
   * The type rests only on a plain `type` under metadata (no `type`, no `gamma-type`): a key collections also
   * use for categories of their own, so under the agentskills profile a finding that rests on it is a warning.
   */
  typeFromPlainMetadata?: true;
  /** The body's checklists (ordered lists and numbered step headings); only looked for when the skill type is known and the body is not too deep. */
  orderedLists?: OrderedListShape[];
}

/** Parses one SKILL.md. May throw on input that breaks a dependency; the lint-skills stage turns that into a finding. */
/**
 * `defaultType` is the project's type for a skill that names none (the
 * config's `skillTypes`); the file's own `type`, then `metadata.type`, win.
 */
export async function parseSkillFile(source: SourceFile, defaultType?: SkillType): Promise<ParsedSkillFile> {
  const index = new LineIndex(source.text);
  const diagnostics: Diagnostic[] = [];
  const split = splitFrontmatter(index);
  if ("ruleId" in split) {
    diagnostics.push(createDiagnostic(split.ruleId, source.path, split.range, split.message));
    return { source, index, diagnostics, body: "", bodyStartLine: 1, opening: index.lineRange(1) };
  }
  const parsed: ParsedSkillFile = { source, index, diagnostics, split, body: split.body, bodyStartLine: split.bodyStartLine, opening: split.opening };
  const tree = parseYamlTree(source.text.slice(split.yamlStart, split.yamlEnd), split.yamlStart, index);
  if (Array.isArray(tree)) {
    for (const problem of tree) diagnostics.push(createDiagnostic(problem.ruleId, source.path, problem.range, problem.message));
    return parsed;
  }
  parsed.tree = tree;
  if (!isMapping(tree.value)) return parsed;
  const spellings = readManifestSpellings(tree, index);
  parsed.spellings = spellings;
  const manifest = extractManifest(spellings.view, tree.value, defaultType);
  if (spellings.portableFields.length > 0) manifest.portableFields = spellings.portableFields;
  parsed.manifest = manifest;
  const metadata = tree.value["metadata"];
  if (manifest.type !== undefined && !Object.prototype.hasOwnProperty.call(spellings.view.value, "type") && isMapping(metadata) && metadata["type"] === manifest.type && defaultType !== manifest.type) parsed.typeFromPlainMetadata = true;
  const deepLine = tooDeepLine(split.body);
  if (deepLine !== undefined) parsed.tooDeepLine = deepLine;
  else if (manifest.type) {
    // A checklist is an ordered list or numbered step headings (## Step 1: …); both have the same shape.
    const lines = split.body.split("\n");
    const lists = [...(await findOrderedLists(source.text, split.body, split.bodyStartLine, lines)), ...findStepHeadings(split.body, split.bodyStartLine, lines)];
    parsed.orderedLists = lists.sort((a, b) => a.line - b.line);
  }
  return parsed;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `tree` is the manifest's view of the frontmatter (both spellings read as one); `raw` the frontmatter as written. */
function extractManifest(tree: YamlTree, raw: Record<string, unknown>, defaultType: SkillType | undefined): SkillFrontmatter {
  const value = tree.value as Record<string, unknown>;
  const manifest: SkillFrontmatter = {
    requiresSkills: references(tree, value, "requiresSkills"),
    conflictsWith: references(tree, value, "conflictsWith"),
    toolNamespaces: references(tree, value, "toolNamespaces"),
  };
  const name = value["name"];
  const nameRange = tree.valueRanges.get("/name");
  if (typeof name === "string") manifest.name = name;
  if (nameRange) manifest.nameRange = nameRange;
  // The skill's own field decides when present, in either spelling (an invalid value is reported, never replaced);
  // a plain `metadata.type` that says workflow or reference is read next (any other value is a category of the
  // collection's own, which names no type); the project's default comes last.
  const metadata = raw["metadata"];
  const type = Object.prototype.hasOwnProperty.call(value, "type") ? value["type"] : isMapping(metadata) && isSkillType(metadata["type"]) ? metadata["type"] : defaultType;
  if (type === "workflow" || type === "reference") manifest.type = type;
  const description = value["description"];
  if (typeof description === "string") manifest.description = description;
  if (value["disable-model-invocation"] === true) manifest.disableModelInvocation = true;
  return manifest;
}

function isSkillType(value: unknown): value is SkillType {
  return value === "workflow" || value === "reference";
}

function references(tree: YamlTree, value: Record<string, unknown>, key: "requiresSkills" | "conflictsWith" | "toolNamespaces"): SkillReference[] {
  const list = value[key];
  if (!Array.isArray(list)) return [];
  const result: SkillReference[] = [];
  list.forEach((item: unknown, position) => {
    const range = tree.valueRanges.get(`/${key}/${position}`);
    if (typeof item === "string" && range) result.push({ name: item, range });
  });
  return result;
}
