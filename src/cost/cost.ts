/**
 * `cost`: prices every cache policy for every variant of a built project
 * under a traffic profile, by simulating each provider's cache rules.
 * Reads dist/ (verified, with its cache plan) and the dated data file.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadArtifacts } from "../runtime/artifacts.js";
import type { CachePlan } from "../protocol/cache-plan.js";
import { resolveProfile, type ProviderModel, type TrafficProfile } from "./profile.js";
import { loadPromptCachingData, type AnthropicModelPrices, type Lifetime, type OpenAIModelPrices, type PromptCachingData } from "./rules.js";
import { anthropicWarmingPrices, openAIWarmingPrices, piGatePromptTokens, refreshSchedule, warmSession, type WarmingRow } from "./warming.js";
import { addsToolsInPlace, breakEvenTokens, loadCost, tokenPrices, upFrontCost, type SessionShape } from "./tool-policies.js";
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import { readCassette } from "../evals/cassette.js";
import { buildSchedule, simulateAnthropic, simulateOpenAI, type AnthropicPolicy, type OpenAIPolicy, type ProgressListener, type SimVariant, type Workload } from "./simulate.js";

export interface CostOptions {
  root?: string;
  /** Output folder relative to the root (default dist). */
  outDir?: string;
  /** A traffic profile (parsed JSON); defaults fill what it leaves out. */
  profile?: unknown;
  onProgress?: ProgressListener;
  /** A build to price instead of reading the output folder (an in-memory build of the sources). */
  artifacts?: Pick<LoadedArtifacts, "manifest" | "cachePlan">;
}

export interface CostRow {
  provider: ProviderModel["provider"];
  model: string;
  /** e.g. "plan breakpoints, 5m" or "per-session key, in-memory". */
  policy: string;
  /** The policy the runtime uses when the host sets nothing. */
  isDefault: boolean;
  variant: string;
  sessions: number;
  /** Cached input tokens over all input tokens. */
  cachedFraction: number;
  /** Input cost in dollars per 1,000 sessions (uncached input, cache reads and writes). */
  inputCostPer1000Sessions: number;
  /**
   * Tokens the first call of a session of this variant reads from the cache
   * right after one session of another variant (this variant's own blocks cold).
   */
  coldVariantRead: number;
}

export interface CostResult {
  profile: TrafficProfile & { sessionsPerMinute: Record<string, number> };
  /** Shards of the sharded-key policy (each key stays under the provider's per-key rate). */
  shards: number;
  /** Per variant: tokens of tools, tools + static prefix, and the whole variant. */
  blocks: Record<string, { toolsEnd: number; prefixEnd: number; variantEnd: number }>;
  rows: CostRow[];
  /** What Pi's cache warming would cost and save per model and variant, at the runtime's default retention. */
  warming: WarmingRow[];
  dataReadOn: string;
  /** Simulated model calls over all policies. */
  simulatedCalls: number;
  /** The tool policies, when the project has tool namespaces. */
  toolPolicies?: ToolPolicyReport;
}

/** Every namespace sent from session start, against namespaces loaded on demand, per model and variant. */
export interface ToolPolicyReport {
  /** Model calls a session makes before a load; the load adds one call. */
  callsBeforeLoad: number;
  namespaces: Array<{ name: string; tools: number; tokens: number; probability: number; probabilitySource: string }>;
  rows: ToolPolicyRow[];
  /**
   * Per model: the namespace size in tokens from which loading on demand
   * pays (undefined: never), at each namespace's probability and at the
   * reference probabilities, for the busiest variant's prompt.
   */
  breakEven: Array<{ provider: ProviderModel["provider"]; model: string; variant: string; probability: number; namespace?: string; inPlaceTokens?: number; resentTokens?: number }>;
}

export interface ToolPolicyRow {
  provider: ProviderModel["provider"];
  model: string;
  variant: string;
  /** Namespaces this variant loads on demand (the others it sends from the start anyway). */
  deferred: string[];
  /** Whether this model takes tool additions in place; otherwise the whole tool list is sent again. */
  inPlace: boolean;
  /** Input $ per 1,000 sessions: every namespace from the start, and on demand in place and re-sent. */
  upFront: number;
  onDemandInPlace: number;
  onDemandResent: number;
}

