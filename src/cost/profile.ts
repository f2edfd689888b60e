/**
 * A traffic profile: how many sessions of each variant start, how they talk to
 * the model, and which providers and models to price. JSON, validated here
 * with messages in the house form.
 */
import { didYouMean } from "../protocol/suggest.js";
import type { Provider } from "./rules.js";

export interface ProviderModel {
  provider: Provider;
  model: string;
}

export interface TrafficProfile {
  /** Simulated minutes of steady traffic. */
  durationMinutes: number;
  /** Sessions started per minute: one number split evenly over the variants, or per variant name. */
  sessionsPerMinute: number | Record<string, number>;
  /** Model calls per session (the first carries the user's prompt, later ones tool results). */
  callsPerSession: number;
  /** Tokens each call adds to the conversation (user text, tool results, the model's own output). */
  newTokensPerCall: number;
  /** Seconds between a session's calls. */
  secondsBetweenCalls: number;
  /** What to price. */
  models: ProviderModel[];
  /**
   * Tool namespaces only: the probability that a session loads each
   * namespace (by name, 0 to 1). A namespace left out takes its share of
   * recorded eval runs that used it, or an assumed 0.25 without any.
   */
  namespaceUse?: Record<string, number>;
  /** Tool namespaces only: the model calls a session makes before it loads a namespace (default 1). */
  callsBeforeLoad?: number;
}

/** Keys only a project with tool namespaces uses; absent from the resolved profile unless given. */
const NAMESPACE_KEYS = ["namespaceUse", "callsBeforeLoad"] as const;

/** 100,000 sessions an hour, the nine-call agentic run of the embedded default's tests, both providers. */
export const DEFAULT_PROFILE: TrafficProfile = {
  durationMinutes: 60,
  sessionsPerMinute: 100_000 / 60,
  callsPerSession: 9,
  newTokensPerCall: 600,
  secondsBetweenCalls: 20,
  models: [
    { provider: "anthropic", model: "claude-sonnet-4-5" },
    { provider: "openai", model: "gpt-5" },
  ],
};

/** Every key a profile may hold, in the order the help and the messages list them. */
export const PROFILE_KEYS: readonly string[] = [...Object.keys(DEFAULT_PROFILE), ...NAMESPACE_KEYS];

/**
 * The most model calls one run simulates. The simulation keeps a few typed
 * array entries per call and per session (the order of calls, each
 * session's cache entries): ten million calls take about ten seconds and a
 * few hundred MB. Costs scale with traffic, so a shorter run at the same rates
 * prices the same per session and per call.
 */
export const MAX_SIMULATED_CALLS = 10_000_000;

export class ProfileError extends Error {
  override readonly name = "ProfileError";
}

/**
 * The profile with defaults filled in; throws ProfileError naming the field on
 * bad input. `namespaces` are the build's tool namespaces: `namespaceUse`
 * may name only those.
 */
