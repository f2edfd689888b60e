import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { INJECTION_KINDS, type InjectionKindArtifact } from "../../protocol/dist-manifest.js";
import { parseYamlSource, rangeAt } from "../parse/positioned-source.js";
import { schemaDiagnostics } from "./schema-diagnostics.js";
import { buildSchemaValidator } from "./schemas.js";

export { INJECTIONS_FILE } from "../discover/source-paths.js";
export { INJECTION_KINDS };

export function resolveInjections(source: SourceFile): { injections: InjectionKindArtifact[]; diagnostics: Diagnostic[] } {
  const located = parseYamlSource(source);
  if (!("document" in located)) return { injections: [], diagnostics: [located] };
  const validate = buildSchemaValidator("injection-kinds");
  if (!validate(located.value)) {
    return { injections: [], diagnostics: schemaDiagnostics("injection/invalid", located, validate.errors, "the injection kinds", "injection-kinds") };
  }
  const entries = located.value as Array<Omit<InjectionKindArtifact, "tag">>;
  const diagnostics: Diagnostic[] = [];
  // The schema asks for text; spaces alone would reach the prompt as an empty line about the kind.
  entries.forEach((entry, index) => {
    for (const field of ["meaning", "action"] as const) {
      if (entry[field].trim() !== "") continue;
      diagnostics.push(createDiagnostic("injection/invalid", source.path, rangeAt(located, [index, field]), `Unexpected blank ${field} of kind \`${entry.kind}\`, expected the text the prompt gives for it`));
    }
  });
  const length = Math.max(entries.length, INJECTION_KINDS.length);
  for (let index = 0; index < length; index++) {
    const expected = INJECTION_KINDS[index];
    const actual = entries[index]?.kind;
    if (actual === expected) continue;
    const range = actual === undefined ? rangeAt(located, []) : rangeAt(located, [index, "kind"]);
    const message =
      actual === undefined
        ? `Unexpected end of the list, expected kind \`${expected}\` next`
        : expected === undefined
          ? `Unexpected extra kind \`${actual}\`, expected exactly the ${INJECTION_KINDS.length} kinds of the design`
          : `Unexpected kind \`${actual}\` at position ${index + 1}, expected \`${expected}\` (the design's order: ${INJECTION_KINDS.join(", ")})`;
    diagnostics.push(createDiagnostic("injection/kinds-mismatch", source.path, range, message));
    break;
  }
  if (diagnostics.length > 0) return { injections: [], diagnostics };
  const injections = entries.map((entry) => ({
    kind: entry.kind,
    tag: entry.kind,
    meaning: entry.meaning.trim(),
    action: entry.action.trim(),
    delivery: entry.delivery,
  }));
  return { injections, diagnostics };
}