/** Per variant, the running token totals at the plan's block ends. */
export function planBoundaries(plan: CachePlan): Record<string, { toolsEnd: number; prefixEnd: number; variantEnd: number }> {
  const out: Record<string, { toolsEnd: number; prefixEnd: number; variantEnd: number }> = {};
  for (const [name, { blocks }] of Object.entries(plan.variants)) {
    const at = (block: string) => blocks.find((candidate) => candidate.name === block)?.cumulativeTokens;
    const prefixEnd = at("static-prefix") ?? 0;
    // The tools' breakpoint is on the stable tools: namespaces a variant sends from the start follow it without one.
    out[name] = { toolsEnd: at("tools") ?? 0, prefixEnd, variantEnd: at("variant-tail") ?? prefixEnd };
  }
  return out;
}

/**
 * The namespaces' tools a variant sends from session start, after the stable
 * tools ("" for none: variants share the static prefix's entry only with the
 * same list), and the tokens of all its start tools.
 */
function startTools(plan: CachePlan, variant: string): Pick<SimVariant, "startTools" | "startToolsEnd"> {
  const namespaces = (plan.variants[variant]?.blocks ?? []).filter((block) => block.name === "namespace-tools");
  const last = namespaces.at(-1);
  return { startTools: namespaces.map((block) => block.source).join("\n"), ...(last === undefined ? {} : { startToolsEnd: last.cumulativeTokens }) };
}

export function cost(options: CostOptions = {}): CostResult {
  const root = resolve(options.root ?? ".");
  const artifacts = options.artifacts ?? loadArtifacts({ distDir: resolve(root, options.outDir ?? "dist") });
  const data = loadPromptCachingData();
  const names = Object.keys(artifacts.cachePlan.variants);
  const profile = resolveProfile(options.profile, names, (provider, model) => Object.hasOwn(data.providers[provider].models, model), Object.keys(artifacts.manifest.namespaces ?? {}));
  const blocks = planBoundaries(artifacts.cachePlan);
  const variants: SimVariant[] = names.map((name) => ({
    ...(blocks[name] ?? { toolsEnd: 0, prefixEnd: 0, variantEnd: 0 }),
    name,
    sessionsPerMinute: profile.sessionsPerMinute[name] ?? 0,
    ...startTools(artifacts.cachePlan, name),
  }));
  const workload: Workload = {
    variants,
    durationSeconds: profile.durationMinutes * 60,
    callsPerSession: profile.callsPerSession,
    newTokensPerCall: profile.newTokensPerCall,
    secondsBetweenCalls: profile.secondsBetweenCalls,
  };
  const schedule = buildSchedule(workload);
  const shards = shardCount(profile, data);
  const runs = policies(profile.models, shards);
  const rows: CostRow[] = [];
  let done = 0;
  for (const run of runs) {
    const progress = options.onProgress === undefined ? undefined : (fraction: number) => options.onProgress?.((done + fraction) / runs.length);
    const outcome =
      run.policy.provider === "anthropic"
        ? simulateAnthropic(workload, schedule, run.policy, data.providers.anthropic.rules, data.providers.anthropic.models[run.model] as AnthropicModelPrices, progress)
        : simulateOpenAI(workload, schedule, run.policy, data.providers.openai.rules, data.providers.openai.models[run.model] as OpenAIModelPrices, progress);
    done++;
    const cold = coldVariantReads(workload, run, data);
    for (const variant of outcome) {
      rows.push({
        provider: run.policy.provider,
        model: run.model,
        policy: run.label,
        isDefault: run.isDefault,
        variant: variant.name,
        sessions: variant.sessions,
        cachedFraction: variant.inputTokens === 0 ? 0 : variant.cachedTokens / variant.inputTokens,
        inputCostPer1000Sessions: variant.sessions === 0 ? 0 : (variant.inputCost / variant.sessions) * 1000,
        coldVariantRead: cold.get(variant.name) ?? 0,
      });
    }
  }
  const toolPolicies = artifacts.manifest.namespaces === undefined ? undefined : priceToolPolicies(root, artifacts, profile, blocks, data);
  return { profile, shards, blocks, rows, warming: warmingRows(profile, workload, data), dataReadOn: data.readOn, simulatedCalls: schedule.session.length * runs.length, ...(toolPolicies ? { toolPolicies } : {}) };
}

