import { readdirSync } from "node:fs";
import { expectBoolean, expectProjectOptions } from "./protocol/arguments.js";
import { isAbsolute, resolve } from "node:path";
import type { InvalidationCost } from "./cost/invalidation.js";
import { CACHE_PLAN_FILE, type CachePlan } from "./protocol/cache-plan.js";
import { compareDiagnostics, countDiagnostics, createDiagnostic, FILE_START, type Diagnostic } from "./diagnostics/diagnostic.js";
import { JOURNAL_FILE, journaledMessage, journalState } from "./protocol/dist-journal.js";
import type { DistManifest } from "./protocol/dist-manifest.js";
import { relativePosix } from "./pipeline/discover/relative-paths.js";
import { refuseOutputHoldingRoot, refuseOutputInSourceFolder } from "./pipeline/discover/discover.js";
import { readSkillLayout } from "./pipeline/discover/skill-folders.js";
import { compareDist, driftDiagnostics, type DriftEntry } from "./pipeline/emit/drift.js";
import type { TemplateOrigin } from "./pipeline/render/prefix-origin.js";

export type { DriftEntry, PrefixDrift } from "./pipeline/emit/drift.js";
export type { TemplateOrigin } from "./pipeline/render/prefix-origin.js";

export interface CheckOptions {
  root: string;
  /** Output folder, relative to the root unless absolute. Default "dist". */
  outDir?: string;
  /**
   * Work everything out again, even what dist/ records for the very same
   * bytes: token counts and the acceptance of tool parameter schemas (by
   * default those are taken as recorded; the bytes are always compared).
   */
  full?: boolean;
}

export interface CheckResult {
  /** dist/ is exactly what the sources produce and every file matches its manifest hash. */
  ok: boolean;
  /** Source findings (as build reports them) and one finding per drift. */
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** Notes never fail a build. */
  noteCount: number;
  drift: DriftEntry[];
  /** The static prefix or the tool schemas changed: no variant can reuse the shared cached prefix. */
  invalidatesSharedPrefix: boolean;
  /** How many artifacts the sources produce (manifest included). */
  artifactCount: number;
  /** When the sources change cached blocks: per affected variant, what that costs until the cache is warm again. */
  invalidation?: InvalidationCost[];
}

/** Renders in memory and compares with dist/; writes nothing. */
export async function check(options: CheckOptions): Promise<CheckResult> {
  expectProjectOptions(options, "check");
  if (options.full !== undefined) expectBoolean(options.full, "full");
  return (await checkAndBuild(options)).result;
}

/** What the sources build to (in memory), beside check's verdict: the cache plan and manifest a comparison with dist/ needs. */
export interface SourcesBuild {
  manifest: DistManifest;
  cachePlan: CachePlan;
  /** Each variant's system prompt, by name. */
  variants: Record<string, string>;
}

