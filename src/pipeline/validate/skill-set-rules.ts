import { createDiagnostic, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import { closureConflicts, compareNames, findCycles, requirementPaths, symmetricConflicts, type ClosureConflicts } from "../../protocol/skill-graph.js";
import type { SkillFrontmatter, SkillReference } from "../parse/parse.js";
import { quoted } from "../../diagnostics/quote.js";
import { didYouMean } from "../../protocol/suggest.js";
import { fieldLabel, portableLabel } from "../parse/design-fields.js";

/** One skill file's manifest and the folder it sits in. */
export interface SkillRecord {
  /** Root-relative path of SKILL.md. */
  path: string;
  /** Name of the folder holding SKILL.md. */
  folder: string;
  /** Undefined when the frontmatter could not be read as a mapping. */
  manifest: SkillFrontmatter | undefined;
  /** Range of the opening `---` line: where findings about the whole manifest point. */
  opening: Range;
  /**
   * Root-relative folder of the plugin holding the skill (the nearest folder
   * above it with `.claude-plugin/plugin.json`, or a marketplace's plugin
   * folder), if any: a host names a plugin's skills `plugin:skill`, so names
   * only clash within one plugin.
   */
  plugin?: string;
}

/**
 * The rules that need more than one file's bytes: the folder name, unique
 * names, cross-references, requirement cycles and conflicts. Records must be
 * sorted by path; the findings come out in a stable order. `unreadFolders`
 * are the folders whose SKILL.md could not be read at all (its own finding
 * says why): their skills are known by the folder's name too.
 *
 * `namesByPlugin`: names need only be unique within a plugin, as in a plain
 * collection whose hosts name a plugin's skills `plugin:skill`. An agent
 * (the default) addresses a skill by its name alone (the skill tool,
 * dist/skills/<name>.md, the manifest), so there two plugins' skills of one
 * name clash as well.
 */
export function skillSetDiagnostics(records: readonly SkillRecord[], unreadFolders: readonly string[] = [], namesByPlugin = false): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const owners = new Map<string, SkillRecord>();
  const inPlugin = new Map<string, SkillRecord>();
  for (const record of records) {
    const manifest = record.manifest;
    const name = manifest?.name;
    if (name === undefined || !manifest?.nameRange) continue;
    if (name !== record.folder) {
      // "Émile" and "Émile" can differ only in how the accent is encoded (one code point, or a letter and a combining mark).
      const encoding = name.normalize("NFC") === record.folder.normalize("NFC") ? ` (the same letters, encoded differently: the name is ${normalForm(name)}, the folder ${normalForm(record.folder)})` : "";
      diagnostics.push(createDiagnostic("skill/name-mismatch", record.path, manifest.nameRange, `Unexpected name ${quoted(name)}, expected "${record.folder}", the name of the skill's folder${encoding}`));
    }
    const scoped = namesByPlugin ? `${record.plugin ?? ""}\u0000${name}` : name;
    const owner = inPlugin.get(scoped);
    if (owner) {
      const first = owner.manifest?.nameRange ? { file: owner.path, range: owner.manifest.nameRange, message: `first skill named ${quoted(name)}` } : undefined;
      diagnostics.push(createDiagnostic("skill/name-duplicate", record.path, manifest.nameRange, duplicateMessage(name, record, owner), first));
      continue;
    }
    inPlugin.set(scoped, record);
    if (!owners.has(name)) owners.set(name, record);
  }
  // A skill that failed to parse, or whose file could not be read, is still known by its folder, so its dependants do not cascade into "unknown" errors.
  const known = new Set<string>(owners.keys());
  for (const record of records) if (record.manifest?.name === undefined) known.add(record.folder);
  for (const folder of unreadFolders) known.add(folder);
  const hints = referenceHints(records, unreadFolders);

  const requires = new Map<string, string[]>();
  const declaredConflicts = new Map<string, string[]>();
  for (const [name, record] of owners) {
    const manifest = record.manifest;
    if (!manifest) continue;
    requires.set(name, checkReferences(record, name, "requiresSkills", manifest.requiresSkills, known, hints, diagnostics));
    declaredConflicts.set(name, checkReferences(record, name, "conflictsWith", manifest.conflictsWith, known, hints, diagnostics));
  }
  const conflicts = symmetricConflicts(declaredConflicts);

  for (const cycle of findCycles(requires)) {
    const [start, next] = cycle as [string, string];
    const reference = referenceTo(owners.get(start), "requiresSkills", next);
    if (!reference) continue;
    const chain = [...cycle, start].join(" → ");
    diagnostics.push(createDiagnostic("skill/requires-cycle", reference.path, reference.range, `Unexpected requirement cycle ${chain}, expected requirements that end without returning to a skill`));
  }

  const inClosures = closureConflicts({ requires, conflicts });
  for (const [name, record] of owners) {
    for (const other of declaredConflicts.get(name) ?? []) {
      if (declaredConflicts.get(other)?.includes(name) || !owners.has(other)) continue;
      // The other skill lists this one by its folder, which the name does not match: skill/name-mismatch asks for
      // the folder's name, and listing the name instead would only move the mismatch.
      if (record.folder !== name && owners.get(other)?.manifest?.conflictsWith.some((reference) => reference.name === record.folder)) continue;
      const reference = referenceTo(record, "conflictsWith", other);
      if (reference) {
        diagnostics.push(
          createDiagnostic("skill/conflict-one-sided", reference.path, reference.range, `Unexpected one-sided conflict with "${other}", expected "${other}" to list "${name}" in ${conflictsLabel(owners.get(other)?.manifest)} too`),
        );
      }
    }
    const found = inClosures.get(name);
    if (found) reportClosureConflicts(name, record, requires, found, diagnostics);
  }
  return diagnostics;
}