/**
 * Per model and variant: Pi's refreshes over a session of the profile, at
 * the lifetime of a session's entry under the runtime's default retention
 * (Anthropic's 5-minute messages, OpenAI's in-memory idle expiry).
 */
function warmingRows(profile: TrafficProfile, workload: Workload, data: PromptCachingData): WarmingRow[] {
  const rules = data.cacheWarming;
  const rows: WarmingRow[] = [];
  for (const { provider, model } of profile.models) {
    const anthropic = data.providers.anthropic;
    const openai = data.providers.openai;
    const prices =
      provider === "anthropic"
        ? anthropicWarmingPrices(anthropic.rules, anthropic.models[model] as AnthropicModelPrices)
        : openAIWarmingPrices(openai.rules, openai.models[model] as OpenAIModelPrices);
    const ttlSeconds = provider === "anthropic" ? anthropic.rules.lifetimeSeconds["5m"] : openai.rules.idleExpirySeconds;
    const schedule = refreshSchedule(ttlSeconds, rules);
    const gate = piGatePromptTokens(prices, rules);
    const piWarmsProvider = rules.piLifetimeSeconds[provider] !== null;
    for (const variant of workload.variants) {
      const callsPerMinute = variant.sessionsPerMinute * workload.callsPerSession;
      const session = {
        variantTokens: variant.variantEnd,
        callsPerSession: workload.callsPerSession,
        newTokensPerCall: workload.newTokensPerCall,
        secondsBetweenCalls: workload.secondsBetweenCalls,
        // Other sessions keep the variant's blocks cached only when the model caches a prefix that short at all.
        variantStaysCached: callsPerMinute > 0 && 60 / callsPerMinute <= ttlSeconds && variant.variantEnd >= prices.minimumTokens,
      };
      const every = schedule === undefined ? undefined : warmSession(session, schedule, prices);
      const byPi = schedule === undefined || gate === undefined || !piWarmsProvider ? undefined : warmSession(session, schedule, prices, gate);
      const per1000 = (dollars: number) => dollars * 1000;
      rows.push({
        provider,
        model,
        variant: variant.name,
        ttlSeconds,
        refreshEverySeconds: schedule?.everySeconds ?? 0,
        maxRefreshes: schedule?.maxRefreshes ?? 0,
        refreshesPerSession: every?.refreshes ?? 0,
        refreshCostPer1000Sessions: per1000(every?.refreshCost ?? 0),
        missesAvoidedPerSession: every?.missesAvoided ?? 0,
        savedPer1000Sessions: per1000(every?.saved ?? 0),
        netPer1000Sessions: per1000((every?.saved ?? 0) - (every?.refreshCost ?? 0)),
        piGatePromptTokens: gate ?? null,
        piWarmsProvider,
        piRefreshesPerSession: byPi?.refreshes ?? 0,
        piNetPer1000Sessions: per1000((byPi?.saved ?? 0) - (byPi?.refreshCost ?? 0)),
      });
    }
  }
  return rows;
}


/** Probabilities of use at which the break-even is printed besides each namespace's own. */
const REFERENCE_USE = [0.1, 0.25, 0.5, 0.9];

/** Without a profile value or recorded runs, a namespace is assumed to be loaded by a quarter of sessions. */
const ASSUMED_NAMESPACE_USE = 0.25;