/** {@link check}, keeping the in-memory build (absent when the sources have errors or dist/ is mid-build). */
export async function checkAndBuild(options: CheckOptions): Promise<{ result: CheckResult; built?: SourcesBuild }> {
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? "dist");
  refuseOutputHoldingRoot(root, outDir, options.outDir);
  const outRel = relativePosix(root, outDir) || ".";
  refuseOutputInSourceFolder(root, outDir, options.outDir, { ...readSkillLayout(root), outDir: outRel });
  const journal = journalState(outDir);
  if (journal.present) {
    // One finding: nothing in a half-replaced dist/ is worth comparing.
    const diagnostics = [createDiagnostic("dist/interrupted-build", `${outRel}/${JOURNAL_FILE}`, FILE_START, `Unexpected journal: ${journaledMessage(journal)}`)];
    return { result: { ok: false, diagnostics, ...countDiagnostics(diagnostics), drift: [], invalidatesSharedPrefix: false, artifactCount: 0 } };
  }
  const [{ compileProject }, { readRecordedBuild }, { tokenizerVersion }] = await Promise.all([
    import("./pipeline/compile/compile.js"),
    import("./pipeline/emit/recorded-build.js"),
    import("./tokens.js"),
  ]);
  // What dist/ records for bytes that come out the same is taken, not worked out again; --full repeats everything.
  const recorded = options.full ? undefined : readRecordedBuild(outDir, tokenizerVersion());
  const compiled = await compileProject(root, undefined, undefined, {
    outDir: outRel,
    ...(recorded?.tokenCounts ? { recordedCounts: recorded.tokenCounts } : {}),
    ...(recorded ? { acceptedToolParameters: recorded.acceptedToolParameters } : {}),
  });
  if (!compiled.artifacts || !compiled.manifest) {
    return { result: { ok: false, diagnostics: compiled.diagnostics, errorCount: compiled.errorCount, warningCount: compiled.warningCount, noteCount: compiled.noteCount, drift: [], invalidatesSharedPrefix: false, artifactCount: 0 } };
  }
  const state = outputFolderState(outDir);
  if (state !== "built") {
    // One finding for the folder: a line per artifact would only repeat that nothing was built.
    // An absolute --out is named as given; a relative one from the root.
    const shown = options.outDir !== undefined && isAbsolute(options.outDir) ? options.outDir.replace(/(?<=.)[\\/]+$/, "") : outRel;
    const what = state === "not a folder" ? `file at the output folder's path ${shown}, expected a folder: remove it, then run \`gamma-prompt build\`` : `missing output folder ${shown.replace(/\/$/, "")}/, expected the folder \`gamma-prompt build\` writes (run \`gamma-prompt build\` first)`;
    const missing = createDiagnostic("dist/missing", outRel, FILE_START, `Unexpected ${what}`);
    const diagnostics = [...compiled.diagnostics, missing].sort(compareDiagnostics);
    return { result: { ok: false, diagnostics, ...countDiagnostics(diagnostics), drift: [], invalidatesSharedPrefix: false, artifactCount: compiled.artifacts.size } };
  }
  const expectedPrefix = (compiled.artifacts.get("prefix.md") as string | undefined) ?? "";
  const locate = async (offset: number): Promise<TemplateOrigin | undefined> => {
    if (!compiled.templates || !compiled.prefixContext) return undefined;
    const { mapPrefixOrigins } = await import("./pipeline/render/prefix-origin.js");
    const map = await mapPrefixOrigins(compiled.templates, compiled.prefixContext, expectedPrefix);
    return map?.(offset);
  };
  const report = await compareDist(outDir, compiled.artifacts, locate);
  const diagnostics = [...compiled.diagnostics, ...driftDiagnostics(outRel, report)].sort(compareDiagnostics);
  const counts = countDiagnostics(diagnostics);
  const planArtifact = compiled.artifacts.get(CACHE_PLAN_FILE);
  // The blocks the committed plan caches that the sources' plan no longer has, priced.
  const invalidation = report.drift.some((entry) => entry.artifact === CACHE_PLAN_FILE && entry.kind !== "unreadable") ? (await import("./cost/variant-prompts.js")).invalidationAgainstOutput(outDir, compiled.artifacts) : undefined;
  const result: CheckResult = {
    ok: counts.errorCount === 0,
    diagnostics,
    ...counts,
    drift: report.drift,
    invalidatesSharedPrefix: report.invalidatesSharedPrefix,
    artifactCount: compiled.artifacts.size,
    ...(invalidation === undefined || invalidation.length === 0 ? {} : { invalidation }),
  };
  const cachePlan = JSON.parse(typeof planArtifact === "string" ? planArtifact : Buffer.from(planArtifact ?? "{}").toString("utf8")) as CachePlan;
  const { builtVariantPrompts } = await import("./cost/variant-prompts.js");
  return { result, built: { manifest: compiled.manifest, cachePlan, variants: builtVariantPrompts(compiled.artifacts, Object.keys(cachePlan.variants)) } };
}

/** No output folder, or an empty one: nothing was ever built there. */
/** Whether the output folder holds a build, holds nothing (absent or empty), or is something other than a folder. */
function outputFolderState(outDir: string): "built" | "never built" | "not a folder" {
  try {
    return readdirSync(outDir).length === 0 ? "never built" : "built";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "never built" : code === "ENOTDIR" ? "not a folder" : "built";
  }
}
