import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { requirementClosure } from "../../protocol/skill-graph.js";
import type { SourceFile, ValidSkill } from "../../stage-data.js";
import { parseYamlSource, rangeAt } from "../parse/positioned-source.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import { buildSchemaValidator } from "./schemas.js";
import { didYouMean } from "../../protocol/suggest.js";

export { VARIANTS_FILE } from "../discover/source-paths.js";

export interface ResolvedVariant {
  name: string;
  /** Preloaded skills in prompt order: workflow skills as declared, then the reference skills, sorted. */
  skills: ValidSkill[];
  /** Tool namespaces loaded at session start, sorted by name (the rest load on demand). */
  namespaces: string[];
  /** Skills every request in the variant requires before any task action (`require`; invocation enforcement). */
  required: string[];
}

/**
 * Reads the variant declarations and expands each preload list with the
 * skills its members require (transitively). A variant may not hold two
 * skills that conflict: the prompt would contradict itself, or a required
 * skill could never become active.
 */
export function resolveVariants(
  source: SourceFile,
  skills: readonly ValidSkill[],
  failedSkills: ReadonlySet<string>,
  /** The project's tool namespaces: valid ones, and the folders that failed (named differently in the message). */
  namespaces: { valid: ReadonlySet<string>; failed: ReadonlySet<string> } = { valid: new Set(), failed: new Set() },
): { variants: ResolvedVariant[]; diagnostics: Diagnostic[] } {
  const located = parseYamlSource(source);
  if (!("document" in located)) return { variants: [], diagnostics: [located] };
  const validate = buildSchemaValidator("variants");
  if (!validate(located.value)) {
    return { variants: [], diagnostics: schemaDiagnostics("variant/invalid", located, validate.errors, "the variants file", "variants") };
  }
  const declared = (located.value as { variants: Record<string, { preload: string[]; require?: string[]; namespaces?: string[] }> }).variants;
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  // Only valid skills are preloaded: a requirement that failed lint is left out here (lint reports it).
  const requires = new Map(skills.map((skill) => [skill.name, skill.requiresSkills.filter((required) => byName.has(required))]));
  const diagnostics: Diagnostic[] = [];
  const variants: ResolvedVariant[] = [];
  const validNames = [...byName.keys()].sort();
  const validNamespaces = [...namespaces.valid].sort();
  for (const name of Object.keys(declared).sort()) {
    const preload = declared[name]?.preload ?? [];
    const required = declared[name]?.require ?? [];
    let known = true;
    const checkKnown = (key: "preload" | "require") => (skillName: string, index: number) => {
      if (byName.has(skillName)) return;
      known = false;
      const failed = failedSkills.has(skillName);
      const why = failed ? "it has lint errors" : "no skill has that name";
      // A near miss is offered among the valid skills only: a skill with lint errors would be refused here too.
      const hint = failed ? "" : didYouMean(skillName, validNames);
      diagnostics.push(createDiagnostic("variant/unknown-skill", source.path, rangeAt(located, ["variants", name, key, index]), `Unexpected skill \`${skillName}\` in variant \`${name}\` (${why}), expected the name of a valid skill${hint}`));
    };
    preload.forEach(checkKnown("preload"));
    required.forEach(checkKnown("require"));
    const atStart = declared[name]?.namespaces ?? [];
    atStart.forEach((namespace, index) => {
      if (namespaces.valid.has(namespace)) return;
      known = false;
      const failed = namespaces.failed.has(namespace);
      const message = failed
        ? `Unexpected namespace \`${namespace}\` in variant \`${name}\` (it has errors, in schemas/namespaces/${namespace}/), expected the name of a valid namespace`
        : `Unexpected namespace \`${namespace}\` in variant \`${name}\` (no namespace has that name), expected the name of a namespace in schemas/namespaces/${didYouMean(namespace, validNamespaces)}`;
      diagnostics.push(createDiagnostic("variant/unknown-namespace", source.path, rangeAt(located, ["variants", name, "namespaces", index]), message));
    });
    // An unknown name is reported above; the rest are still checked with the known ones, so one fix does not uncover the next finding.
    const knownPreload = preload.filter((skillName) => byName.has(skillName));
    const knownRequired = required.filter((skillName) => byName.has(skillName));
    const closure = new Set(requirementClosure(requires, knownPreload));
    const conflict = findConflict(closure, byName);
    if (conflict) {
      diagnostics.push(createDiagnostic("variant/conflicting-skills", source.path, rangeAt(located, ["variants", name, "preload"]), `Unexpected conflicting skills \`${conflict[0]}\` and \`${conflict[1]}\` in variant \`${name}\`, expected preloaded skills (with their requirements) that do not conflict`));
      continue;
    }
    // A required skill must be able to become active beside the preloaded ones, or every task action waits for it in vain.
    const withRequired = findConflict(new Set(requirementClosure(requires, [...knownPreload, ...knownRequired])), byName);
    if (withRequired) {
      diagnostics.push(createDiagnostic("variant/conflicting-skills", source.path, rangeAt(located, ["variants", name, "require"]), `Unexpected conflicting skills \`${withRequired[0]}\` and \`${withRequired[1]}\` in variant \`${name}\`, expected required skills (with their requirements) that do not conflict with each other or with the preloaded ones`));
      continue;
    }
    if (!known) continue;
    variants.push({ name, skills: orderPreloaded(preload, closure, byName), namespaces: [...atStart].sort(), required: [...required] });
  }
  return { variants, diagnostics };
}

/** Conflicts count when either side declares them, so one-sided declarations still protect a variant. */
function findConflict(closure: ReadonlySet<string>, byName: ReadonlyMap<string, ValidSkill>): [string, string] | undefined {
  const names = [...closure].sort();
  for (const name of names) {
    for (const other of byName.get(name)?.conflictsWith ?? []) {
      if (closure.has(other)) return name < other ? [name, other] : [other, name];
    }
  }
  return undefined;
}

function orderPreloaded(preload: readonly string[], closure: ReadonlySet<string>, byName: ReadonlyMap<string, ValidSkill>): ValidSkill[] {
  const declaredWorkflows = preload.filter((name) => byName.get(name)?.type === "workflow");
  const declared = new Set(declaredWorkflows);
  const rest = [...closure].filter((name) => !declared.has(name));
  const requiredWorkflows = rest.filter((name) => byName.get(name)?.type === "workflow").sort();
  const references = rest.filter((name) => byName.get(name)?.type !== "workflow").sort();
  return [...declaredWorkflows, ...requiredWorkflows, ...references].map((name) => byName.get(name) as ValidSkill);
}
