/**
 * An event simulation of each provider's documented cache rules over a
 * traffic profile. Each model call is one event (a session's calls at its
 * start plus multiples of the gap); events are processed in time order at
 * one-second resolution, and every cache entry is a timestamp in a typed
 * array, so a run costs a few operations per call, never a loop over tokens.
 *
 * A call's prompt is the variant's blocks (tools, static prefix, variant
 * tail) followed by the session's history, which grows by `newTokensPerCall`
 * per call. What can be cached is modelled at the boundaries that matter:
 * the end of the tools, of the static prefix, of the variant, and of the
 * session's previous call.
 */
import type { AnthropicModelPrices, AnthropicRules, Lifetime, OpenAIModelPrices, OpenAIRules } from "./rules.js";

export interface SimVariant {
  name: string;
  /** Tokens of tools, tools + static prefix, and the whole variant (tools + system prompt). */
  toolsEnd: number;
  prefixEnd: number;
  variantEnd: number;
  sessionsPerMinute: number;
  /**
   * The tools the variant sends after the stable ones from session start (its
   * start namespaces, e.g. "namespaces/drive.json"); absent or "" for none.
   * Variants share the static prefix's cache entry only with the same value:
   * the tools come first in the prompt. With the plan's breakpoints the
   * tools' entry ends at the stable tools and is shared by all.
   */
  startTools?: string;
  /**
   * Tokens of every tool sent from session start (the stable ones and the
   * start namespaces'); default `toolsEnd`. Pi's own layout (one system
   * breakpoint) marks the last of them, so its tools' entry ends there.
   */
  startToolsEnd?: number;
}

export interface Workload {
  variants: SimVariant[];
  durationSeconds: number;
  callsPerSession: number;
  newTokensPerCall: number;
  secondsBetweenCalls: number;
}

export type AnthropicPolicy = { provider: "anthropic"; breakpoints: "one" | "plan"; staticLifetime: Lifetime };
export type OpenAIKeyPolicy = "none" | "per-session" | "sharded";
export type OpenAIPolicy = { provider: "openai"; key: OpenAIKeyPolicy; retention: "in-memory" | "24h"; shards: number };

export interface VariantOutcome {
  name: string;
  sessions: number;
  calls: number;
  inputTokens: number;
  cachedTokens: number;
  /** Input cost in dollars (uncached, cache reads and cache writes). */
  inputCost: number;
}

/** Every call of every session, in time order (one-second buckets). */
export interface Schedule {
  /** Session index per event. */
  session: Int32Array;
  /** Call number (0-based) per event. */
  call: Int32Array;
  /** Second per event. */
  second: Int32Array;
  /** Variant index per session. */
  sessionVariant: Int32Array;
  sessions: number;
}

export function buildSchedule(workload: Workload): Schedule {
  const starts: number[] = [];
  const variantOf: number[] = [];
  workload.variants.forEach((variant, index) => {
    const perSecond = variant.sessionsPerMinute / 60;
    if (perSecond <= 0) return;
    // Evenly spaced arrivals, each variant offset by a different phase so variants interleave.
    const phase = (index + 1) / (workload.variants.length + 1);
    for (let i = 0; ; i++) {
      const at = (i + phase) / perSecond;
      if (at >= workload.durationSeconds) break;
      starts.push(at);
      variantOf.push(index);
    }
  });
  const sessions = starts.length;
  const calls = workload.callsPerSession;
  const total = sessions * calls;
  const lastSecond = Math.floor(workload.durationSeconds + (calls - 1) * workload.secondsBetweenCalls) + 1;
  const counts = new Int32Array(lastSecond + 1);
  for (let s = 0; s < sessions; s++) for (let k = 0; k < calls; k++) {
    const t = Math.floor((starts[s] as number) + k * workload.secondsBetweenCalls);
    counts[t] = (counts[t] as number) + 1;
  }
  const offsets = new Int32Array(lastSecond + 2);
  for (let t = 0; t <= lastSecond; t++) offsets[t + 1] = (offsets[t] as number) + (counts[t] as number);
  const session = new Int32Array(total);
  const call = new Int32Array(total);
  const second = new Int32Array(total);
  const fill = offsets.slice();
  // Calls in order of number, then session: within one second a session's earlier call comes first.
  for (let k = 0; k < calls; k++) {
    for (let s = 0; s < sessions; s++) {
      const t = Math.floor((starts[s] as number) + k * workload.secondsBetweenCalls);
      const at = fill[t] as number;
      fill[t] = at + 1;
      session[at] = s;
      call[at] = k;
      second[at] = t;
    }
  }
  return { session, call, second, sessionVariant: Int32Array.from(variantOf), sessions };
}

