/**
 * Prices the tool policies of each variant: every namespace's schemas sent
 * from session start, or namespaces loaded on demand (with the extra model
 * call a load costs), on a model that takes tool additions in place and on
 * one that gets the whole tool list again. And the break-even: from how many
 * tokens per namespace deferring it pays, at its probability of use.
 *
 * This is a steady-state model in closed form, not the event simulation: it
 * assumes what the simulation shows at the profile's traffic, namely that
 * the shared blocks (tools, static prefix, variant) are warm and that a
 * session's calls read its previous call's prefix. A session's expected cost
 * is then linear in each namespace's tokens and probability, so every policy
 * costs a few arithmetic operations per variant and namespace.
 */
import type { PromptCachingData, Provider } from "./rules.js";
import type { ProviderModel } from "./profile.js";

/** What one model call's tokens cost: per token read from the cache, and per token written (or sent uncached). */
export interface TokenPrices {
  read: number;
  write: number;
}

export function tokenPrices(data: PromptCachingData, { provider, model }: ProviderModel): TokenPrices {
  if (provider === "anthropic") {
    const rules = data.providers.anthropic.rules;
    const entry = data.providers.anthropic.models[model];
    const price = (entry?.inputPerMTok ?? 0) / 1e6;
    return { read: price * (entry?.readMultiplier ?? rules.readMultiplier), write: price * rules.writeMultiplier["5m"] };
  }
  const rules = data.providers.openai.rules;
  const entry = data.providers.openai.models[model];
  const price = (entry?.inputPerMTok ?? 0) / 1e6;
  return { read: (entry?.cachedInputPerMTok ?? 0) / 1e6, write: entry?.cacheWritePerMTok === undefined ? price * (1 + rules.writeMultiplier) : entry.cacheWritePerMTok / 1e6 };
}

/** Whether the model takes tool additions in place (every byte before the load point stays), per the data file. */
export function addsToolsInPlace(data: PromptCachingData, { provider, model }: ProviderModel): boolean {
  return (data.providers[provider as Provider].toolAdditionsInPlace ?? []).includes(model);
}

export interface SessionShape {
  /** Model calls of a session without loads. */
  calls: number;
  /** Tokens each call adds. */
  newTokensPerCall: number;
  /** Calls made before a load (the load's own call comes next). */
  callsBeforeLoad: number;
}

export interface DeferredNamespace {
  name: string;
  tokens: number;
  /** Probability that a session loads it. */
  probability: number;
  /** Whether sessions that load it come often enough to keep its re-sent tool list warm in the shared cache. */
  sharedWarm: boolean;
}

/** A session's expected input cost when `tokens` of tools are sent on every call from the start (the shared blocks warm). */
export function upFrontCost(prompt: number, tokens: number, shape: SessionShape, prices: TokenPrices): number {
  let cost = 0;
  for (let call = 0; call < shape.calls; call++) cost += (prompt + tokens + call * shape.newTokensPerCall) * prices.read + shape.newTokensPerCall * prices.write;
  return cost;
}

/**
 * What loading one namespace adds to a session's cost: the extra call that
 * asks for it, then its tokens on every later call. In place, everything
 * before the load point is read from the cache and only the schemas are
 * written once. Re-sent, the tool list changes ahead of the system prompt,
 * so the call after the load reads only the tools (or, when other sessions
 * keep that tool list warm, tools and system) and writes the rest again.
 */
export function loadCost(prompt: number, toolsEnd: number, namespace: Pick<DeferredNamespace, "tokens" | "sharedWarm">, shape: SessionShape, prices: TokenPrices, inPlace: boolean): number {
  const { calls, newTokensPerCall: m, callsBeforeLoad: before } = shape;
  const history = before * m;
  // The extra call that loads the namespace: reads the whole session so far, writes its own new tokens.
  let cost = (prompt + history) * prices.read + m * prices.write;
  const after = calls - before;
  if (after <= 0) return cost;
  // The first call after the load: the session so far, the load call's tokens, the schemas and its own tokens.
  const context = prompt + history + m + namespace.tokens + m;
  const baseFirst = (prompt + history) * prices.read + m * prices.write;
  const read = inPlace ? prompt + history + m : namespace.sharedWarm ? prompt + namespace.tokens : toolsEnd;
  cost += read * prices.read + (context - read) * prices.write - baseFirst;
  // Every later call reads the schemas and the load call's tokens too.
  cost += (after - 1) * (namespace.tokens + m) * prices.read;
  return cost;
}

/**
 * The namespace size in tokens from which loading on demand costs less than
 * sending the schemas from the start, at a probability of use; undefined
 * when it never does (a namespace nearly every session loads).
 */
export function breakEvenTokens(prompt: number, toolsEnd: number, probability: number, sharedWarm: boolean, shape: SessionShape, prices: TokenPrices, inPlace: boolean): number | undefined {
  // Both costs are linear in the namespace's tokens: compare slopes and intercepts.
  const upSlope = upFrontCost(prompt, 1, shape, prices) - upFrontCost(prompt, 0, shape, prices);
  const load0 = probability * loadCost(prompt, toolsEnd, { tokens: 0, sharedWarm }, shape, prices, inPlace);
  const loadSlope = probability * loadCost(prompt, toolsEnd, { tokens: 1, sharedWarm }, shape, prices, inPlace) - load0;
  if (upSlope <= loadSlope) return undefined;
  return Math.max(0, Math.ceil(load0 / (upSlope - loadSlope)));
}
