/**
 * Loads `dist/` for the runtime. Every artifact is checked against the
 * manifest (sha256, byte length, no missing and no unexpected file) before
 * anything is returned, so a session never runs on a half-verified prompt.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  NAMESPACE_NAME_PATTERN,
  VARIANT_NAME_PATTERN,
  type DistManifest,
  type InjectionKindArtifact,
  type SkillInfo,
  type ToolNamespaceArtifact,
  type ToolSchemaArtifact,
  type VariantName,
} from "../protocol/dist-manifest.js";
import type { CachePlan } from "../protocol/cache-plan.js";
import { verifyCachePlan } from "./cache-plan.js";
import type { ChecklistStep } from "../protocol/checklist.js";
import { loadCompiledKnowledge, type LoadedKnowledge } from "./knowledge/artifacts.js";
import { JOURNAL_FILE, journaledMessage, journalState } from "../protocol/dist-journal.js";
import { readRegularFile } from "../protocol/regular-file.js";
import { describeFsError } from "../protocol/path-problem.js";
import { withLfLineEndings } from "../protocol/line-endings.js";
import { manifestSchemaErrors } from "./manifest-schema.js";
import { packageRootDir } from "./package-root.js";
import { isRecord } from "../protocol/records.js";
import { expectObject, expectPath, expectString, shownValue } from "../protocol/arguments.js";
import { skillBaseDir } from "../protocol/skill-folder.js";

export type SkillType = SkillInfo["type"];

/** A skill as the runtime serves it: the body the `skill` tool returns plus its relations. */
export interface LoadedSkill {
  name: string;
  type: SkillType;
  description: string;
  body: string;
  requiresSkills: readonly string[];
  conflictsWith: readonly string[];
  /** `skills/<name>`: the folder the skill's supporting files are under, in dist/ and in the paths the model sees. */
  baseDir: string;
  /** The supporting files, by path relative to `baseDir`, with their verified bytes. */
  files: ReadonlyMap<string, Buffer>;
  /**
   * False for a skill with `disable-model-invocation: true`: the model cannot
   * load it with the skill tool; a preload, a requirement or the host can.
   */
  modelInvocable: boolean;
  /** A workflow skill's compiled checklist (dist/skills/<name>.steps.json); absent for reference skills. */
  steps?: readonly ChecklistStep[];
  /** The tool namespaces a workflow skill loads when it becomes active (empty when none). */
  toolNamespaces: readonly string[];
}

export interface LoadedArtifacts {
  manifest: DistManifest;
  prefix: string;
  catalog: string;
  /** Every variant the manifest lists (the project's own names), by name: the exact system prompt bytes. */
  variants: Readonly<Record<VariantName, string>>;
  tools: readonly ToolSchemaArtifact[];
  skills: ReadonlyMap<string, LoadedSkill>;
  /** The injection kinds; empty when the project defines none (no prompts/injections.yaml). */
  injectionKinds: readonly InjectionKindArtifact[];
  /** Each variant's cacheable blocks and breakpoints, checked against the bytes above. */
  cachePlan: CachePlan;
  /** Compiled knowledge notes (none when the project has no knowledge/ folder) and the inline limit. */
  knowledge: LoadedKnowledge;
  /** The tool namespaces by name, sorted (empty when the project declares none): verified like every artifact. */
  namespaces: ReadonlyMap<string, ToolNamespaceArtifact>;
}

/**
 * `interrupted`: dist/ carries the journal of a build that was killed or is still running (see InterruptedBuildError).
 * `unreadable`: a file or folder in dist/ (or dist/ itself, `.`) that the file system does not let this process read:
 * its permissions are what to fix, not the build; what an unreadable folder holds is not reported as missing.
 */
export type ArtifactProblemKind = "missing" | "unexpected" | "changed" | "size" | "invalid" | "interrupted" | "unreadable";

export interface ArtifactProblem {
  /** Path relative to the dist folder, forward slashes (`.`: the dist folder itself). */
  file: string;
  kind: ArtifactProblemKind;
  message: string;
  /** For `unreadable`: the error the file system gave (EACCES), and whether the path is a folder. */
  code?: string;
  folder?: boolean;
}

