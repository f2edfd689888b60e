/**
 * Every function the library reference documents, called from plain
 * JavaScript with what its types do not allow: a TypeError (a wrong type) or
 * a RangeError naming the argument or option and what it takes, before any
 * file is read or written; never Node's message about `paths[0]`, a
 * `... is not a function` from deep inside, or a value quietly taken for
 * another (a string of paths read as its characters).
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  audit,
  build,
  builtPrompt,
  cacheImpact,
  check,
  collectReport,
  compiledPrompt,
  ConfigFileError,
  createProjectAnalyzer,
  discoverSkills,
  findProject,
  formatDiagnostics,
  formatExplanation,
  formatSummary,
  init,
  lint,
  ProjectRootError,
  projectsBelow,
  renderReportHtml,
  renderReportMarkdown,
  RESULTS_FORMAT,
  skillGraph,
  watch,
  withAvailableFixes,
} from "../../src/index.js";

/** A value a plain JavaScript caller passes, whatever the types say. */
const js = (value: unknown): never => value as never;

/** A folder that holds nothing: a call refused at its arguments leaves it empty. */
const empty = mkdtempSync(join(tmpdir(), "gamma-arguments-"));

async function refusal(call: () => unknown): Promise<Error> {
  let caught: unknown;
  try {
    await call();
  } catch (error) {
    caught = error;
  }
  expect(caught, "expected the call to throw").toBeInstanceOf(Error);
  return caught as Error;
}

