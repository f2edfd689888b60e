/**
 * `runEvals`: evaluation scenarios run N times each through the real
 * runtime, against a live model (`provider/id`), a scripted one, or
 * recorded cassettes; runs in parallel up to a bound; pass rates per
 * scenario and per expectation with 95% Wilson intervals; optional
 * comparison with a baseline results document.
 */
import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../package-paths.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { loadArtifacts, type LoadedArtifacts } from "../runtime/artifacts.js";
import type { ModelCallContext } from "./model-context.js";
import { modelCatalog, observedStreamFn, registerScriptedModel, type Api, type Model, type ModelContext, type ScriptedReply } from "./pi-models.js";
import { cassettePath, cassetteReply, cassetteWriteProblem, contextFingerprint, isFailedReply, writeCassettes, type Cassette, type CassetteCall } from "./cassette.js";
import { judgeRun } from "./expectations.js";
import { chooseModel, EvalUsageError } from "./models.js";
import type { OptionNames, OptionSpelling } from "./option-names.js";
import { checkEvalOptions } from "./options.js";
import { compareWithBaseline, RESULTS_FORMAT, scenarioResult, staleRuns, unansweredRuns, type EvalMode, type EvalResults, type RunResult } from "./results.js";
import { display, replayedModel, replayPlans, type RunPlan } from "./plans.js";
import { pool } from "./pool.js";
import { runScenario } from "./run.js";
import { DEFAULT_MAX_MODEL_CALLS, expectationKind, loadScenarios, type LoadedScenario } from "./scenario.js";
import { messageOf } from "../protocol/error-message.js";

export { EvalUsageError } from "./usage-error.js";
export type { ModelCallContext, ModelContentPart, ModelMessage, ModelTool } from "./model-context.js";

/** The folder scenarios are found in when none are named. */
export const EVALS_DIR = "evals";
export { baseUrlProblem, DEFAULT_CONCURRENCY, MAX_RUNS } from "./options.js";

/** What a scripted model answers on one call: text and tool calls (ids are given in call order). */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface ScriptedCall {
  scenario: string;
  run: number;
  /** 1-based. */
  call: number;
  /** Everything the model gets on this call. */
  context: ModelCallContext;
}

/** A model played by a script, on pi-ai's faux provider: no key, no network. Results name it `scripted/<name>`. */
export interface ScriptedModel {
  name: string;
  respond(call: ScriptedCall): ScriptedTurn | Promise<ScriptedTurn>;
}

export interface EvalOptions {
  /** Scenario files; default: every `evals/*.yaml` under `root`. */
  scenarios?: readonly string[];
  /** The project folder (default: the working folder); paths in results are relative to the working folder. */
  root?: string;
  /** The dist/ to evaluate (default: `<root>/dist`). */
  distDir?: string;
  /** `provider/id` from pi-ai's registry; its key comes from the environment. Not needed with `replay` or `scriptedModel`. */
  model?: string;
  /** Another endpoint for the model (a proxy or a gateway speaking the provider's API). */
  baseUrl?: string;
  scriptedModel?: ScriptedModel;
  /** Runs per scenario (default 1; with `replay`, every recorded cassette). */
  runs?: number;
  /** Runs in flight at once (default 4). */
  concurrency?: number;
  /** Store the model's replies as cassettes (`<scenario folder>/cassettes/<scenario>/<run>.json`), replacing earlier ones. */
  record?: boolean;
  /** Answer from the cassettes through pi-ai's faux provider instead of a model. */
  replay?: boolean;
  /** A scenario passes when at least this share of its runs passes (default 1). */
  threshold?: number;
  /** An earlier results document to compare with. */
  baseline?: EvalResults;
  /** Called after each finished run. */
  onProgress?: (done: number, total: number) => void;
}

export interface EvalOutcome {
  /** Problems in the scenario files: when there are any, nothing ran. */
  diagnostics: Diagnostic[];
  results?: EvalResults;
}