/** Thrown when dist/ does not match its manifest; names every bad file. */
export class ArtifactVerificationError extends Error {
  readonly problems: readonly ArtifactProblem[];

  constructor(problems: readonly ArtifactProblem[]) {
    // Permissions alone: nothing in dist/ was found wrong, only kept from this process.
    const what = problems.length > 0 && problems.every((problem) => problem.kind === "unreadable") ? "cannot be read" : "failed verification";
    super(
      `dist/ ${what} (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
        problems.map((problem) => `  ${problem.file}: ${problem.message}`).join("\n"),
    );
    this.name = "ArtifactVerificationError";
    this.problems = problems;
  }
}

export interface LoadArtifactsOptions {
  /** Folder holding manifest.json; defaults to the package's own dist/. */
  distDir?: string | URL;
  /**
   * The sha256 (hex) of the manifest a host trusts, e.g. recorded at deploy
   * time. Artifacts are checked against the manifest; this pins the manifest
   * itself, so a tampered manifest with matching tampered files is refused too.
   */
  manifestSha256?: string;
}

/**
 * The embedded default's dist/, beside the package's package.json. A bundled
 * runtime has no package folder around it: it is told to name its dist/.
 */
export function defaultDistDir(): string {
  const root = packageRootDir();
  if (root === undefined) {
    throw new Error(
      `gamma-prompt/runtime: no gamma-prompt package folder holds ${fileURLToPath(import.meta.url)} (a bundled runtime), so it has no embedded dist/: pass loadArtifacts({ distDir }) the folder your build wrote`,
    );
  }
  return join(root, "dist/");
}

export function loadArtifacts(options: LoadArtifactsOptions = {}): LoadedArtifacts {
  // A folder passed alone (plain JavaScript) would otherwise load the package's own dist/ without a word.
  if (typeof options !== "object" || options === null) throw new TypeError(`loadArtifacts takes an options object, such as { distDir: ${JSON.stringify(String(options))} }`);
  if (options.manifestSha256 !== undefined) {
    expectString(options.manifestSha256, "manifestSha256", "the manifest's sha256, 64 hexadecimal digits");
    // A pin that no sha256 can equal is a mistake in the host's configuration, not a build that failed verification.
    if (!/^[0-9a-f]{64}$/i.test(options.manifestSha256)) throw new TypeError(`Unexpected manifestSha256 ${shownValue(options.manifestSha256)}, expected the manifest's sha256, 64 hexadecimal digits`);
  }
  const distDir = options.distDir === undefined ? defaultDistDir() : expectPath(options.distDir, "distDir", 'the folder a build wrote, a path such as "dist" or a file: URL', true);
  refuseJournaled(distDir);
  for (let attempt = 1; ; attempt++) {
    const read: ManifestRead = {};
    try {
      return loadVerified(distDir, options, read);
    } catch (error) {
      if (!(error instanceof ArtifactVerificationError)) throw error;
      // A build that started replacing dist/ while it was being read explains the failure better than its symptoms.
      refuseJournaled(distDir);
      // One that finished meanwhile leaves no journal, only another manifest: the files read may be the new build's.
      if (read.bytes === undefined || !manifestChanged(distDir, read.bytes)) throw error;
      if (attempt === REPLACED_LOAD_ATTEMPTS) {
        throw new InterruptedBuildError(`builds replaced dist/ while it was read (${attempt} times in a row); load it again when they have finished`);
      }
    }
  }
}

/** How often a load is tried when a build replaces dist/ while it is read, before InterruptedBuildError. */
const REPLACED_LOAD_ATTEMPTS = 3;

/** The manifest's bytes as a load read them, to tell afterwards whether a build replaced dist/ meanwhile. */
interface ManifestRead {
  bytes?: Buffer;
}

function manifestChanged(distDir: string, bytes: Buffer): boolean {
  const now = readRegularFile(join(distDir, MANIFEST_FILE));
  return now.kind !== "file" || !now.bytes.equals(bytes);
}

/** Thrown for a dist/ that carries the journal of a build that was interrupted or is still running. */
export class InterruptedBuildError extends ArtifactVerificationError {
  constructor(message: string) {
    super([{ file: JOURNAL_FILE, kind: "interrupted", message }]);
    this.name = "InterruptedBuildError";
    this.message = message;
  }
}

function refuseJournaled(distDir: string): void {
  const state = journalState(distDir);
  if (state.present) throw new InterruptedBuildError(journaledMessage(state));
  // A dist/ this process may not look into: no build was interrupted, and none would help.
  if (state.unreadable !== undefined) throw new ArtifactVerificationError([unreadableProblem(distDir, ".", state.unreadable, true)]);
}

/** A file or folder of dist/ that the file system does not let this process read, named with its full path. */
function unreadableProblem(distDir: string, file: string, code: string, folder: boolean): ArtifactProblem {
  const path = resolve(distDir, file);
  const reason = `${describeFsError(code)}, ${code}`;
  const message = folder
    ? `Unexpected folder that cannot be read (${reason}), expected a folder this process can list: give ${path} read and search permission${file === "." ? " (and search permission on the folders above it)" : ""}`
    : `Unexpected file that cannot be read (${reason}), expected an artifact this process can read: give ${path} read permission`;
  return { file, kind: "unreadable", message, code, folder };
}

function loadVerified(distDir: string, options: LoadArtifactsOptions, read: ManifestRead): LoadedArtifacts {
  const manifestRead = readRegularFile(join(distDir, MANIFEST_FILE));
  if (manifestRead.kind !== "file") {
    throw new ArtifactVerificationError([
      manifestRead.kind === "not-a-file"
        ? { file: MANIFEST_FILE, kind: "invalid", message: `Unexpected ${manifestRead.what}, expected a regular file` }
        : {
            file: MANIFEST_FILE,
            kind: "missing",
            message: existsSync(distDir)
              ? `Unexpected missing manifest, expected ${join(distDir, MANIFEST_FILE)} (the output of gamma-prompt build)`
              : `Unexpected missing folder ${resolve(distDir)}, expected the output of gamma-prompt build there`,
          },
    ]);
  }
  read.bytes = manifestRead.bytes;
  // As built: a checkout that turned its line feeds into CRLF (core.autocrlf) is undone (protocol/line-endings.ts).
  const manifestBytes = withLfLineEndings(manifestRead.bytes);
  if (options.manifestSha256 !== undefined) {
    const actual = createHash("sha256").update(manifestBytes).digest("hex");
    if (actual !== options.manifestSha256.toLowerCase()) {
      throw new ArtifactVerificationError([
        {
          file: MANIFEST_FILE,
          kind: "changed",
          message: `Unexpected manifest sha256 ${actual}, expected the pinned ${options.manifestSha256}`,
        },
      ]);
    }
  }
  const manifest = parseManifest(manifestBytes);
  const contents = verifyFiles(distDir, manifest);
  // Last, so a tampered file or reference is still named as such: whatever else the schema refuses is refused here.
  refuseSchemaViolations(manifest);
  return assemble(manifest, contents, distDir);
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether `path`, with every symbolic link resolved, stays inside the
 * (resolved) dist folder: a link that points out of dist/ would let a file
 * the manifest never covered be swapped in behind a matching hash.
 */
function isInside(realDist: string, path: string): boolean {
  const real = realpathOrUndefined(path);
  if (real === undefined) return true; // unreadable: reported as such below
  const rel = relative(realDist, real);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

function parseManifest(bytes: Buffer): DistManifest {
  const invalid = (message: string): ArtifactVerificationError =>
    new ArtifactVerificationError([{ file: MANIFEST_FILE, kind: "invalid", message }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw invalid("Unexpected text that is not JSON, expected the manifest object");
  }
  if (!isRecord(parsed)) throw invalid("Unexpected non-object manifest, expected an object");
  if (parsed["manifestVersion"] !== MANIFEST_VERSION) {
    throw invalid(
      `Unexpected manifestVersion ${JSON.stringify(parsed["manifestVersion"])}, expected ${MANIFEST_VERSION}`,
    );
  }
  for (const key of ["artifacts", "staticPrefix", "catalog", "tools", "cachePlan", "variants", "skills"]) {
    if (!isRecord(parsed[key])) throw invalid(`Unexpected missing or non-object \`${key}\`, expected an object`);
  }
  if (parsed["namespaces"] !== undefined && !isRecord(parsed["namespaces"])) {
    throw invalid("Unexpected non-object `namespaces`, expected an object or no key (a project without tool namespaces)");
  }
  if (parsed["injections"] !== undefined && !isRecord(parsed["injections"])) {
    throw invalid("Unexpected non-object `injections`, expected an object or no key (a project without injection kinds)");
  }
  return parsed as unknown as DistManifest;
}

/** Problems are capped: one hostile manifest can break the schema in thousands of places. */
const MAX_SCHEMA_PROBLEMS = 20;

function refuseSchemaViolations(manifest: DistManifest): void {
  const errors = manifestSchemaErrors(manifest);
  if (errors.length === 0) return;
  throw new ArtifactVerificationError(
    errors.slice(0, MAX_SCHEMA_PROBLEMS).map((error) => ({
      file: MANIFEST_FILE,
      kind: "invalid" as const,
      message: `Unexpected ${error.instancePath === "" ? "manifest" : `value at ${error.instancePath}`}, expected what schemas/manifest.schema.json allows (${error.message ?? "see the schema"})`,
    })),
  );
}

/** Reads every file once; returns their bytes only when all of them match. */
function verifyFiles(distDir: string, manifest: DistManifest): Map<string, Buffer> {
  const problems: ArtifactProblem[] = [];
  const contents = new Map<string, Buffer>();
  const unreadableFolders = new Map<string, string>();
  const onDisk = new Set(listFiles(distDir, unreadableFolders));
  for (const [folder, code] of unreadableFolders) problems.push(unreadableProblem(distDir, folder === "" ? "." : folder, code, true));
  // What a folder that cannot be listed holds is unknown: its artifacts are neither missing nor read.
  const hiddenFolders = [...unreadableFolders.keys()];
  const hidden = (file: string): boolean => hiddenFolders.some((folder) => folder === "" || file.startsWith(`${folder}/`));
  const realDist = realpathOrUndefined(distDir) ?? distDir;
  for (const [file, entry] of Object.entries(manifest.artifacts).sort(([a], [b]) => compare(a, b))) {
    if (!isSafeRelativePath(file)) {
      problems.push({ file, kind: "invalid", message: "Unexpected artifact path outside dist/, expected a relative path" });
      continue;
    }
    if (!isRecord(entry) || typeof entry.sha256 !== "string" || typeof entry.bytes !== "number") {
      problems.push({ file, kind: "invalid", message: "Unexpected manifest entry, expected {sha256, bytes}" });
      continue;
    }
    if (!onDisk.has(file)) {
      if (hidden(file)) continue;
      problems.push({ file, kind: "missing", message: "Unexpected missing file, expected it as the manifest lists it" });
      continue;
    }
    const path = join(distDir, file);
    if (!isInside(realDist, path)) {
      problems.push({ file, kind: "invalid", message: "Unexpected link to a file outside dist/, expected a regular file inside dist/" });
      continue;
    }
    // Checked with fstat before any read: a FIFO or device there is refused, never waited on.
    const read = readRegularFile(path);
    if (read.kind === "not-a-file") {
      problems.push({ file, kind: "invalid", message: `Unexpected ${read.what}, expected a regular file` });
      continue;
    }
    if (read.kind === "error" && (read.code === "EACCES" || read.code === "EPERM")) {
      problems.push(unreadableProblem(distDir, file, read.code, false));
      continue;
    }
    if (read.kind !== "file") {
      // Listed as a file but not readable as one (removed meanwhile, another error).
      problems.push({ file, kind: "invalid", message: "Unexpected entry that cannot be read as a file, expected a regular file" });
      continue;
    }
    const bytes = withLfLineEndings(read.bytes);
    if (bytes.length !== entry.bytes) {
      problems.push({ file, kind: "size", message: `Unexpected size ${bytes.length} bytes, expected ${entry.bytes}` });
      continue;
    }
    const actual = createHash("sha256").update(bytes).digest("hex");
    if (actual !== entry.sha256) {
      problems.push({ file, kind: "changed", message: `Unexpected sha256 ${actual}, expected ${entry.sha256}` });
      continue;
    }
    contents.set(file, bytes);
  }
  for (const file of [...onDisk].sort(compare)) {
    if (file !== MANIFEST_FILE && !Object.hasOwn(manifest.artifacts, file)) {
      problems.push({ file, kind: "unexpected", message: "Unexpected file not listed in manifest.json, expected none" });
    }
  }
  problems.push(...crossReferenceProblems(manifest));
  if (problems.length > 0) throw new ArtifactVerificationError(problems);
  return contents;
}

/** Every file the manifest points at must be a verified artifact with the same hash. */
function crossReferenceProblems(manifest: DistManifest): ArtifactProblem[] {
  const problems: ArtifactProblem[] = [];
  const check = (file: unknown, sha256: unknown, what: string): void => {
    if (typeof file !== "string") {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected missing file name for ${what}, expected a path` });
      return;
    }
    // Own entries only: "constructor" or "__proto__" must not find Object's members.
    const entry: unknown = Object.hasOwn(manifest.artifacts, file) ? manifest.artifacts[file] : undefined;
    if (entry !== undefined && !isRecord(entry)) return; // reported with the artifact entries
    if (entry === undefined) {
      problems.push({ file, kind: "missing", message: `Unexpected ${what} file absent from artifacts, expected it listed` });
    } else if (entry["sha256"] !== sha256) {
      problems.push({ file, kind: "invalid", message: `Unexpected sha256 for ${what}, expected the artifact's own hash` });
    }
  };
  check(manifest.staticPrefix.file, manifest.staticPrefix.sha256, "the static prefix");
  check(manifest.catalog.file, manifest.catalog.sha256, "the catalog");
  check(manifest.tools.file, manifest.tools.sha256, "the tool schemas");
  if (manifest.injections !== undefined) check(manifest.injections.file, manifest.injections.sha256, "the injection kinds");
  check(manifest.cachePlan.file, manifest.cachePlan.sha256, "the cache plan");
  const namespaces = manifest.namespaces ?? {};
  for (const [name, namespace] of Object.entries(namespaces)) {
    if (!NAMESPACE_NAME_PATTERN.test(name) || !isRecord(namespace) || !Array.isArray(namespace.tools) || namespace.tools.some((tool) => typeof tool !== "string") || typeof namespace.description !== "string") {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected namespace entry ${JSON.stringify(name)}, expected {file, sha256, description, tools, tokens} under a lowercase_name` });
      continue;
    }
    check(namespace.file, namespace.sha256, `namespace "${name}"`);
  }
  const knownNamespace = (name: unknown): boolean => typeof name === "string" && Object.hasOwn(namespaces, name);
  const variantNames = Object.keys(manifest.variants);
  if (variantNames.length === 0) {
    problems.push({ file: MANIFEST_FILE, kind: "invalid", message: "Unexpected manifest without variants, expected at least one" });
  }
  for (const name of variantNames) {
    const variant = manifest.variants[name];
    if (!VARIANT_NAME_PATTERN.test(name)) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected variant name ${JSON.stringify(name)}, expected lowercase words joined by hyphens` });
      continue;
    }
    if (!isRecord(variant)) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected missing variant "${name}", expected an entry` });
      continue;
    }
    check(variant.file, variant.sha256, `variant "${name}"`);
    const preloaded = variant.preloadedSkills;
    if (!Array.isArray(preloaded) || preloaded.some((skill) => typeof skill !== "string" || !Object.hasOwn(manifest.skills, skill))) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected preloadedSkills of variant "${name}", expected names of skills in the manifest` });
    }
    const atStart: unknown = variant.namespaces;
    if (atStart !== undefined && (!Array.isArray(atStart) || !atStart.every(knownNamespace))) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected namespaces of variant "${name}", expected names of namespaces in the manifest` });
    }
    const required = variant.requiredSkills;
    if (required !== undefined && (!Array.isArray(required) || required.some((skill) => typeof skill !== "string" || !Object.hasOwn(manifest.skills, skill)))) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected requiredSkills of variant "${name}", expected names of skills in the manifest` });
    }
  }
  for (const [name, skill] of Object.entries(manifest.skills)) {
    if (!isRecord(skill)) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected skill entry "${name}", expected an object` });
      continue;
    }
    check(skill.file, skill.sha256, `skill "${name}"`);
    if (typeof skill.description !== "string") {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected description of skill "${name}", expected a string` });
    }
    if (skill.checklist !== undefined) {
      if (isRecord(skill.checklist)) check(skill.checklist.file, skill.checklist.sha256, `the checklist of skill "${name}"`);
      else problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected checklist entry of skill "${name}", expected {file, sha256, steps}` });
    }
    if (skill.type !== "workflow" && skill.type !== "reference") {
      problems.push({
        file: MANIFEST_FILE,
        kind: "invalid",
        message: `Unexpected type ${JSON.stringify(skill.type)} for skill "${name}", expected "workflow" or "reference"`,
      });
    }
    for (const key of ["requiresSkills", "conflictsWith"] as const) {
      const names = skill[key];
      if (names !== undefined && (!Array.isArray(names) || names.some((other) => typeof other !== "string" || !Object.hasOwn(manifest.skills, other)))) {
        problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected ${key} of skill "${name}", expected names of skills in the manifest` });
      }
    }
    const needed: unknown = skill.toolNamespaces;
    if (needed !== undefined && (!Array.isArray(needed) || !needed.every(knownNamespace))) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected toolNamespaces of skill "${name}", expected names of namespaces in the manifest` });
    }
    const files: unknown = skill.files;
    if (files === undefined) continue;
    if (!Array.isArray(files) || files.some((path) => typeof path !== "string" || !isSafeRelativePath(path))) {
      problems.push({ file: MANIFEST_FILE, kind: "invalid", message: `Unexpected files of skill "${name}", expected paths relative to the skill's folder` });
      continue;
    }
    for (const path of files as string[]) {
      const artifact = `${skillBaseDir(name)}/${path}`;
      if (!Object.hasOwn(manifest.artifacts, artifact)) {
        problems.push({ file: artifact, kind: "missing", message: `Unexpected supporting file of skill "${name}" absent from artifacts, expected it listed` });
      }
    }
  }
  return problems;
}

