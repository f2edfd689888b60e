import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import { ruleRegistry, type RuleId } from "../../diagnostics/rules/index.js";
import type { Severity } from "../../diagnostics/rules/rule.js";
import { MAX_NESTING } from "../parse/body.js";
import { quoted } from "../../diagnostics/quote.js";
import { isMapping, type ParsedSkillFile } from "../parse/parse.js";
import { bodyProblems } from "./body-rules.js";
import { schemaProblems } from "./frontmatter-schema.js";
import type { Profile } from "./lint-config.js";
import { contentProblems, reservedCloserProblems } from "./content-rules.js";
import { manifestSpellingProblems, unknownPortableKeys } from "./portable-manifest.js";
import { allowedToolsOf, portableYamlProblems } from "./portable-yaml.js";

/**
 * The rules one SKILL.md must satisfy on its own under a profile: a
 * frontmatter mapping that matches the manifest schema (and, under gamma,
 * has a type), a description that states its trigger, an allowed-tools
 * string, a body of a readable length and of the shape its type promises,
 * the design's fields in one spelling, and (where the file is meant to be
 * portable) frontmatter the Agent Skills reference validator can read. Rules
 * that need the folder name or other skills are in skill-set-rules.ts.
 */
export function skillFileDiagnostics(parsed: ParsedSkillFile, profile: Profile = "gamma"): Diagnostic[] {
  const { split, tree, manifest, index, source } = parsed;
  if (!split || !tree) return [];
  const diagnostics: Diagnostic[] = [];
  const report = (ruleId: RuleId, range: Range, message: string, related?: { range: Range; message: string }, severity?: Severity): void => {
    const diagnostic = createDiagnostic(ruleId, source.path, range, message, related ? { file: source.path, ...related } : undefined);
    diagnostics.push(severity === undefined ? diagnostic : { ...diagnostic, severity });
  };
  if (!isMapping(tree.value)) {
    const what = tree.value === null ? "empty frontmatter" : `YAML ${Array.isArray(tree.value) ? "list" : "scalar"} as frontmatter`;
    report("skill/frontmatter-not-mapping", tree.valueRanges.get("") ?? split.opening, `Unexpected ${what}, expected a mapping with name, type and description`);
    return diagnostics;
  }
  const spellings = parsed.spellings;
  const view = spellings?.view ?? tree;
  for (const problem of schemaProblems(view, split.opening, index, spellings?.portableFields, profile)) {
    // The catalog Gamma renders is XML; the Agent Skills specification itself allows < and >.
    if (profile === "agentskills" && problem.ruleId === "skill/description-angle-bracket") continue;
    report(problem.ruleId, problem.range, problem.message, undefined, problem.severity);
  }
  // The published schema requires what the specification requires; the gamma profile also needs the contract.
  // A type from metadata or from the config's skillTypes counts: the file need not be edited.
  if (profile === "gamma" && !Object.prototype.hasOwnProperty.call(view.value, "type") && manifest?.type === undefined) {
    // A metadata.type of the collection's own (a category) names no contract: say so, or the user looks for the type key they wrote.
    const metadata = tree.value["metadata"];
    const own = isMapping(metadata) ? metadata["type"] : undefined;
    const category = own === undefined ? "" : `; "type" under metadata${typeof own === "string" ? ` (${quoted(own)})` : ""} is read only when it says "workflow" or "reference"`;
    report("skill/missing-key", split.opening, `Unexpected frontmatter without "type", expected "workflow" or "reference" (or "gamma-type" under metadata, or the folder's type in "skillTypes" of gamma-prompt.config.json, which gamma-prompt init writes for an existing collection)${category}`);
  }
  // Portability is judged for every file under agentskills, and under gamma for a file that writes its manifest
  // under metadata: such a file is meant to be read by other Agent Skills tools too.
  const portable = profile === "agentskills" || (spellings?.written.some((field) => field.portable !== undefined) ?? false);
  if (spellings) for (const problem of manifestSpellingProblems(spellings, profile === "agentskills")) report(problem.ruleId, problem.range, problem.message, problem.related);
  for (const problem of unknownPortableKeys(tree)) report(problem.ruleId, problem.range, problem.message);
  if (portable) for (const problem of portableYamlProblems(split, index, source.byteOrderMark === true, allowedToolsOf(parsed), tree.margin)) report("skill/yaml-portable", problem.range, problem.message);
  for (const problem of contentProblems(tree, split, index)) report(problem.ruleId, problem.range, problem.message);
  for (const problem of reservedCloserProblems(split, index)) report(problem.ruleId, problem.range, problem.message);
  if (parsed.tooDeepLine !== undefined) {
    const line = split.bodyStartLine + parsed.tooDeepLine - 1;
    report("skill/body-too-deep", index.lineRange(line), `Unexpected nesting deeper than ${MAX_NESTING} lists or block quotes, expected a flatter body`);
  } else if (manifest?.type && parsed.orderedLists) {
    for (const problem of bodyProblems(manifest.type, parsed.orderedLists, index, split)) {
      // Under agentskills a plain metadata.type may be the collection's own category: an error resting on it alone is a warning.
      if (profile === "agentskills" && parsed.typeFromPlainMetadata === true && ruleRegistry[problem.ruleId].severity === "error") {
        const diagnostic = createDiagnostic(problem.ruleId, source.path, problem.range, `${problem.message}; a warning, since the type is read from "type" under metadata, a key collections also use for their own categories (write "gamma-type: ${manifest.type}" under metadata to hold the skill to it)`);
        diagnostics.push({ ...diagnostic, severity: "warning" });
      } else report(problem.ruleId, problem.range, problem.message);
    }
  }
  return diagnostics;
}

export { lacksTrigger, statesTrigger } from "../../protocol/description-trigger.js";