export async function runEvals(options: EvalOptions, spelling: OptionSpelling = "library"): Promise<EvalOutcome> {
  const { named, mode, runs, concurrency, threshold } = checkEvalOptions(options, spelling);
  const cwd = process.cwd();
  const root = resolve(cwd, options.root ?? ".");

  const artifacts = loadArtifacts({ distDir: resolve(root, options.distDir ?? "dist") });
  // A file named twice (a glob and its name, say) is one scenario, not two with the same id.
  const files = options.scenarios === undefined ? discoverScenarios(root, cwd) : [...new Map(options.scenarios.map((file) => [resolve(cwd, file), file])).values()];
  if (files.length === 0) {
    // Nothing to measure is no pass: a CI line keeps failing until the first scenario and its cassettes are committed.
    const folder = `${display(join(root, EVALS_DIR), cwd) || "."}/`;
    throw new EvalUsageError(
      `Unexpected evaluation without scenarios: no *.yaml in ${folder}, expected a scenario file there for each case to measure (how to write one: ${scenariosGuide(cwd)}), then its cassettes recorded with ${named.recordFirst}; ${named.replay} replays them`,
    );
  }
  const { scenarios, diagnostics } = loadScenarios(files, artifacts, cwd);
  if (diagnostics.length > 0) return { diagnostics };

  // Everything that can be wrong with the model, its key or the cassettes is found before the first run.
  const catalog = mode === "replay" || options.scriptedModel !== undefined ? undefined : await modelCatalog();
  const chosen = catalog === undefined || options.model === undefined ? undefined : chooseModel(options.model, catalog, { named, ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }) });
  const plans = mode === "replay" ? replayPlans(scenarios, runs, cwd, named) : scenarios.flatMap((loaded) => Array.from({ length: runs ?? 1 }, (_, index) => ({ loaded, run: index + 1 })));
  const modelName = mode === "replay" ? replayedModel(plans) : options.scriptedModel !== undefined ? `scripted/${options.scriptedModel.name}` : (chosen?.spec ?? "");
  if (mode === "record") {
    for (const loaded of scenarios) {
      const problem = cassetteWriteProblem(loaded.cassetteDir);
      if (problem === undefined) continue;
      throw new EvalUsageError(`Unexpected cassettes folder ${display(loaded.cassetteDir, cwd)}/ that cannot be written (${problem}), expected a folder this user can write before any model call is made`);
    }
  }

  let done = 0;
  const runResults = await pool(plans, concurrency, async (plan) => {
    const outcome = await runOnce(plan, { artifacts, mode, chosen, scriptedModel: options.scriptedModel, modelName, cwd, named });
    options.onProgress?.(++done, plans.length);
    return outcome;
  });
  const scenarioResults = scenarios.map((loaded) => {
    const outcomes = runResults.filter((_, index) => plans[index]?.loaded === loaded);
    // A recording replaces a scenario's cassettes only when every run recorded cleanly: a failed call is no reply.
    let notRecorded = mode === "record" ? outcomes.find((outcome) => outcome.notRecorded !== undefined)?.notRecorded : undefined;
    if (mode === "record" && notRecorded === undefined) {
      try {
        writeCassettes(loaded.cassetteDir, outcomes.flatMap((outcome) => (outcome.cassette === undefined ? [] : [outcome.cassette])));
      } catch (error) {
        // Checked before the runs, so the folder changed while they ran: the runs' results still count, the old cassettes stay.
        notRecorded = `its cassettes could not be written to ${display(loaded.cassetteDir, cwd)}/ (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`;
      }
    }
    return scenarioResult({
      name: loaded.scenario.name,
      file: loaded.file,
      variant: loaded.scenario.variant,
      expectationIds: loaded.scenario.expect.map((expectation) => ({ id: expectation.id, kind: expectationKind(expectation) })),
      runs: outcomes.map((outcome) => (notRecorded === undefined ? outcome.result : withoutCassette(outcome.result))),
      threshold,
      ...(notRecorded === undefined ? {} : { notRecorded }),
    });
  });
  const stale = staleRuns(scenarioResults);
  const unanswered = unansweredRuns(scenarioResults);
  const baseline = options.baseline === undefined ? undefined : compareWithBaseline(options.baseline, scenarioResults);
  const results: EvalResults = {
    format: RESULTS_FORMAT,
    model: modelName,
    mode,
    cacheKey: artifacts.manifest.staticPrefix.cacheKey,
    runs: mode === "replay" ? Math.max(0, ...scenarioResults.map((scenario) => scenario.runResults.length)) : (runs ?? 1),
    confidence: { method: "wilson", level: 0.95 },
    threshold,
    // A stale or unanswered run measured nothing: it fails the evaluation whatever the threshold.
    passed: scenarioResults.every((scenario) => scenario.pass) && stale === 0 && unanswered === 0 && (baseline?.regressions.length ?? 0) === 0,
    ...(stale === 0 ? {} : { stale }),
    ...(unanswered === 0 ? {} : { unanswered }),
    scenarios: scenarioResults,
    ...(baseline === undefined ? {} : { baseline }),
  };
  return { diagnostics: [], results };
}