/** The folder in dist/ (and in the paths the model sees) that holds a skill's supporting files. */
export { skillBaseDir };

function assemble(manifest: DistManifest, contents: ReadonlyMap<string, Buffer>, distDir: string): LoadedArtifacts {
  const text = (file: string): string => (contents.get(file) ?? Buffer.alloc(0)).toString("utf8");
  const json = (file: string): unknown => {
    try {
      return JSON.parse(text(file));
    } catch {
      throw new ArtifactVerificationError([{ file, kind: "invalid", message: "Unexpected text that is not JSON, expected JSON" }]);
    }
  };
  const tools = json(manifest.tools.file);
  if (!Array.isArray(tools)) {
    throw new ArtifactVerificationError([
      { file: manifest.tools.file, kind: "invalid", message: "Unexpected tool schemas, expected an array" },
    ]);
  }
  const injectionKinds = manifest.injections === undefined ? [] : json(manifest.injections.file);
  if (!Array.isArray(injectionKinds)) {
    throw new ArtifactVerificationError([
      { file: manifest.injections?.file ?? MANIFEST_FILE, kind: "invalid", message: "Unexpected injection kinds, expected an array" },
    ]);
  }
  const variants: Record<VariantName, string> = {};
  for (const [name, info] of Object.entries(manifest.variants).sort(([a], [b]) => compare(a, b))) variants[name] = text(info.file);
  const skills = new Map<string, LoadedSkill>();
  for (const name of Object.keys(manifest.skills).sort(compare)) {
    const info = manifest.skills[name] as SkillInfo;
    const files = new Map<string, Buffer>();
    for (const path of info.files ?? []) files.set(path, contents.get(`${skillBaseDir(name)}/${path}`) ?? Buffer.alloc(0));
    skills.set(name, {
      name,
      type: info.type,
      description: info.description,
      body: text(info.file),
      requiresSkills: info.requiresSkills ?? [],
      conflictsWith: info.conflictsWith ?? [],
      baseDir: skillBaseDir(name),
      files,
      modelInvocable: info.disableModelInvocation !== true,
      ...(info.checklist === undefined ? {} : { steps: checklistSteps(info.checklist.file, json(info.checklist.file)) }),
      toolNamespaces: info.toolNamespaces ?? [],
    });
  }
  const namespaces = new Map<string, ToolNamespaceArtifact>();
  for (const [name, info] of Object.entries(manifest.namespaces ?? {}).sort(([a], [b]) => compare(a, b))) {
    namespaces.set(name, namespaceArtifact(name, info.tools, info.file, json(info.file)));
  }
  const verified = verifyCachePlan(json(manifest.cachePlan.file), manifest, (file) => contents.get(file));
  if ("problems" in verified) {
    throw new ArtifactVerificationError(verified.problems.map((message) => ({ file: manifest.cachePlan.file, kind: "invalid" as const, message })));
  }
  const knowledge = loadCompiledKnowledge(manifest, text, (file) => join(distDir, file));
  if (knowledge.problems.length > 0) {
    throw new ArtifactVerificationError(knowledge.problems.map((problem) => ({ ...problem, kind: "invalid" as const })));
  }
  return {
    manifest,
    cachePlan: verified.plan,
    knowledge: knowledge.knowledge,
    prefix: text(manifest.staticPrefix.file),
    catalog: text(manifest.catalog.file),
    variants,
    tools: tools as ToolSchemaArtifact[],
    skills,
    injectionKinds: injectionKinds as InjectionKindArtifact[],
    namespaces,
  };
}

