import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { MAX_INDENT, MAX_NESTING } from "../parse/body.js";
import { isMapping, type ParsedSkillFile } from "../parse/parse.js";
import { bodyProblems } from "./body-rules.js";
import { schemaProblems } from "./frontmatter-schema.js";

/**
 * The rules one SKILL.md must satisfy on its own: a frontmatter mapping that
 * matches the manifest schema, a description that states its trigger, and a
 * body of the shape its type promises. Rules that need the folder name or
 * other skills are in skill-set-rules.ts.
 */
export function skillFileDiagnostics(parsed: ParsedSkillFile): Diagnostic[] {
  const { split, tree, manifest, index, source } = parsed;
  if (!split || !tree) return [];
  const diagnostics: Diagnostic[] = [];
  const report = (ruleId: RuleId, range: Range, message: string): void => {
    diagnostics.push(createDiagnostic(ruleId, source.path, range, message));
  };
  if (!isMapping(tree.value)) {
    const what = tree.value === null ? "empty frontmatter" : `YAML ${Array.isArray(tree.value) ? "list" : "scalar"} as frontmatter`;
    report("skill/frontmatter-not-mapping", tree.valueRanges.get("") ?? split.opening, `Unexpected ${what}, expected a mapping with name, type and description`);
    return diagnostics;
  }
  for (const problem of schemaProblems(tree, split.opening, index)) report(problem.ruleId, problem.range, problem.message);
  if (manifest?.description !== undefined && manifest.description.trim() !== "" && !statesTrigger(manifest.description)) {
    report(
      "skill/description-trigger",
      tree.valueRanges.get("/description") ?? split.opening,
      `Unexpected description without a trigger, expected the matching task in direct terms ("TRIGGER when …", "Use when …", "Use BEFORE …", "Use for …")`,
    );
  }
  if (parsed.tooDeepLine !== undefined) {
    const line = split.bodyStartLine + parsed.tooDeepLine - 1;
    report("skill/body-too-deep", index.lineRange(line), `Unexpected nesting deeper than ${MAX_NESTING} lists or block quotes (or ${MAX_INDENT} spaces), expected a flatter body`);
  } else if (manifest?.type && parsed.orderedLists) {
    for (const problem of bodyProblems(manifest.type, parsed.orderedLists, index, split)) report(problem.ruleId, problem.range, problem.message);
  }
  return diagnostics;
}

const TRIGGER_FORM = /(?<![\p{L}\p{N}])(?:trigger(?:s|ed)?|use(?:\s+this(?:\s+skill)?)?)\s+(?:only\s+)?(?:when|whenever|before|after|for|if|on)(?![\p{L}\p{N}])/iu;

/** The design's description forms: "TRIGGER when/for …", "Use when …", "Use BEFORE …", "Use for …". */
export function statesTrigger(description: string): boolean {
  return TRIGGER_FORM.test(description);
}