/** Per-variant running totals, kept in typed arrays in the hot loop and turned into outcomes at the end. */
class Totals {
  readonly calls: Float64Array;
  readonly input: Float64Array;
  readonly cached: Float64Array;
  readonly cost: Float64Array;
  constructor(count: number) {
    this.calls = new Float64Array(count);
    this.input = new Float64Array(count);
    this.cached = new Float64Array(count);
    this.cost = new Float64Array(count);
  }

  outcomes(workload: Workload, schedule: Schedule): VariantOutcome[] {
    const sessions = new Float64Array(workload.variants.length);
    for (let s = 0; s < schedule.sessions; s++) {
      const v = schedule.sessionVariant[s] as number;
      sessions[v] = (sessions[v] as number) + 1;
    }
    return workload.variants.map((variant, v) => ({
      name: variant.name,
      sessions: sessions[v] as number,
      calls: this.calls[v] as number,
      inputTokens: this.input[v] as number,
      cachedTokens: this.cached[v] as number,
      inputCost: this.cost[v] as number,
    }));
  }
}

function boundaries(workload: Workload): { tools: Float64Array; startTools: Float64Array; prefix: Float64Array; variant: Float64Array; group: Int32Array; groups: number } {
  // One static-prefix entry per distinct tool list sent from the start.
  const groupOf = new Map<string, number>();
  const group = Int32Array.from(workload.variants, (variant) => {
    const key = variant.startTools ?? "";
    if (!groupOf.has(key)) groupOf.set(key, groupOf.size);
    return groupOf.get(key) as number;
  });
  return {
    tools: Float64Array.from(workload.variants, (variant) => variant.toolsEnd),
    startTools: Float64Array.from(workload.variants, (variant) => variant.startToolsEnd ?? variant.toolsEnd),
    prefix: Float64Array.from(workload.variants, (variant) => variant.prefixEnd),
    variant: Float64Array.from(workload.variants, (variant) => variant.variantEnd),
    group,
    groups: groupOf.size,
  };
}

/** Reports progress as a fraction of events processed. */
export type ProgressListener = (fraction: number) => void;

const PROGRESS_EVERY = 1 << 16;