function priceToolPolicies(
  root: string,
  artifacts: Pick<LoadedArtifacts, "manifest" | "cachePlan">,
  profile: TrafficProfile & { sessionsPerMinute: Record<string, number> },
  blocks: Record<string, { toolsEnd: number; prefixEnd: number; variantEnd: number }>,
  data: PromptCachingData,
): ToolPolicyReport {
  const infos = Object.entries(artifacts.manifest.namespaces ?? {});
  const runs = recordedRuns(root);
  const namespaces = infos.map(([name, info]) => {
    const given = profile.namespaceUse?.[name];
    if (given !== undefined) return { name, tools: info.tools.length, tokens: info.tokens, probability: given, probabilitySource: "profile" };
    if (runs.length === 0) return { name, tools: info.tools.length, tokens: info.tokens, probability: ASSUMED_NAMESPACE_USE, probabilitySource: "assumed" };
    const tools = new Set(info.tools);
    const used = runs.filter((run) => run.some((call) => tools.has(call.name) || (call.name === LOAD_TOOL && call.namespace === name))).length;
    return { name, tools: info.tools.length, tokens: info.tokens, probability: used / runs.length, probabilitySource: `recorded eval runs, ${used} of ${runs.length}` };
  });
  const callsBeforeLoad = Math.min(profile.callsBeforeLoad ?? 1, profile.callsPerSession);
  const shape: SessionShape = { calls: profile.callsPerSession, newTokensPerCall: profile.newTokensPerCall, callsBeforeLoad };
  const rows: ToolPolicyRow[] = [];
  const breakEven: ToolPolicyReport["breakEven"] = [];
  for (const model of profile.models) {
    const prices = tokenPrices(data, model);
    const inPlace = addsToolsInPlace(data, model);
    const lifetime = model.provider === "anthropic" ? data.providers.anthropic.rules.lifetimeSeconds["5m"] : data.providers.openai.rules.idleExpirySeconds;
    for (const [variant, ends] of Object.entries(blocks)) {
      const atStart = new Set(artifacts.manifest.variants[variant]?.namespaces ?? []);
      const deferred = namespaces.filter((namespace) => !atStart.has(namespace.name));
      const rate = profile.sessionsPerMinute[variant] ?? 0;
      const warm = (probability: number): boolean => rate * probability * (lifetime / 60) >= 1;
      const base = upFrontCost(ends.variantEnd, 0, shape, prices);
      const onDemand = (resent: boolean): number =>
        base + deferred.reduce((sum, namespace) => sum + namespace.probability * loadCost(ends.variantEnd, ends.toolsEnd, { tokens: namespace.tokens, sharedWarm: warm(namespace.probability) }, shape, prices, !resent), 0);
      const upFront = upFrontCost(ends.variantEnd, deferred.reduce((sum, namespace) => sum + namespace.tokens, 0), shape, prices);
      rows.push({ provider: model.provider, model: model.model, variant, deferred: deferred.map((namespace) => namespace.name), inPlace, upFront: upFront * 1000, onDemandInPlace: onDemand(false) * 1000, onDemandResent: onDemand(true) * 1000 });
    }
    // The break-even of the busiest variant's prompt: the figure the design's trigger asks for.
    const busiest = Object.keys(blocks).sort((a, b) => (profile.sessionsPerMinute[b] ?? 0) - (profile.sessionsPerMinute[a] ?? 0))[0] ?? "";
    const ends = blocks[busiest] ?? { toolsEnd: 0, prefixEnd: 0, variantEnd: 0 };
    const rate = profile.sessionsPerMinute[busiest] ?? 0;
    const points = [...namespaces.map((namespace) => ({ probability: namespace.probability, namespace: namespace.name })), ...REFERENCE_USE.map((probability) => ({ probability }))];
    for (const point of points) {
      const warm = rate * point.probability * (lifetime / 60) >= 1;
      const inPlaceTokens = breakEvenTokens(ends.variantEnd, ends.toolsEnd, point.probability, warm, shape, prices, true);
      const resentTokens = breakEvenTokens(ends.variantEnd, ends.toolsEnd, point.probability, warm, shape, prices, false);
      breakEven.push({ provider: model.provider, model: model.model, variant: busiest, ...point, ...(inPlaceTokens === undefined ? {} : { inPlaceTokens }), ...(resentTokens === undefined ? {} : { resentTokens }) });
    }
  }
  return { callsBeforeLoad, namespaces, rows, breakEven };
}

/** The runtime tool that loads a namespace by exact name (its `name` argument). */
const LOAD_TOOL = "load_tool_namespace";

