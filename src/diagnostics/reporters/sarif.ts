import { packageVersion } from "../../version.js";
import type { Diagnostic } from "../diagnostic.js";
import { ruleDoc } from "../rules/docs.js";
import { ruleDocUrl, ruleRegistry, type RuleId } from "../rules/index.js";

/**
 * SARIF 2.1.0 for code-scanning upload: one run, every rule the findings use
 * with its one-line description, its doc (what, why, a bad and a good
 * example) and a helpUri (the same documentation URL every diagnostic
 * carries), then one result per finding. Columns are UTF-16
 * code units, as in every other format; `uri` is the same relative path the
 * github format prints (relative to the working folder, or in GitHub
 * Actions to the repository's root when the file is inside it). Severities map one to one onto SARIF levels (error, warning,
 * note). Keys are in a fixed order and nothing volatile is written, so the
 * same findings give the same bytes.
 */
export function formatSarif(diagnostics: readonly Diagnostic[]): string {
  // The rules the findings use, each with its metadata: what code scanning shows beside a result.
  const ruleIds = [...new Set(diagnostics.map((diagnostic) => diagnostic.ruleId))].sort() as RuleId[];
  const indexOf = new Map(ruleIds.map((id, index) => [id, index]));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "gamma-prompt",
            version: packageVersion,
            informationUri: "https://www.npmjs.com/package/gamma-prompt",
            rules: ruleIds.map((id) => {
              const doc = ruleDoc(id);
              const definition = ruleRegistry[id];
              return {
                id,
                name: ruleName(id),
                shortDescription: { text: definition.description },
                fullDescription: { text: doc.text },
                help: { text: `${doc.text}\n\nBad:\n${doc.bad}\n\nGood:\n${doc.good}`, markdown: `${doc.text}\n\nBad:\n\n\`\`\`\n${doc.bad}\n\`\`\`\n\nGood:\n\n\`\`\`\n${doc.good}\n\`\`\`` },
                helpUri: ruleDocUrl(id),
                defaultConfiguration: { level: definition.severity },
              };
            }),
          },
        },
        columnKind: "utf16CodeUnits",
        results: diagnostics.map((diagnostic) => ({
          ruleId: diagnostic.ruleId,
          ruleIndex: indexOf.get(diagnostic.ruleId) ?? 0,
          level: diagnostic.severity,
          message: { text: diagnostic.message },
          locations: [{ physicalLocation: physicalLocation(diagnostic) }],
          ...(diagnostic.related ? { relatedLocations: [{ id: 1, physicalLocation: physicalLocation(diagnostic.related), message: { text: diagnostic.related.message } }] } : {}),
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function physicalLocation(place: { file: string; line: number; column: number; endLine: number; endColumn: number }) {
  return {
    artifactLocation: { uri: encodeUri(place.file) },
    region: { startLine: place.line, startColumn: place.column, endLine: place.endLine, endColumn: place.endLine > place.line ? place.endColumn : Math.max(place.endColumn, place.column) },
  };
}

/** `skill/description-trigger` → `DescriptionTrigger`: SARIF's readable rule name. */
function ruleName(id: string): string {
  const tail = id.slice(id.indexOf("/") + 1);
  return tail.replace(/(^|-)([a-z0-9])/g, (_, __: string, letter: string) => letter.toUpperCase());
}

/** A relative path as a URI reference: each segment percent-encoded, slashes kept. */
function encodeUri(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}