export function simulateAnthropic(
  workload: Workload,
  schedule: Schedule,
  policy: AnthropicPolicy,
  rules: AnthropicRules,
  model: AnthropicModelPrices,
  onProgress?: ProgressListener,
): VariantOutcome[] {
  const totals = new Totals(workload.variants.length);
  const ends = boundaries(workload);
  const V = workload.variants.length;
  const messageLife = rules.lifetimeSeconds["5m"];
  const staticLife = rules.lifetimeSeconds[policy.staticLifetime];
  const staticWrite = rules.writeMultiplier[policy.staticLifetime];
  const messageWrite = rules.writeMultiplier["5m"];
  const price = model.inputPerMTok / 1e6;
  const minimum = model.minimumTokens;
  const never = -1e18;
  // The stable tools' entry; with one system breakpoint, also each start tool list's own.
  let toolsUsed = never;
  const startToolsUsed = new Float64Array(ends.groups).fill(never);
  const prefixUsed = new Float64Array(ends.groups).fill(never);
  const variantUsed = new Float64Array(V).fill(never);
  const sessionUsed = new Float64Array(schedule.sessions).fill(never);
  const plan = policy.breakpoints === "plan";
  // With one system block, the whole system prompt is one block: its lifetime is the static one.
  const variantLife = plan ? messageLife : staticLife;
  const newTokens = workload.newTokensPerCall;
  const total = schedule.session.length;
  for (let e = 0; e < total; e++) {
    if (onProgress && (e & (PROGRESS_EVERY - 1)) === 0) onProgress(e / total);
    const s = schedule.session[e] as number;
    const k = schedule.call[e] as number;
    const t = schedule.second[e] as number;
    const v = schedule.sessionVariant[s] as number;
    const variantEnd = ends.variant[v] as number;
    const prefixEnd = ends.prefix[v] as number;
    const toolsEnd = ends.tools[v] as number;
    const startToolsEnd = ends.startTools[v] as number;
    const g = ends.group[v] as number;
    const end = variantEnd + (k + 1) * newTokens;
    // Longest live entry at a breakpoint (the newest message's breakpoint finds the previous call's within 20 blocks).
    let read = 0;
    if (k > 0 && t - (sessionUsed[s] as number) <= messageLife && variantEnd + k * newTokens >= minimum) read = variantEnd + k * newTokens;
    else if (t - (variantUsed[v] as number) <= variantLife && variantEnd >= minimum) read = variantEnd;
    else if (plan && t - (prefixUsed[g] as number) <= staticLife && prefixEnd >= minimum) read = prefixEnd;
    else if (!plan && t - (startToolsUsed[g] as number) <= staticLife && startToolsEnd >= minimum) read = startToolsEnd;
    // With one system breakpoint, a variant with start namespaces still finds the stable tools' entry within the look-back.
    else if (t - toolsUsed <= staticLife && toolsEnd >= minimum) read = toolsEnd;
    // Everything past the read point up to the last cacheable breakpoint is written, at the lifetime of its block.
    let cost = read * (model.readMultiplier ?? rules.readMultiplier);
    let from = read;
    const staticEnd = plan ? prefixEnd : variantEnd;
    if (end >= minimum) {
      if (from < staticEnd) {
        cost += (staticEnd - from) * staticWrite;
        from = staticEnd;
      }
      cost += (end - from) * messageWrite;
    } else cost += end - read;
    totals.calls[v] = (totals.calls[v] as number) + 1;
    totals.input[v] = (totals.input[v] as number) + end;
    totals.cached[v] = (totals.cached[v] as number) + read;
    totals.cost[v] = (totals.cost[v] as number) + cost * price;
    // Every breakpoint of this call now holds a live (read or written) entry.
    // With one system breakpoint only a variant without start namespaces marks the end of the stable tools.
    if (plan || startToolsEnd === toolsEnd) toolsUsed = t;
    if (!plan) startToolsUsed[g] = t;
    if (plan) prefixUsed[g] = t;
    variantUsed[v] = t;
    sessionUsed[s] = t;
  }
  onProgress?.(1);
  return totals.outcomes(workload, schedule);
}