const cases: Array<[string, () => unknown, typeof TypeError | typeof RangeError, string]> = [
  ["findProject()", () => findProject(js(undefined)), TypeError, "Unexpected findProject from undefined, expected the folder to look from, such as process.cwd()"],
  ["projectsBelow(5)", () => projectsBelow(js(5)), TypeError, "Unexpected projectsBelow from 5, expected the folder to look below, such as process.cwd()"],
  ["discoverSkills()", () => discoverSkills(js(undefined)), TypeError, 'Unexpected discoverSkills root undefined, expected the project root, such as "."'],
  ["formatDiagnostics, a finding that is none", () => formatDiagnostics("stylish", js([{}]), { errorCount: 0, warningCount: 0 }), TypeError, "Unexpected diagnostics[0] an object, expected a finding such as lint returns ({ file, line, column, severity, ruleId, message })"],
  ["cacheImpact(folder)", () => cacheImpact(js(".")), TypeError, 'Unexpected cacheImpact options ".", expected an object such as { root: "." }'],
  ["cacheImpact()", () => cacheImpact(js(undefined)), TypeError, 'Unexpected cacheImpact options undefined, expected an object such as { root: "." }'],
  ["cacheImpact root", () => cacheImpact(js({ root: 5 })), TypeError, 'Unexpected root 5, expected the project\'s folder, such as "."'],
  ["createProjectAnalyzer(folder)", () => createProjectAnalyzer(js(".")), TypeError, 'Unexpected createProjectAnalyzer options ".", expected an object such as { root: "." }'],
  ["createProjectAnalyzer outDir", () => createProjectAnalyzer(js({ root: empty, outDir: 5 })), TypeError, 'Unexpected outDir 5, expected the output folder, relative to the root unless absolute, such as "dist"'],
  ["init(folder)", () => init(js(".")), TypeError, 'Unexpected init options ".", expected an object such as { dir: "." }'],
  ["init()", () => init(js(undefined)), TypeError, 'Unexpected init options undefined, expected an object such as { dir: "." }'],
  ["init without dir", () => init(js({ template: "gamma" })), TypeError, 'Unexpected dir undefined, expected the folder to set up, such as "."'],
  ["init skillGlobs as a string", () => init(js({ dir: empty, skillGlobs: "skills/*" })), TypeError, 'Unexpected skillGlobs "skills/*", expected an array of globs for the config\'s "skills", such as ["skills/*"]'],
  ["init skillGlobs entry", () => init(js({ dir: empty, skillGlobs: ["skills/*", 5] })), TypeError, "Unexpected skillGlobs[1] 5, expected a string"],
  [
    "init skillTypes as an object",
    () => init(js({ dir: empty, skillTypes: { "skills/review": "workflow" } })),
    TypeError,
    'Unexpected skillTypes an object, expected an array of { folder, type, reason }, such as [{ folder: "skills/review", type: "workflow", reason: "numbered steps" }]',
  ],
  ["init skillTypes type", () => init(js({ dir: empty, skillTypes: [{ folder: "skills/review", type: "procedure" }] })), TypeError, 'Unexpected skillTypes[0].type "procedure", expected "workflow" or "reference"'],
  ["init skillTypes folder", () => init(js({ dir: empty, skillTypes: [{ type: "workflow" }] })), TypeError, 'Unexpected skillTypes[0].folder undefined, expected the skill\'s folder relative to the project, such as "skills/review"'],
  ["init name", () => init(js({ dir: empty, name: 5 })), TypeError, "Unexpected name 5, expected the agent's name, one line"],
  ["init force", () => init(js({ dir: empty, force: "yes" })), TypeError, 'Unexpected force "yes", expected true or false'],
  ["build signal", () => build(js({ root: empty, signal: "x" })), TypeError, 'Unexpected signal "x", expected an AbortSignal, such as new AbortController().signal'],
  ["build signal object", () => build(js({ root: empty, signal: {} })), TypeError, "Unexpected signal an object, expected an AbortSignal, such as new AbortController().signal"],
  ["lint signal", () => lint(js({ root: empty, signal: true })), TypeError, "Unexpected signal true, expected an AbortSignal, such as new AbortController().signal"],
  [
    "analyze buffers as an object",
    () => createProjectAnalyzer({ root: empty }).analyze(js({ buffers: { "skills/x/SKILL.md": "---\nname: x\n---\n" } })),
    TypeError,
    'Unexpected buffers an object, expected a Map of root-relative path to unsaved text, such as new Map([["skills/x/SKILL.md", "…"]])',
  ],
  ["analyze buffers entry", () => createProjectAnalyzer({ root: empty }).analyze(js({ buffers: new Map([["skills/x/SKILL.md", 5]]) })), TypeError, 'Unexpected buffers.get("skills/x/SKILL.md") 5, expected a string'],
  [
    "analyze changedPaths as a string",
    () => createProjectAnalyzer({ root: empty }).analyze(js({ changedPaths: "skills/x/SKILL.md" })),
    TypeError,
    'Unexpected changedPaths "skills/x/SKILL.md", expected an array of root-relative paths, such as ["skills/x/SKILL.md"]',
  ],
  ["analyze scope", () => createProjectAnalyzer({ root: empty }).analyze(js({ scope: "lint" })), TypeError, 'Unexpected scope "lint", expected "skills" or "project"'],
  ["analyze onFindings", () => createProjectAnalyzer({ root: empty }).analyze(js({ onFindings: "publish" })), TypeError, 'Unexpected onFindings "publish", expected a function'],
  [
    "analyze(text)",
    () => createProjectAnalyzer({ root: empty }).analyze(js("skills/x/SKILL.md")),
    TypeError,
    'Unexpected analyze input "skills/x/SKILL.md", expected an object such as { buffers: new Map([["skills/x/SKILL.md", "…"]]), changedPaths: ["skills/x/SKILL.md"] }',
  ],
  ["build outDir", () => build(js({ root: empty, outDir: 5 })), TypeError, 'Unexpected outDir 5, expected the output folder, relative to the root unless absolute, such as "dist"'],
  ["build cache", () => build(js({ root: empty, cache: "x" })), TypeError, 'Unexpected cache "x", expected a build cache from createBuildCache()'],
  ["build changedPaths", () => build(js({ root: empty, changedPaths: "skills/a/SKILL.md" })), TypeError, 'Unexpected changedPaths "skills/a/SKILL.md", expected an array of root-relative paths'],
  ["build persistentCache", () => build(js({ root: empty, persistentCache: "no" })), TypeError, 'Unexpected persistentCache "no", expected true or false'],
  ["build lockWaitMs", () => build(js({ root: empty, lockWaitMs: "10" })), TypeError, 'Unexpected lockWaitMs "10", expected a number of milliseconds'],
  ["build lockWaitMs, negative", () => build(js({ root: empty, lockWaitMs: -1 })), RangeError, "Unexpected lockWaitMs -1, expected a number of milliseconds, 0 or more (Infinity waits as long as the other build runs)"],
  ["check outDir", () => check(js({ root: empty, outDir: 5 })), TypeError, 'Unexpected outDir 5, expected the output folder, relative to the root unless absolute, such as "dist"'],
  ["check full", () => check(js({ root: empty, full: "yes" })), TypeError, 'Unexpected full "yes", expected true or false'],
  ["lint fixFiles as a string", () => lint(js({ root: empty, fix: "write", fixFiles: "skills/x/SKILL.md" })), TypeError, 'Unexpected fixFiles "skills/x/SKILL.md", expected an array of root-relative SKILL.md paths, such as ["skills/x/SKILL.md"]'],
  ["lint fixFiles entry", () => lint(js({ root: empty, fix: "dry-run", fixFiles: [5] })), TypeError, "Unexpected fixFiles[0] 5, expected a string"],
  ["lint checklists", () => lint(js({ root: empty, checklists: "no" })), TypeError, 'Unexpected checklists "no", expected true or false'],
  ["lint reportEmpty", () => lint(js({ root: empty, reportEmpty: "false" })), TypeError, 'Unexpected reportEmpty "false", expected true or false'],
  ["lint profile", () => lint(js({ root: empty, profile: "claude" })), TypeError, 'Unexpected profile "claude", expected "gamma" or "agentskills"'],
  ["lint config", () => lint(js({ root: empty, config: 5 })), TypeError, "Unexpected config 5, expected a config file's path"],
  ["watch debounceMs", () => watch(js({ root: empty, onEvent: () => {}, debounceMs: "x" })), TypeError, 'Unexpected debounceMs "x", expected a number of milliseconds (at least 60)'],
  ["watch debounceMs, too short", () => watch(js({ root: empty, onEvent: () => {}, debounceMs: 5 })), RangeError, "Unexpected debounceMs 5, expected a number of milliseconds from 60 to 60000"],
  ["watch debounceMs, not finite", () => watch(js({ root: empty, onEvent: () => {}, debounceMs: Infinity })), RangeError, "Unexpected debounceMs Infinity, expected a number of milliseconds from 60 to 60000"],
  ["audit({})", () => audit(js({})), TypeError, "Unexpected files undefined, expected an array of transcript files (JSONL)"],
  ["audit(folder)", () => audit(js(".")), TypeError, 'Unexpected audit options ".", expected an object such as { root: ".", files: ["sessions/deck-42.jsonl"] }'],
  ["audit files entry", () => audit(js({ files: [5] })), TypeError, "Unexpected files[0] 5, expected a string"],
  ["audit distDir", () => audit(js({ files: [], distDir: 5 })), TypeError, "Unexpected distDir 5, expected a string"],
  ["collectReport(folder)", () => collectReport(js(".")), TypeError, 'Unexpected collectReport options ".", expected an object such as { root: "." }'],
  ["collectReport base", () => collectReport(js({ root: empty, base: 5 })), TypeError, "Unexpected base 5, expected a string"],
  ["collectReport evals", () => collectReport(js({ root: empty, evals: "results.json" })), TypeError, 'Unexpected evals "results.json", expected an eval --format json results document (parsed)'],
  ["collectReport lint", () => collectReport(js({ root: empty, lint: "no" })), TypeError, 'Unexpected lint "no", expected true or false'],
  ["renderReportHtml()", () => renderReportHtml(js(undefined)), TypeError, "Unexpected renderReportHtml data undefined, expected the report data, what collectReport returns"],
  ["renderReportMarkdown(text)", () => renderReportMarkdown(js("report.json")), TypeError, 'Unexpected renderReportMarkdown data "report.json", expected the report data, what collectReport returns'],
  [
    "renderReportHtml layout",
    () => renderReportHtml(js({ generator: "gamma-prompt", tokenizer: "o200k_base", cacheKey: "c", layout: {}, cost: {}, skills: {} })),
    TypeError,
    "Unexpected data.layout an object, expected an array of variants, as in what collectReport returns",
  ],
  ["withAvailableFixes root", () => withAvailableFixes(js(5), [], "gamma"), TypeError, 'Unexpected withAvailableFixes root 5, expected the project\'s folder, such as "."'],
  ["withAvailableFixes diagnostics", () => withAvailableFixes(".", js("x"), "gamma"), TypeError, "Unexpected diagnostics \"x\", expected an array of findings (a lint result's diagnostics)"],
  ["withAvailableFixes profile", () => withAvailableFixes(".", [], js(undefined)), TypeError, 'Unexpected profile undefined, expected "gamma" or "agentskills"'],
  ["withAvailableFixes texts", () => withAvailableFixes(".", [], "gamma", js({})), TypeError, "Unexpected texts an object, expected a Map from root-relative SKILL.md paths to their unsaved text"],
  ["withAvailableFixes texts entry", () => withAvailableFixes(".", [], "gamma", js(new Map([["skills/x/SKILL.md", 5]]))), TypeError, 'Unexpected texts.get("skills/x/SKILL.md") 5, expected a string'],
  ["skillGraph()", () => skillGraph(js(undefined), "x"), TypeError, "Unexpected skills undefined, expected an array of skills (a lint result's skills)"],
  ["skillGraph name", () => skillGraph([], js(5)), TypeError, "Unexpected name 5, expected a skill's name"],
  ["skillGraph variants", () => skillGraph([], "x", js("base")), TypeError, 'Unexpected variants "base", expected an object of variants by name, each with its preloadedSkills (the manifest\'s variants)'],
  ["compiledPrompt()", () => compiledPrompt(js(undefined), js(undefined), "base"), TypeError, "Unexpected artifacts undefined, expected the build's artifacts (a Map, as createProjectAnalyzer's analysis holds them)"],
  ["compiledPrompt plan", () => compiledPrompt(new Map(), js(undefined), "base"), TypeError, "Unexpected cachePlan undefined, expected the build's cache plan (the analysis's cachePlan)"],
  ["compiledPrompt variant", () => compiledPrompt(new Map(), js({ variants: {} }), js(5)), TypeError, 'Unexpected variant 5, expected a variant name, such as "base"'],
  ["builtPrompt()", () => builtPrompt(js(undefined), "base"), TypeError, 'Unexpected outDir undefined, expected the output folder, such as "dist"'],
  ["builtPrompt variant", () => builtPrompt(empty, js(5)), TypeError, 'Unexpected variant 5, expected a variant name, such as "base"'],
  ["formatExplanation(null)", () => formatExplanation(js(null)), TypeError, 'Unexpected explanation null, expected what explainRule returns, such as explainRule("skill/description-trigger")'],
  ["formatSummary()", () => formatSummary(js(undefined)), TypeError, `Unexpected formatSummary results undefined, expected "format": "${RESULTS_FORMAT}" (runEvals' results, or a parsed eval --format json document)`],
  [
    "formatSummary results without a field the summary reads",
    () => formatSummary(js({ format: RESULTS_FORMAT, model: "openai/gpt-5", cacheKey: "c", scenarios: [] })),
    TypeError,
    `Unexpected formatSummary results an object, expected "mode" to be one of live, record, replay (runEvals' results, or a parsed eval --format json document)`,
  ],
  [
    "formatSummary spelling",
    () => formatSummary(js({ format: RESULTS_FORMAT, model: "openai/gpt-5", mode: "replay", cacheKey: "c", runs: 1, confidence: { method: "wilson", level: 0.95 }, threshold: 0.8, passed: true, scenarios: [] }), js("bogus")),
    TypeError,
    'Unexpected spelling "bogus", expected "library" or "cli"',
  ],
];

describe("the library's documented functions, given arguments their types do not allow", () => {
  it.each(cases)("%s: names the argument and what it takes", async (_name, call, type, message) => {
    const error = await refusal(call);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toBe(message);
    expect(readdirSync(empty)).toEqual([]);
  });
});

describe("an empty string where a path belongs passes the argument checks, to what the path itself means", () => {
  it("an empty outDir is the root itself, refused as such; an empty config names no file", async () => {
    const built = await refusal(() => build({ root: empty, outDir: "" }));
    expect(built).toBeInstanceOf(ProjectRootError);
    expect(built.message).toBe('output folder "" holds the project root, expected a folder of its own such as "dist"');
    const linted = await refusal(() => lint({ root: empty, config: "" }));
    expect(linted).toBeInstanceOf(ConfigFileError);
    expect(linted.message).toBe("--config names no file (an empty name)");
    expect(readdirSync(empty)).toEqual([]);
  });
});