export function resolveProfile(
  input: unknown,
  variants: readonly string[],
  known: (provider: Provider, model: string) => boolean,
  namespaces: readonly string[] = [],
): TrafficProfile & { sessionsPerMinute: Record<string, number> } {
  if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input))) {
    throw new ProfileError(`Unexpected traffic profile that is not an object, expected {${PROFILE_KEYS.join(", ")}}`);
  }
  const raw = (input ?? {}) as Record<string, unknown>;
  const allowed = new Set(PROFILE_KEYS);
  for (const key of Object.keys(raw)) if (!allowed.has(key)) throw new ProfileError(`Unexpected key "${key}" in the traffic profile, expected one of ${PROFILE_KEYS.join(", ")}`);
  const number = (key: keyof TrafficProfile, min: number, max: number): number => {
    const value = raw[key] ?? DEFAULT_PROFILE[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) throw new ProfileError(`Unexpected ${key} ${JSON.stringify(value)}, expected a number from ${min} to ${max}`);
    return value;
  };
  // A count of model calls: a fraction is refused rather than priced as another profile without a word.
  const count = (key: "callsPerSession" | "callsBeforeLoad", min: number, max: number): number => {
    const value = raw[key] ?? DEFAULT_PROFILE[key];
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw new ProfileError(`Unexpected ${key} ${JSON.stringify(value)}, expected a whole number from ${min} to ${max}`);
    return value as number;
  };
  const durationMinutes = number("durationMinutes", 1, 24 * 60);
  const callsPerSession = count("callsPerSession", 1, 200);
  const newTokensPerCall = number("newTokensPerCall", 0, 1_000_000);
  const secondsBetweenCalls = number("secondsBetweenCalls", 0, 24 * 3600);
  const rate = raw["sessionsPerMinute"] ?? DEFAULT_PROFILE.sessionsPerMinute;
  const sessionsPerMinute: Record<string, number> = {};
  if (typeof rate === "number") {
    if (!Number.isFinite(rate) || rate < 0 || rate > 1e6) throw new ProfileError(`Unexpected sessionsPerMinute ${rate}, expected a number from 0 to 1000000`);
    for (const name of variants) sessionsPerMinute[name] = rate / variants.length;
  } else if (typeof rate === "object" && rate !== null && !Array.isArray(rate)) {
    for (const [name, value] of Object.entries(rate)) {
      if (!variants.includes(name)) throw new ProfileError(`Unexpected variant "${name}" in sessionsPerMinute, expected one of the manifest's variants: ${variants.join(", ")}`);
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1e6) throw new ProfileError(`Unexpected sessionsPerMinute.${name} ${JSON.stringify(value)}, expected a number from 0 to 1000000`);
      sessionsPerMinute[name] = value;
    }
  } else throw new ProfileError("Unexpected sessionsPerMinute, expected a number or an object of numbers by variant");
  const models = raw["models"] ?? DEFAULT_PROFILE.models;
  if (!Array.isArray(models) || models.length === 0) throw new ProfileError("Unexpected models, expected a non-empty list of {provider, model}");
  for (const entry of models as unknown[]) {
    const { provider, model } = (entry ?? {}) as { provider?: unknown; model?: unknown };
    if ((provider !== "anthropic" && provider !== "openai") || typeof model !== "string" || !known(provider, model)) {
      throw new ProfileError(`Unexpected model ${JSON.stringify(entry)}, expected {provider: "anthropic"|"openai", model} with a model priced in data/prompt-caching.json`);
    }
  }
  refuseOversizedSimulation(sessionsPerMinute, durationMinutes, callsPerSession);
  const resolved: TrafficProfile & { sessionsPerMinute: Record<string, number> } = { durationMinutes, sessionsPerMinute, callsPerSession, newTokensPerCall, secondsBetweenCalls, models: models as ProviderModel[] };
  if (raw["callsBeforeLoad"] !== undefined) resolved.callsBeforeLoad = count("callsBeforeLoad", 0, 200);
  const use = raw["namespaceUse"];
  if (use !== undefined) {
    if (typeof use !== "object" || use === null || Array.isArray(use)) throw new ProfileError("Unexpected namespaceUse, expected an object of probabilities (0 to 1) by namespace");
    for (const [name, value] of Object.entries(use)) {
      if (!namespaces.includes(name)) {
        throw new ProfileError(
          namespaces.length === 0
            ? `Unexpected namespace "${name}" in namespaceUse, expected none: the manifest has no tool namespaces`
            : `Unexpected namespace "${name}" in namespaceUse, expected one of the manifest's namespaces: ${namespaces.join(", ")}${didYouMean(name, namespaces)}`,
        );
      }
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) throw new ProfileError(`Unexpected namespaceUse.${name} ${JSON.stringify(value)}, expected a probability from 0 to 1`);
    }
    resolved.namespaceUse = use as Record<string, number>;
  }
  return resolved;
}

/**
 * The traffic profile as it applies to another build, such as the base a
 * change is compared with: `namespaceUse` keeps the namespaces that build
 * has, and a per-variant `sessionsPerMinute` the variants it has. A namespace
 * or variant the build lacks has nothing there to price, so leaving its entry
 * out prices the build's own traffic. Anything else is kept as given, for
 * {@link resolveProfile} to check.
 */
export function profileForBuild(input: unknown, variants: readonly string[], namespaces: readonly string[]): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const raw = input as Record<string, unknown>;
  const only = (value: unknown, names: readonly string[]): unknown =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([name]) => names.includes(name))) : value;
  const fitted: Record<string, unknown> = { ...raw };
  if (raw["namespaceUse"] !== undefined) fitted["namespaceUse"] = only(raw["namespaceUse"], namespaces);
  if (raw["sessionsPerMinute"] !== undefined) fitted["sessionsPerMinute"] = only(raw["sessionsPerMinute"], variants);
  return fitted;
}

function refuseOversizedSimulation(sessionsPerMinute: Record<string, number>, durationMinutes: number, callsPerSession: number): void {
  const rate = Object.values(sessionsPerMinute).reduce((sum, value) => sum + value, 0);
  const sessions = Math.ceil(rate * durationMinutes);
  const calls = sessions * callsPerSession;
  if (calls <= MAX_SIMULATED_CALLS) return;
  throw new ProfileError(
    `Unexpected traffic of ${calls.toLocaleString("en-US")} model calls (sessionsPerMinute × durationMinutes × callsPerSession), expected at most ${MAX_SIMULATED_CALLS.toLocaleString("en-US")}: lower durationMinutes or sessionsPerMinute (a shorter run prices the same per session)`,
  );
}