/** A namespace artifact whose name and tool names are the manifest's, each tool `{name, description, parameters}`. */
function namespaceArtifact(name: string, tools: readonly string[], file: string, value: unknown): ToolNamespaceArtifact {
  const listed = isRecord(value) ? value["tools"] : undefined;
  const valid =
    isRecord(value) &&
    value["name"] === name &&
    typeof value["description"] === "string" &&
    Array.isArray(listed) &&
    listed.length === tools.length &&
    listed.every((tool: unknown, index) => isRecord(tool) && tool["name"] === tools[index] && typeof tool["description"] === "string" && isRecord(tool["parameters"]));
  if (!valid) throw new ArtifactVerificationError([{ file, kind: "invalid", message: `Unexpected namespace, expected {name: "${name}", description, tools} with the manifest's tools in order` }]);
  return value as unknown as ToolNamespaceArtifact;
}

function checklistSteps(file: string, value: unknown): ChecklistStep[] {
  const steps = isRecord(value) ? value["steps"] : undefined;
  const valid =
    Array.isArray(steps) &&
    steps.every(
      (step: unknown) =>
        isRecord(step) &&
        typeof step["number"] === "number" &&
        typeof step["title"] === "string" &&
        typeof step["optional"] === "boolean" &&
        typeof step["verifies"] === "boolean" &&
        typeof step["line"] === "number",
    );
  if (!valid) throw new ArtifactVerificationError([{ file, kind: "invalid", message: "Unexpected checklist, expected {skill, source, steps: [{number, title, optional, verifies, line}]}" }]);
  return steps as ChecklistStep[];
}