/** The tool calls of every recorded eval run (evals/cassettes/<scenario>/<run>.json); none when there are no cassettes. */
function recordedRuns(root: string): Array<Array<{ name: string; namespace?: string }>> {
  const dir = join(root, "evals", "cassettes");
  const runs: Array<Array<{ name: string; namespace?: string }>> = [];
  let scenarios: string[];
  try {
    scenarios = readdirSync(dir).sort();
  } catch {
    return runs;
  }
  for (const scenario of scenarios) {
    let files: string[];
    try {
      files = readdirSync(join(dir, scenario)).filter((file) => file.endsWith(".json")).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      // eval's own reader: a FIFO, an over-long file or another format is not a run (eval reports it).
      const read = readCassette(join(dir, scenario, file));
      if (read.kind !== "cassette") continue;
      const calls: Array<{ name: string; namespace?: string }> = [];
      for (const call of read.cassette.calls) {
        for (const part of call.reply.content) {
          if (part.type !== "toolCall") continue;
          const namespace = part.arguments["name"];
          calls.push(typeof namespace === "string" ? { name: part.name, namespace } : { name: part.name });
        }
      }
      runs.push(calls);
    }
  }
  return runs;
}

/**
 * For each variant: one call of a session of another variant, then one call
 * of a new session of this variant a second later; what the second reads.
 */
function coldVariantReads(workload: Workload, run: PolicyRun, data: PromptCachingData): Map<string, number> {
  const reads = new Map<string, number>();
  const count = workload.variants.length;
  workload.variants.forEach((variant, index) => {
    if (count < 2) return;
    const other = (index + 1) % count;
    const pair: Workload = { ...workload, callsPerSession: 1, variants: workload.variants.map((entry) => ({ ...entry, sessionsPerMinute: 0 })) };
    const schedule = { session: Int32Array.of(0, 1), call: Int32Array.of(0, 0), second: Int32Array.of(0, 1), sessionVariant: Int32Array.of(other, index), sessions: 2 };
    const outcome =
      run.policy.provider === "anthropic"
        ? simulateAnthropic(pair, schedule, run.policy, data.providers.anthropic.rules, data.providers.anthropic.models[run.model] as AnthropicModelPrices)
        : simulateOpenAI(pair, schedule, run.policy, data.providers.openai.rules, data.providers.openai.models[run.model] as OpenAIModelPrices);
    reads.set(variant.name, outcome[index]?.cachedTokens ?? 0);
  });
  return reads;
}

/** Enough shards that the busiest variant's calls per key stay at 80% of the per-key overflow rate. */
function shardCount(profile: TrafficProfile & { sessionsPerMinute: Record<string, number> }, data: PromptCachingData): number {
  const busiest = Math.max(0, ...Object.values(profile.sessionsPerMinute)) * profile.callsPerSession;
  return Math.max(1, Math.ceil(busiest / (0.8 * data.providers.openai.rules.overflowRequestsPerMinute)));
}

interface PolicyRun {
  model: string;
  label: string;
  isDefault: boolean;
  policy: AnthropicPolicy | OpenAIPolicy;
}

function policies(models: readonly ProviderModel[], shards: number): PolicyRun[] {
  const runs: PolicyRun[] = [];
  for (const { provider, model } of models) {
    if (provider === "anthropic") {
      for (const breakpoints of ["one", "plan"] as const) {
        for (const staticLifetime of ["5m", "1h"] as Lifetime[]) {
          const label = `${breakpoints === "plan" ? "plan's breakpoints" : "one system breakpoint"}, ${staticLifetime}`;
          runs.push({ model, label, isDefault: breakpoints === "plan" && staticLifetime === "5m", policy: { provider, breakpoints, staticLifetime } });
        }
      }
    } else {
      for (const retention of ["in-memory", "24h"] as const) {
        for (const key of ["none", "per-session", "sharded"] as const) {
          const label = `${key === "none" ? "no key" : key === "per-session" ? "per-session key" : `sharded key (${shards})`}, ${retention}`;
          runs.push({ model, label, isDefault: key === "per-session" && retention === "in-memory", policy: { provider, key, retention, shards } });
        }
      }
    }
  }
  return runs;
}
