import type { RuleDefinition } from "./rule.js";

/**
 * Rules about prompt templates, variants, tool schemas, budgets and dist/.
 * Rule ids are permanent: never rename or reuse one.
 */
export const buildRules = {
  "source/missing-file": { severity: "error", description: "A source file the build needs exists." },
  "source/invalid-utf8": { severity: "error", description: "A skill, prompt, schema or config source is valid UTF-8." },
  "source/invalid-json": { severity: "error", description: "A JSON source (tool schema, tool order, config) parses." },
  "source/invalid-yaml": { severity: "error", description: "A YAML source (variants, injections) parses." },
  "config/invalid": { severity: "error", description: "`gamma-prompt.config.json` matches schemas/config.schema.json." },
  "template/parse-error": { severity: "error", description: "A Handlebars template parses." },
  "template/unknown-partial": { severity: "error", description: "Every `{{> partial}}` names a file in prompts/partials/." },
  "template/unknown-helper": { severity: "error", description: "A template uses only the helpers if, unless, each, with, eq and join." },
  "template/missing-variable": { severity: "error", description: "Every variable a template reads exists in its render context." },
  "template/non-scalar-value": { severity: "error", description: "A `{{value}}` renders a string, number or boolean, never an object or list." },
  "template/unsupported-syntax": { severity: "error", description: "Templates avoid partial blocks, inline partials and decorators." },
  "template/partial-cycle": { severity: "error", description: "A partial does not include itself, directly or through other partials." },
  "template/missing-catalog": { severity: "error", description: "The static prefix includes the skill catalog through `{{catalog}}`." },
  "template/render-error": { severity: "error", description: "A template renders without a runtime error." },
  "variant/invalid": { severity: "error", description: "`prompts/variants.yaml` matches schemas/variants.schema.json." },
  "variant/unknown-skill": { severity: "error", description: "A variant preloads only skills that exist and pass lint." },
  "variant/conflicting-skills": { severity: "error", description: "No two skills a variant preloads (with their requirements) conflict." },
  "variant/token-boundary": { severity: "error", description: "The static prefix's tokens are a prefix of each variant's tokens." },
  "injection/invalid": { severity: "error", description: "`prompts/injections.yaml` matches schemas/injection-kinds.schema.json." },
  "injection/kinds-mismatch": { severity: "error", description: "The injection kinds are the design's seven, each once, in the design's order." },
  "tool/invalid": { severity: "error", description: "A tool file matches schemas/tool.schema.json." },
  "tool/name-mismatch": { severity: "error", description: "A tool's `name` equals its file name." },
  "tool/invalid-parameters": { severity: "error", description: "A tool's `parameters` is a valid JSON Schema." },
  "tool/order-unknown": { severity: "error", description: "`schemas/tools/order.json` lists only tools that have a file." },
  "tool/order-missing": { severity: "error", description: "Every tool file is listed in `schemas/tools/order.json`." },
  "tool/order-duplicate": { severity: "error", description: "`schemas/tools/order.json` lists each tool once." },
  "tool/skill-name-parameter": { severity: "error", description: "The `skill` tool has a string `name` parameter to carry the catalog enum." },
  "budget/prefix-exceeded": { severity: "error", description: "The static prefix fits `budgets.prefixTokens` (default 8,000 o200k tokens)." },
  "budget/catalog-exceeded": { severity: "error", description: "The skill catalog fits `budgets.catalogTokens` (default 4,000 o200k tokens)." },
  "budget/prefix-below-cache-minimum": { severity: "warning", description: "The static prefix has at least 1,024 tokens, the minimum OpenAI caches." },
  "dist/missing": { severity: "error", description: "Every artifact the sources produce exists in dist/." },
  "dist/changed": { severity: "error", description: "Every artifact in dist/ has the bytes its sources produce." },
  "dist/extra": { severity: "error", description: "dist/ holds no file the sources do not produce." },
  "dist/hash-mismatch": { severity: "error", description: "Every file's sha256 matches its entry in dist/manifest.json." },
  "dist/not-owned": { severity: "error", description: "An output folder without manifest.json holds no other files (gamma-prompt never deletes files it did not write)." },
  "dist/write-failed": { severity: "error", description: "dist/ can be written; on failure it is left as it was." },
} as const satisfies Record<string, RuleDefinition>;