/** Every file below `root`; a folder that exists but cannot be listed goes into `unreadable` (path relative to root, "" for root; its error code). */
function listFiles(root: string, unreadable: Map<string, string>): string[] {
  const files: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Removed meanwhile, or no folder: nothing to list. Anything else hides what the folder holds.
      if (code !== "ENOENT" && code !== "ENOTDIR") unreadable.set(prefix, code ?? "unknown error");
      return;
    }
    for (const entry of entries) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else files.push(rel);
    }
  };
  walk(root, "");
  return files;
}

function isSafeRelativePath(file: string): boolean {
  return (
    file.length > 0 &&
    !file.startsWith("/") &&
    !file.includes("\\") &&
    !/^[a-zA-Z]:/.test(file) &&
    file.split("/").every((part) => part !== "" && part !== "." && part !== "..")
  );
}


function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A supporting file as the host's `read` executor serves it. */
export interface SkillFile {
  skill: string;
  /** Relative to the skill's folder, normalised; `SKILL.md` for the skill's own body. */
  path: string;
  /** The verified bytes from dist/: the file's, or for `SKILL.md` the compiled body the `skill` tool returns. */
  bytes: Buffer;
}

/** The file the catalog's `path` names for each skill (`skills/<name>/SKILL.md`). */
const SKILL_FILE = "SKILL.md";

