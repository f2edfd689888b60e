import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { parseJsonSource, valueAt } from "../parse/positioned-source.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import { DEFAULT_INLINE_BYTES } from "../../protocol/knowledge.js";
import { buildSchemaValidator } from "./schemas.js";
import { DEFAULT_SUPPORTING_FILE_MAX_BYTES } from "../discover/supporting-files.js";

export interface BuildConfig {
  budgets: { prefixTokens: number; catalogTokens: number };
  supportingFiles: { maxBytes: number };
  knowledge: { inlineBytes: number };
}

/** Budgets sized for the design's small, cache-friendly prefix (a catalog of ~50 skills fits). */
export const DEFAULT_CONFIG: BuildConfig = {
  budgets: { prefixTokens: 8000, catalogTokens: 4000 },
  supportingFiles: { maxBytes: DEFAULT_SUPPORTING_FILE_MAX_BYTES },
  knowledge: { inlineBytes: DEFAULT_INLINE_BYTES },
};

/** Reads the optional config; defaults fill what the file leaves out. */
export function resolveConfig(source: SourceFile | undefined): { config: BuildConfig; diagnostics: Diagnostic[] } {
  if (!source) return { config: DEFAULT_CONFIG, diagnostics: [] };
  const located = parseJsonSource(source);
  if (!("document" in located)) return { config: DEFAULT_CONFIG, diagnostics: [located] };
  const validate = buildSchemaValidator("config");
  if (!validate(located.value)) {
    return { config: DEFAULT_CONFIG, diagnostics: schemaDiagnostics("config/invalid", located, validate.errors, "the config", "config") };
  }
  const prefixTokens = valueAt(located.value, ["budgets", "prefixTokens"]);
  const catalogTokens = valueAt(located.value, ["budgets", "catalogTokens"]);
  const maxBytes = valueAt(located.value, ["supportingFiles", "maxBytes"]);
  const inlineBytes = valueAt(located.value, ["knowledge", "inlineBytes"]);
  return {
    config: {
      budgets: {
        prefixTokens: typeof prefixTokens === "number" ? prefixTokens : DEFAULT_CONFIG.budgets.prefixTokens,
        catalogTokens: typeof catalogTokens === "number" ? catalogTokens : DEFAULT_CONFIG.budgets.catalogTokens,
      },
      supportingFiles: { maxBytes: typeof maxBytes === "number" ? maxBytes : DEFAULT_CONFIG.supportingFiles.maxBytes },
      knowledge: { inlineBytes: typeof inlineBytes === "number" ? inlineBytes : DEFAULT_CONFIG.knowledge.inlineBytes },
    },
    diagnostics: [],
  };
}