/**
 * Two skills of one plugin (or of a project without plugins) say only where they clash. Two plugins' skills clash
 * only in an agent, which addresses a skill by its name alone: the message names the other file and why.
 */
export function duplicateMessage(name: string, record: SkillRecord, owner: SkillRecord): string {
  if (record.plugin === owner.plugin) {
    const where = record.plugin === undefined ? "" : record.plugin === "" ? " in the plugin at the project's root" : ` in the plugin ${record.plugin}/`;
    return `Unexpected second skill named "${name}"${where}, expected unique names`;
  }
  return `Unexpected second skill named ${quoted(name)} (${owner.path} has it too, ${pluginLabel(owner.plugin)}), expected unique names: an agent loads a skill by its name alone, whatever plugin holds it`;
}

function pluginLabel(plugin: string | undefined): string {
  return plugin === undefined ? "outside any plugin" : plugin === "" ? "in the plugin at the project's root" : `in the plugin ${plugin}/`;
}

/**
 * Everything {@link skillSetDiagnostics} reads of one record, as a string: records with the same keys give the
 * same findings. A watch rebuild compares keys to reuse the last findings when a save changed no skill's name,
 * references, plugin or their positions (a description or body edit, the usual save). Any field the rules
 * above start to read must be added here.
 */
export function skillSetKey(record: SkillRecord): string {
  return `${record.path}\u0000${record.folder}\u0000${record.plugin ?? "\u0001"}\u0000${rangeKey(record.opening)}\u0000${manifestKey(record.manifest)}`;
}

/** A checked file's manifest is one object for as long as its bytes are unchanged, so its part of the key is made once. */
const MANIFEST_KEYS = new WeakMap<SkillFrontmatter, string>();

function manifestKey(manifest: SkillFrontmatter | undefined): string {
  if (manifest === undefined) return "\u0001";
  let key = MANIFEST_KEYS.get(manifest);
  if (key === undefined) {
    const references = (list: readonly SkillReference[]): string => list.map((reference) => `${reference.name}\u0002${rangeKey(reference.range)}`).join("\u0003");
    key = JSON.stringify([manifest.name ?? null, manifest.nameRange ? rangeKey(manifest.nameRange) : null, references(manifest.requiresSkills), references(manifest.conflictsWith), manifest.portableFields ?? null]);
    MANIFEST_KEYS.set(manifest, key);
  }
  return key;
}

function rangeKey(range: Range): string {
  return `${range.start.line}:${range.start.column}-${range.end.line}:${range.end.column}`;
}

/** A skill name the manifest schema accepts (schemas/skill-manifest.schema.json: 1 to 64 code points). */
const VALID_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function isValidSkillName(name: string): boolean {
  return VALID_NAME.test(name) && name.length <= 64;
}

interface ReferenceHints {
  /** Names a "did you mean" may offer, sorted: each skill's folder name when valid, the name it has once skill/name-mismatch is fixed. */
  suggestible: readonly string[];
  /** Folders whose skill is named otherwise: the skill file and the name it has now. */
  misnamed: ReadonlyMap<string, { path: string; name: string }>;
}

/**
 * A "did you mean" never offers a name the same run rejects: not a name that
 * breaks skill/name-format, nor one that skill/name-mismatch asks to change.
 * It offers the folder's name, the one every rule agrees on once the skill's
 * own findings are fixed.
 */
