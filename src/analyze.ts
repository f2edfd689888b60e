import { resolve } from "node:path";
import { expectBoolean, expectFunction, expectObject, expectOneOf, expectProjectOptions, expectStringArray, expectStringMap } from "./protocol/arguments.js";
import { compareDiagnostics, countDiagnostics, withoutRepeats, type Diagnostic } from "./diagnostics/diagnostic.js";
import type { InvalidationCost } from "./cost/invalidation.js";
import type { DistManifest } from "./protocol/dist-manifest.js";
import { CACHE_PLAN_FILE, type CachePlan } from "./protocol/cache-plan.js";
import type { ArtifactContent } from "./pipeline/emit/artifacts.js";
import type { ProjectSources } from "./pipeline/discover/project-sources.js";
import { overrideSource, SKILL_READ_RULES, sourceReadRules, type SourceOverrides } from "./pipeline/discover/read-source.js";
import { relativePosix } from "./pipeline/discover/relative-paths.js";
import { acceptedToolParametersIn } from "./pipeline/emit/verified-dist.js";
import { lintSkills, type SkillFileRecord } from "./pipeline/lint-skills/lint-skills.js";
import type { ToolSchemaArtifact } from "./protocol/dist-manifest.js";
import { BuildSession } from "./pipeline/session/build-session.js";
import { detectProfile, isAgentProject, readLintConfig, type Profile } from "./pipeline/validate/lint-config.js";

export type { SkillFileRecord } from "./pipeline/lint-skills/lint-skills.js";
export type { ProjectSources } from "./pipeline/discover/project-sources.js";

/**
 * The compiler run the way an editor needs it: again and again on one
 * project, with unsaved buffers taken as the truth over the disk, writing
 * nothing. Each analysis is what `lint` (and for a Gamma agent, `build`)
 * would report if the buffers were saved, from the same pipeline, and an
 * analysis after an edit reuses what the edit left valid, as watch mode does.
 */

export interface AnalyzerOptions {
  /** Project root: the folder that holds skills/ (or the folders `skills` in the config names). */
  root: string;
  /** Output folder, relative to the root unless absolute (default `dist`): skill discovery never looks inside it, and the cost of an edit is priced against its cache plan. */
  outDir?: string;
}

export interface AnalyzeInput {
  /** Unsaved text by root-relative path (an editor's open buffers); read as the file's bytes would be. */
  buffers?: ReadonlyMap<string, string>;
  /**
   * Root-relative paths that changed since the previous analysis: buffers
   * edited, opened or closed, files changed on disk. Without it every file is
   * checked against its size and modification time.
   */
  changedPaths?: readonly string[];
  /**
   * `skills`: only the skill rules (what `lint` checks), which a large project
   * answers in a fraction of the whole: an editor shows those findings first.
   * Default `project`: everything `build` checks as well.
   */
  scope?: "skills" | "project";
  /**
   * Compile a project with prompts/prefix.hbs as `build` does, whatever the
   * config's `profile` says (it is the rule set lint applies; build always
   * applies gamma). Default: compile only when lint's profile is gamma too,
   * so that the findings are lint's.
   */
  build?: boolean;
  /**
   * Called once per analysis with its findings (the `diagnostics` it resolves to) as soon as they are final:
   * for a compiled project, before what the build would write is made and priced against the output folder,
   * which finds nothing. An editor publishes from it without waiting for those; the analysis goes on when the
   * promise it returns settles.
   */
  onFindings?: (diagnostics: readonly Diagnostic[]) => void | Promise<void>;
}

export interface ProjectAnalysis {
  /** The profile whose rules ran: gamma (a project with prompts/prefix.hbs) also runs the build's checks. */
  profile: Profile;
  /** Every finding, sorted by file, position and rule id. */
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  noteCount: number;
  /** Every SKILL.md read, valid or not, with where each manifest field is written. */
  skillFiles: SkillFileRecord[];
  /** The build's other sources as read (gamma only). */
  sources?: ProjectSources;
  /** What the build would write, when the project has no error (gamma only). */
  manifest?: DistManifest;
  artifacts?: ReadonlyMap<string, ArtifactContent>;
  cachePlan?: CachePlan;
  /** The cached blocks of the output folder's cache plan these sources would invalidate, priced per variant (as `check` reports them). */
  invalidation?: InvalidationCost[];
}

export interface ProjectAnalyzer {
  readonly root: string;
  /** Analyses the project as it is now; calls must not overlap (each builds on the previous one's session). */
  analyze(input?: AnalyzeInput): Promise<ProjectAnalysis>;
}

/** Throws ProjectRootError from `analyze` when the root cannot hold skills at all. */
export function createProjectAnalyzer(options: AnalyzerOptions): ProjectAnalyzer {
  expectProjectOptions(options, "createProjectAnalyzer");
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? "dist");
  const outRel = relativePosix(root, outDir) || ".";
  let session = new BuildSession({ repeated: true });
  // The tool parameter schemas a build accepted byte for byte, as lint and check take them from the output
  // folder's verified record: read at the first compile. What a build accepted stays accepted, so a later
  // build's record adds nothing an unchanged schema needs (the session keeps its checked tool files).
  let accepted: AcceptedToolParameters | undefined;
  const acceptedToolParameters: AcceptedToolParameters = (tool) => (accepted ??= acceptedToolParametersIn(outDir))(tool);
  return {
    root,
    async analyze(input: AnalyzeInput = {}): Promise<ProjectAnalysis> {
      expectAnalyzeInput(input);
      const overrides = toOverrides(input.buffers);
      try {
        return await analyzeOnce(root, outDir, outRel, session, input.changedPaths, overrides, input.scope ?? "project", input.build === true, onceOnly(input.onFindings), acceptedToolParameters);
      } catch (error) {
        // A run that threw may have left the session half-updated: the next one starts cold.
        session = new BuildSession({ repeated: true });
        throw error;
      }
    },
  };
}