/**
 * Resolves a path the model was given (the `skill` tool's base folder
 * `skills/<name>/` joined with a path from the body, or the catalog's
 * `skills/<name>/SKILL.md`) to verified bytes from dist/. The path is read as
 * POSIX segments: empty and `.` segments are dropped (so a leading `./` or
 * `/`, `skills/x/./a.md` and `skills/x//a.md` all name `a.md`), and `..`
 * takes back the segment before it, but never `skills` itself: a path that
 * climbs out of `skills/` is refused whatever follows. `SKILL.md` at a
 * skill's top gives the skill's compiled body (what `skill({name})` returns,
 * without activating it) for a skill the model may load; a skill with
 * `disable-model-invocation` has none here. A path that names no file as
 * written is tried once more with its percent-escapes decoded, as lint
 * resolves a link (`references/my%20notes.md` names `references/my notes.md`).
 * Undefined for any other path, which the host then resolves in its
 * workspace as usual.
 */
export function readSkillFile(artifacts: Pick<LoadedArtifacts, "skills">, path: string): SkillFile | undefined {
  expectObject(artifacts as unknown, "artifacts", "the loaded artifacts, from loadArtifacts({ distDir })");
  expectString(path, "path", 'a path as the model reads it, skills/<name>/<file>, such as "skills/deck-generation/references/layouts.md"');
  const literal = skillFileAt(artifacts, path);
  if (literal !== undefined || !path.includes("%")) return literal;
  // A link as editors and GitHub write it (`references/my%20notes.md`) names the file lint resolves it to: the
  // percent-escapes decoded. A file whose name holds a literal % is served first, as written.
  const decoded = decodedPath(path);
  return decoded === undefined || decoded === path ? undefined : skillFileAt(artifacts, decoded);
}

/** The path with its percent-escapes decoded as UTF-8; undefined when they do not decode (a lone %, invalid UTF-8). */
function decodedPath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function skillFileAt(artifacts: Pick<LoadedArtifacts, "skills">, path: string): SkillFile | undefined {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      // Above the skills root (or its very top): nothing the build ships.
      if (segments.length <= 1) return undefined;
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  const [root, name = "", ...rest] = segments;
  if (root !== "skills" || rest.length === 0 || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)) return undefined;
  const skill = artifacts.skills.get(name);
  if (skill === undefined) return undefined;
  const rel = rest.join("/");
  if (rel === SKILL_FILE) return skill.modelInvocable ? { skill: name, path: rel, bytes: Buffer.from(skill.body, "utf8") } : undefined;
  const bytes = skill.files.get(rel);
  return bytes === undefined ? undefined : { skill: name, path: rel, bytes };
}