function referenceHints(records: readonly SkillRecord[], unreadFolders: readonly string[]): ReferenceHints {
  const suggestible = new Set<string>();
  const misnamed = new Map<string, { path: string; name: string }>();
  for (const record of records) {
    if (isValidSkillName(record.folder)) suggestible.add(record.folder);
    const name = record.manifest?.name;
    if (name !== undefined && name !== record.folder && !misnamed.has(record.folder)) misnamed.set(record.folder, { path: record.path, name });
  }
  for (const folder of unreadFolders) if (isValidSkillName(folder)) suggestible.add(folder);
  return { suggestible: [...suggestible].sort(compareNames), misnamed };
}

/** Reports unknown, self and repeated names; returns the usable names in order. */
function checkReferences(
  record: SkillRecord,
  name: string,
  key: "requiresSkills" | "conflictsWith",
  references: readonly SkillReference[],
  known: ReadonlySet<string>,
  hints: ReferenceHints,
  diagnostics: Diagnostic[],
): string[] {
  const seen = new Set<string>();
  const usable: string[] = [];
  const label = fieldLabel(key, record.manifest?.portableFields);
  for (const reference of references) {
    if (seen.has(reference.name)) {
      diagnostics.push(createDiagnostic("skill/reference-repeated", record.path, reference.range, `Unexpected repeated "${reference.name}" in ${label}, expected each name once`));
      continue;
    }
    seen.add(reference.name);
    if (reference.name === name) {
      const verb = key === "requiresSkills" ? "require" : "conflict with";
      diagnostics.push(createDiagnostic("skill/reference-self", record.path, reference.range, `Unexpected "${name}" in its own ${label}, expected a skill not to ${verb} itself`));
      continue;
    }
    if (!known.has(reference.name)) {
      // The folder's name, while the skill in it is named otherwise: the fix is that skill's name (skill/name-mismatch).
      const misnamed = hints.misnamed.get(reference.name);
      const hint = misnamed ? `; ${misnamed.path} is named ${quoted(misnamed.name)}, not after its folder (skill/name-mismatch)` : didYouMean(reference.name, hints.suggestible);
      diagnostics.push(createDiagnostic("skill/reference-unknown", record.path, reference.range, `Unexpected unknown skill ${quoted(reference.name)} in ${label}, expected the name of a skill in skills/${hint}`));
      continue;
    }
    usable.push(reference.name);
  }
  return usable;
}

/**
 * A skill's requirement closure must hold no conflict: neither between the
 * skill and something it requires, nor between two things it requires. A
 * conflict already inside one direct requirement's closure is reported on
 * that requirement, not again on every skill above it (see closureConflicts).
 * Each finding points at the direct requirement that leads to it and spells
 * out the shortest chain.
 */
function reportClosureConflicts(name: string, record: SkillRecord, requires: ReadonlyMap<string, readonly string[]>, found: ClosureConflicts, diagnostics: Diagnostic[]): void {
  const paths = requirementPaths(requires, name);
  const firstStep = (target: string): SkillReference & { path: string } => {
    const step = paths.pathTo(target)?.[1] ?? target;
    return referenceTo(record, "requiresSkills", step) ?? { name: step, range: record.opening, path: record.path };
  };
  const chain = (target: string): string => (paths.pathTo(target) ?? [name, target]).join(" → ");
  for (const member of found.withSkill) {
    const at = firstStep(member);
    diagnostics.push(createDiagnostic("skill/requires-conflict", at.path, at.range, `Unexpected requirement of "${member}" (${chain(member)}), which conflicts with "${name}", expected no requirement that conflicts with the skill`));
  }
  for (const [member, other] of found.pairs) {
    const at = firstStep(member);
    diagnostics.push(
      createDiagnostic("skill/closure-conflict", at.path, at.range, `Unexpected conflict between "${member}" (${chain(member)}) and "${other}" (${chain(other)}), expected requirements of "${name}" that do not conflict`),
    );
  }
}

function referenceTo(record: SkillRecord | undefined, key: "requiresSkills" | "conflictsWith", target: string): (SkillReference & { path: string }) | undefined {
  const reference = record?.manifest?.[key].find((item) => item.name === target);
  return reference && record ? { ...reference, path: record.path } : undefined;
}

/** Where a skill would list a conflict: its conflictsWith as written, or, when it has none, the spelling its manifest uses. */
function conflictsLabel(manifest: SkillFrontmatter | undefined): string {
  if (manifest && manifest.conflictsWith.length === 0 && (manifest.portableFields?.length ?? 0) > 0) return portableLabel("conflictsWith");
  return fieldLabel("conflictsWith", manifest?.portableFields);
}

/** How a text's accents are encoded: composed (NFC), decomposed (NFD), or a mix. */
function normalForm(text: string): string {
  return text === text.normalize("NFC") ? "NFC, composed" : text === text.normalize("NFD") ? "NFD, decomposed" : "neither NFC nor NFD";
}
