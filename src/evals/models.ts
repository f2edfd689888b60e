/**
 * Choosing the model of an evaluation: `provider/id` from pi-ai's registry,
 * its key from the environment the way pi-ai reads it. Every problem is an
 * EvalUsageError raised before the first run, naming what to set or where
 * to look.
 */
import type { Api, Model, ModelCatalog } from "./pi-models.js";
import { editDistance } from "../protocol/suggest.js";
import { OPTION_NAMES, type OptionNames } from "./option-names.js";
import { EvalUsageError } from "./usage-error.js";

export { EvalUsageError } from "./usage-error.js";

/**
 * The environment variable pi-ai reads a provider's key from, where it is
 * not `<PROVIDER>_API_KEY` (test/evals/cli.test.ts checks every provider
 * against pi-ai's own lookup).
 */
const KEY_VARIABLES: Readonly<Record<string, string>> = {
  anthropic: "ANTHROPIC_API_KEY",
  google: "GEMINI_API_KEY",
  "google-vertex": "GOOGLE_CLOUD_API_KEY",
  "github-copilot": "COPILOT_GITHUB_TOKEN",
  "vercel-ai-gateway": "AI_GATEWAY_API_KEY",
  "moonshotai-cn": "MOONSHOT_API_KEY",
  moonshotai: "MOONSHOT_API_KEY",
  huggingface: "HF_TOKEN",
  "opencode-go": "OPENCODE_API_KEY",
  "kimi-coding": "KIMI_API_KEY",
  "cloudflare-workers-ai": "CLOUDFLARE_API_KEY",
  "cloudflare-ai-gateway": "CLOUDFLARE_API_KEY",
  "azure-openai-responses": "AZURE_OPENAI_API_KEY",
  azure: "AZURE_OPENAI_API_KEY",
  "amazon-bedrock": "AWS_PROFILE",
};

/** Providers pi-ai signs in to with OAuth only: no environment variable holds their key. */
const OAUTH_ONLY: ReadonlySet<string> = new Set(["openai-codex"]);

export function keyVariable(provider: string): string {
  return KEY_VARIABLES[provider] ?? `${provider.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_API_KEY`;
}

export interface ChosenModel {
  spec: string;
  provider: string;
  id: string;
  model: Model<Api>;
  apiKey: string;
}

/** Resolves `provider/id` and its key; throws EvalUsageError naming the fix, and the options as `named` spells them (default: as `runEvals` takes them). */
export function chooseModel(spec: string, catalog: ModelCatalog, options: { baseUrl?: string; named?: OptionNames } = {}): ChosenModel {
  const named = options.named ?? OPTION_NAMES.library;
  const slash = spec.indexOf("/");
  const provider = slash === -1 ? spec : spec.slice(0, slash);
  const id = slash === -1 ? "" : spec.slice(slash + 1);
  if (slash <= 0 || id === "") throw new EvalUsageError(`Unexpected ${named.model} ${JSON.stringify(spec)}, expected provider/id, e.g. openai/gpt-5 or anthropic/claude-sonnet-4-5`);
  const providers = catalog.providers();
  if (!providers.includes(provider)) {
    throw new EvalUsageError(`Unexpected provider "${provider}", expected one of pi-ai's providers: ${providers.join(", ")} (list a provider's models with gamma-prompt eval --list-models PROVIDER)`);
  }
  const model = catalog.find(provider, id);
  if (model === undefined) {
    const ids = catalog.modelIds(provider);
    const near = closestIds(id, ids);
    throw new EvalUsageError(
      `Unexpected model "${id}" for provider "${provider}", expected one of pi-ai's ${ids.length} models for it${near.length > 0 ? ` (close: ${near.join(", ")})` : ""}; list them with gamma-prompt eval --list-models ${provider}`,
    );
  }
  const apiKey = catalog.envApiKey(provider);
  if (apiKey === undefined || apiKey === "") {
    const where = OAUTH_ONLY.has(provider) ? "a key in the environment, which pi-ai does not read for this OAuth-only provider (choose another)" : `it in the environment variable ${keyVariable(provider)} (pi-ai reads keys from the environment)`;
    throw new EvalUsageError(`Unexpected missing API key for provider "${provider}", expected ${where}; without a key, run the recorded cassettes with ${named.replay}`);
  }
  return { spec, provider, id, model: options.baseUrl === undefined ? model : { ...model, baseUrl: options.baseUrl }, apiKey };
}

/**
 * At most five ids close to a mistyped one: case and the separators `-`, `_`
 * and `.` ignored (`claude-sonnet-4.5` is `claude-sonnet-4-5`), then a small
 * edit distance (`claude-sonet-4-5`, `gpt5`), closest first; an id that holds
 * the typed one or is held in it (`sonnet-4-5`) comes after those.
 */
export function closestIds(id: string, ids: readonly string[]): string[] {
  const typed = foldId(id);
  const limit = Math.max(1, Math.min(3, Math.floor(typed.length / 4)));
  const byDistance = ids
    .map((candidate, index) => ({ candidate, index, distance: editDistance(typed, foldId(candidate), limit + 1) }))
    .filter((entry) => entry.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .map((entry) => entry.candidate);
  const containing = ids.filter((candidate) => !byDistance.includes(candidate) && (candidate.includes(id) || id.includes(candidate)));
  return [...byDistance, ...containing].slice(0, 5);
}

function foldId(id: string): string {
  return id.toLowerCase().replace(/[-_.\s]/g, "");
}