/** The guide's Scenarios section in the installed package, from the working folder (a project's subfolder, a hoisted install). */
function scenariosGuide(cwd: string): string {
  return `${display(fileURLToPath(new URL("docs/guide/evaluations-and-audits.md", packageRoot)), cwd)}#scenarios`;
}

function discoverScenarios(root: string, cwd: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, EVALS_DIR));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return [];
    // A folder that cannot be listed is not an empty one: "write a scenario" would be the wrong advice.
    const folder = `${display(join(root, EVALS_DIR), cwd) || "."}/`;
    throw new EvalUsageError(`Unexpected scenarios folder ${folder} that cannot be read (${code ?? String(error)}), expected a folder of *.yaml scenarios this user can read`);
  }
  return names
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => relative(cwd, join(root, EVALS_DIR, name)));
}

interface RunContext {
  artifacts: LoadedArtifacts;
  mode: EvalMode;
  chosen: ReturnType<typeof chooseModel> | undefined;
  scriptedModel: ScriptedModel | undefined;
  modelName: string;
  cwd: string;
  named: OptionNames;
}

interface RunOutcome {
  result: RunResult;
  cassette?: Cassette;
  /** With `record`: why this run is no recording (a model call failed). */
  notRecorded?: string;
}

async function runOnce(plan: RunPlan, context: RunContext): Promise<RunOutcome> {
  const { loaded, run } = plan;
  const path = cassettePath(loaded.cassetteDir, run);
  if (plan.stale !== undefined) return { result: staleResult(run, plan.stale, 0, display(path, context.cwd)) };
  const cap = loaded.scenario.maxModelCallsPerRun ?? DEFAULT_MAX_MODEL_CALLS;
  const recorded: CassetteCall[] = [];
  const fingerprints: string[] = [];
  let stale: string | undefined;
  let unrecorded: string | undefined;
  let failedCall: string | undefined;
  let declined = false;
  let capped = false;
  // The calls that went out: a call refused over the cap never reaches the provider, so it is not counted.
  let sent = 0;
  const streamFn = await observedStreamFn({
    onCall: (index, callContext) => {
      fingerprints[index] = contextFingerprint(callContext);
      if (index < cap) {
        sent += 1;
        return undefined;
      }
      capped = true;
      return `stopped after ${cap} model calls (the scenario's maxModelCallsPerRun)`;
    },
    onReply: (index, reply) => {
      if (isFailedReply(reply)) failedCall ??= `model call ${index + 1} failed (${reply.stopReason}): ${reply.errorMessage ?? "no message"}`;
      else {
        recorded[index] = { context: fingerprints[index] ?? "", reply: cassetteReply(reply) };
        // The model declined (a refusal, a content filter): the run ends in error, but that is its answer.
        if (reply.stopReason === "error") declined = true;
      }
    },
    onReplyError: (index, error) => {
      unrecorded ??= `model call ${index + 1}'s reply could not be recorded: ${messageOf(error)}`;
    },
  });
  let model: Model<Api>;
  let unregister = (): void => {};
  if (context.chosen !== undefined) model = context.chosen.model;
  else {
    const cassette = plan.cassette;
    const [provider, ...rest] = (cassette?.model ?? `scripted/${context.scriptedModel?.name ?? "model"}`).split("/");
    const scripted = await registerScriptedModel({
      provider: provider ?? "scripted",
      modelId: rest.join("/"),
      maxCalls: cap,
      respond: async (callContext, index): Promise<ScriptedReply> => {
        if (cassette === undefined) return scriptedReply(await (context.scriptedModel as ScriptedModel).respond({ scenario: loaded.scenario.name, run, call: index + 1, context: callContext }), index);
        const call = cassette.calls[index];
        // The observer fingerprinted this very context a moment ago, as the call started.
        const fingerprint = fingerprints[index] ?? contextFingerprint(callContext);
        if (call === undefined) stale = `cassette ${display(cassettePath(loaded.cassetteDir, run), context.cwd)} has ${cassette.calls.length} model calls, the run made a call ${index + 1}; re-record it with ${context.named.record}`;
        else if (call.context !== fingerprint) stale = staleMessage(cassette, index, context, display(cassettePath(loaded.cassetteDir, run), context.cwd));
        if (stale !== undefined) return { content: [], stopReason: "error", errorMessage: stale };
        return (call as CassetteCall).reply;
      },
    });
    model = scripted.model;
    unregister = scripted.unregister;
  }
  let trace;
  try {
    trace = await runScenario({
      loaded,
      artifacts: context.artifacts,
      model,
      streamFn,
      ...(context.chosen === undefined ? {} : { getApiKey: () => context.chosen?.apiKey }),
    });
  } finally {
    unregister();
  }
  // Pi ends a refused call with an assistant message of its own: the trace counts it, the provider never saw it.
  trace.modelCalls = sent;
  if (stale !== undefined) return { result: staleResult(run, stale, trace.modelCalls, display(path, context.cwd)) };
  if (unrecorded !== undefined) trace.error = unrecorded;
  // A model call that got no reply (a provider error, a refused connection) measured nothing about the model:
  // the run is not evaluated, as a replay of a cassette that recorded a failed call is not.
  const noReply: string | undefined = context.mode === "replay" ? undefined : failedCall;
  const unanswered = noReply !== undefined;
  const verdicts = judgeRun(loaded.scenario, trace, context.artifacts);
  const failures = verdicts.filter((verdict) => !verdict.passed).map((verdict) => ({ expectation: verdict.id, reason: verdict.reason ?? "" }));
  const result: RunResult = {
    run,
    passed: !unanswered && failures.length === 0,
    modelCalls: trace.modelCalls,
    failures: unanswered ? [] : failures,
    ...(noReply !== undefined ? { unanswered: true as const, error: noReply } : trace.error === undefined ? {} : { error: trace.error }),
    ...(trace.unfixtured.length === 0 ? {} : { unfixtured: trace.unfixtured.length }),
    ...(context.mode === "live" ? {} : { cassette: display(path, context.cwd) }),
  };
  if (context.mode !== "record") return { result };
  // A run stopped at the cap, or by the model declining, replays the same way; any other error (a provider's
  // client that threw) is no recording.
  const notRecorded = failedCall ?? unrecorded ?? (trace.error !== undefined && !capped && !declined ? trace.error : undefined);
  if (notRecorded !== undefined) return { result, notRecorded: `run ${run}: ${notRecorded}` };
  const cassette: Cassette = {
    format: "gamma-prompt/eval-cassette@1",
    scenario: loaded.scenario.name,
    run,
    model: context.modelName,
    cacheKey: context.artifacts.manifest.staticPrefix.cacheKey,
    calls: recorded.filter((call) => call !== undefined),
  };
  return { result, cassette };
}