export function simulateOpenAI(
  workload: Workload,
  schedule: Schedule,
  policy: OpenAIPolicy,
  rules: OpenAIRules,
  model: OpenAIModelPrices,
  onProgress?: ProgressListener,
): VariantOutcome[] {
  const totals = new Totals(workload.variants.length);
  const ends = boundaries(workload);
  const V = workload.variants.length;
  const fleet = rules.fleetSize;
  // GPT-5.6 and later: extended retention is an explicit ttl of their own, writes have their own price.
  const expiry = policy.retention === "24h" ? (model.extendedRetentionSeconds ?? rules.extendedRetentionSeconds) : rules.idleExpirySeconds;
  const never = -1e18;
  const G = ends.groups;
  const toolsUsed = new Float64Array(fleet).fill(never);
  const prefixUsed = new Float64Array(fleet * G).fill(never);
  const variantUsed = new Float64Array(fleet * V).fill(never);
  const sessionMachine = new Int32Array(schedule.sessions).fill(-1);
  const sessionUsed = new Float64Array(schedule.sessions).fill(never);
  // Routes: one per key; each admits `overflowRequestsPerMinute` to its home machine (a token bucket), the rest spill.
  const routes = policy.key === "none" ? 1 : policy.key === "per-session" ? schedule.sessions : V * policy.shards;
  const keyKind = policy.key === "none" ? 0 : policy.key === "per-session" ? 1 : 2;
  const shards = policy.shards;
  const sessionShard = keyKind === 2 ? Uint32Array.from({ length: schedule.sessions }, (_, s) => mix(s)) : new Uint32Array(0);
  const home = Uint32Array.from({ length: routes }, (_, route) => mix(route + 0x9e3779b9) % fleet);
  const bucket = new Float64Array(routes).fill(rules.overflowRequestsPerMinute);
  const bucketTime = new Float64Array(routes);
  const refill = rules.overflowRequestsPerMinute / 60;
  const price = model.inputPerMTok / 1e6;
  const cachedPrice = model.cachedInputPerMTok / 1e6;
  const writePrice = model.cacheWritePerMTok === undefined ? price * (1 + rules.writeMultiplier) : model.cacheWritePerMTok / 1e6;
  const step = rules.stepTokens;
  const minimum = rules.minimumTokens;
  let random = 0x2545f491;
  const newTokens = workload.newTokensPerCall;
  const total = schedule.session.length;
  for (let e = 0; e < total; e++) {
    if (onProgress && (e & (PROGRESS_EVERY - 1)) === 0) onProgress(e / total);
    const s = schedule.session[e] as number;
    const k = schedule.call[e] as number;
    const t = schedule.second[e] as number;
    const v = schedule.sessionVariant[s] as number;
    const variantEnd = ends.variant[v] as number;
    const g = ends.group[v] as number;
    const route = keyKind === 0 ? 0 : keyKind === 1 ? s : v * shards + ((sessionShard[s] as number) % shards);
    const tokens = Math.min(rules.overflowRequestsPerMinute, (bucket[route] as number) + (t - (bucketTime[route] as number)) * refill);
    bucketTime[route] = t;
    let machine: number;
    if (tokens >= 1) {
      bucket[route] = tokens - 1;
      machine = home[route] as number;
    } else {
      bucket[route] = tokens;
      random = (Math.imul(random, 1103515245) + 12345) >>> 0;
      machine = random % fleet;
    }
    const end = variantEnd + (k + 1) * newTokens;
    let hit = 0;
    if (k > 0 && sessionMachine[s] === machine && t - (sessionUsed[s] as number) <= expiry) hit = variantEnd + k * newTokens;
    else if (t - (variantUsed[machine * V + v] as number) <= expiry) hit = variantEnd;
    else if (t - (prefixUsed[machine * G + g] as number) <= expiry) hit = ends.prefix[v] as number;
    // Another tool list from the start: only the stable tools before it are a common prefix.
    else if (t - (toolsUsed[machine] as number) <= expiry) hit = ends.tools[v] as number;
    const cached = hit >= minimum ? Math.floor(hit / step) * step : 0;
    totals.calls[v] = (totals.calls[v] as number) + 1;
    totals.input[v] = (totals.input[v] as number) + end;
    totals.cached[v] = (totals.cached[v] as number) + cached;
    totals.cost[v] = (totals.cost[v] as number) + cached * cachedPrice + (end - cached) * (end >= minimum ? writePrice : price);
    toolsUsed[machine] = t;
    prefixUsed[machine * G + g] = t;
    variantUsed[machine * V + v] = t;
    sessionMachine[s] = machine;
    sessionUsed[s] = t;
  }
  onProgress?.(1);
  return totals.outcomes(workload, schedule);
}

/** A fixed 32-bit integer hash (for home machines and shards). */
function mix(value: number): number {
  let x = value | 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}