/** What `analyze` takes, checked before anything is read: a TypeError naming the option otherwise. */
function expectAnalyzeInput(input: unknown): void {
  expectObject(input, "analyze input", 'an object such as { buffers: new Map([["skills/x/SKILL.md", "…"]]), changedPaths: ["skills/x/SKILL.md"] }');
  if (input["buffers"] !== undefined) expectStringMap(input["buffers"], "buffers", 'a Map of root-relative path to unsaved text, such as new Map([["skills/x/SKILL.md", "…"]])');
  if (input["changedPaths"] !== undefined) expectStringArray(input["changedPaths"], "changedPaths", 'an array of root-relative paths, such as ["skills/x/SKILL.md"]');
  if (input["scope"] !== undefined) expectOneOf(input["scope"], "scope", ["skills", "project"]);
  if (input["build"] !== undefined) expectBoolean(input["build"], "build");
  if (input["onFindings"] !== undefined) expectFunction(input["onFindings"], "onFindings");
}

/** The findings callback, called at most once: early when the compile reaches its last stages, else with the result. */
function onceOnly(onFindings: AnalyzeInput["onFindings"]): (diagnostics: readonly Diagnostic[]) => void | Promise<void> {
  let told = onFindings === undefined;
  return (diagnostics) => {
    if (told) return;
    told = true;
    return onFindings?.(diagnostics);
  };
}

async function analyzeOnce(
  root: string,
  outDir: string,
  outRel: string,
  session: BuildSession,
  changedPaths: readonly string[] | undefined,
  overrides: SourceOverrides | undefined,
  scope: "skills" | "project",
  build: boolean,
  tellFindings: (diagnostics: readonly Diagnostic[]) => void | Promise<void>,
  acceptedToolParameters: AcceptedToolParameters,
): Promise<ProjectAnalysis> {
  const lintConfig = readLintConfig(root, undefined, overrides);
  const detected = detectProfile(root);
  const profile = lintConfig.config.profile ?? detected;
  const compiles = (build || profile === "gamma") && detected === "gamma";
  if (!compiles || scope === "skills") {
    // The compiler's own settings when it will compile next: its checked files are then reused, not made again.
    const settings = {
      profile,
      layout: { ...lintConfig.config.layout, outDir: outRel },
      rules: lintConfig.config.rules,
      reportEmpty: !compiles,
      checklists: compiles,
      // As lint: only a plain collection's skill names are scoped by plugin.
      namesByPlugin: profile === "agentskills" && !isAgentProject(root, profile),
      ...(lintConfig.config.skillTypes ? { skillTypes: lintConfig.config.skillTypes } : {}),
      ...(overrides ? { sourceOverrides: overrides } : {}),
    };
    const linted = await lintSkills(root, session, changedPaths, settings);
    // An agent that is not compiled (its config gives lint the agentskills profile) has its other sources checked as lint checks them.
    const agentFindings =
      !compiles && scope === "project" && isAgentProject(root, profile)
        ? await (await import("./pipeline/lint-skills/project-checks.js")).agentSourceFindings(root, session, linted, lintConfig.config, { ...(changedPaths ? { changedPaths } : {}), ...(overrides ? { overrides } : {}), acceptedToolParameters })
        : [];
    const diagnostics = withoutRepeats([...lintConfig.diagnostics, ...linted.diagnostics, ...agentFindings]).sort(compareDiagnostics);
    await tellFindings(diagnostics);
    return { profile, diagnostics, ...countDiagnostics(diagnostics), skillFiles: linted.files };
  }
  const { compileProject } = await import("./pipeline/compile/compile.js");
  const compiled = await compileProject(root, session, changedPaths, { outDir: outRel, ...(overrides ? { sourceOverrides: overrides } : {}), onFindingsFinal: tellFindings, acceptedToolParameters });
  await tellFindings(compiled.diagnostics);
  const analysis: ProjectAnalysis = {
    // The build's own rule set.
    profile: "gamma",
    diagnostics: compiled.diagnostics,
    errorCount: compiled.errorCount,
    warningCount: compiled.warningCount,
    noteCount: compiled.noteCount,
    skillFiles: compiled.skillFiles ?? [],
  };
  if (compiled.sources) analysis.sources = compiled.sources;
  if (compiled.manifest) analysis.manifest = compiled.manifest;
  if (compiled.artifacts) {
    analysis.artifacts = compiled.artifacts;
    const planText = compiled.artifacts.get(CACHE_PLAN_FILE);
    if (typeof planText === "string") {
      const plan = JSON.parse(planText) as CachePlan;
      analysis.cachePlan = plan;
      // What these sources would cost the output folder's cached blocks (nothing when the plans are the same bytes).
      const invalidation = (await import("./cost/variant-prompts.js")).invalidationAgainstOutput(outDir, compiled.artifacts);
      if (invalidation !== undefined && invalidation.length > 0) analysis.invalidation = invalidation;
    }
  }
  return analysis;
}

type AcceptedToolParameters = (tool: ToolSchemaArtifact) => boolean;

function toOverrides(buffers: ReadonlyMap<string, string> | undefined): SourceOverrides | undefined {
  if (!buffers || buffers.size === 0) return undefined;
  const overrides = new Map<string, ReturnType<typeof overrideSource>>();
  for (const [path, text] of buffers) overrides.set(path, overrideSource(path, text, path.endsWith("/SKILL.md") ? SKILL_READ_RULES : sourceReadRules(path)));
  return overrides;
}