/** A run its cassette cannot answer: not evaluated, counted in no rate. */
function staleResult(run: number, message: string, modelCalls: number, cassette: string): RunResult {
  return { run, passed: false, stale: true, modelCalls, failures: [], error: message, cassette };
}

/** A run of a recording that was not written names no cassette. */
function withoutCassette(result: RunResult): RunResult {
  const { cassette: _written, ...rest } = result;
  return rest;
}

function staleMessage(cassette: Cassette, index: number, context: RunContext, path: string): string {
  const cacheKey = context.artifacts.manifest.staticPrefix.cacheKey;
  // The cache key covers the static prefix (catalog, descriptions) and the tool list; a skill's body or
  // checklist (preloaded in a variant's tail too), knowledge notes and namespaces' tools are outside it.
  const why =
    cassette.cacheKey !== cacheKey
      ? `dist/ changed since the recording (cache key ${cassette.cacheKey.slice(0, 12)} → ${cacheKey.slice(0, 12)})`
      : "dist/'s cache key is unchanged: a skill's body or checklist, a knowledge note, a tool namespace, the scenario or the runtime changed since the recording";
  return `stale cassette ${path}: the context of model call ${index + 1} differs from the recorded one (${why}); re-record it with ${context.named.record}`;
}

/** A scripted turn as a reply: tool calls get ids from their position (`call_<call>_<n>`), so replies are byte-stable. */
function scriptedReply(turn: ScriptedTurn, index: number): ScriptedReply {
  const calls = turn.toolCalls ?? [];
  return {
    content: [
      ...(turn.text === undefined ? [] : [{ type: "text" as const, text: turn.text }]),
      ...calls.map((call, position) => ({ type: "toolCall" as const, id: `call_${index + 1}_${position + 1}`, name: call.name, arguments: call.arguments })),
      // A scenario's arguments are parsed YAML: JSON values, as pi-ai's tool calls require.
    ] as ScriptedReply["content"],
    stopReason: calls.length > 0 ? "toolUse" : "stop",
  };
}
