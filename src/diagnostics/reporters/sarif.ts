import type { Diagnostic } from "../diagnostic.js";
import { ruleRegistry } from "../rules/index.js";
import { packageVersion } from "../../version.js";

/**
 * SARIF 2.1.0, one run: what code-scanning services (GitHub among them)
 * import. The rules listed are the ones the findings use, with their
 * registry descriptions; locations are the diagnostics' files and ranges.
 */
export function formatSarif(diagnostics: readonly Diagnostic[]): string {
  const ruleIds = [...new Set(diagnostics.map((diagnostic) => diagnostic.ruleId))].sort();
  const document = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "gamma-prompt",
            version: packageVersion,
            rules: ruleIds.map((id) => ({
              id,
              shortDescription: { text: ruleRegistry[id].description },
              defaultConfiguration: { level: ruleRegistry[id].severity },
            })),
          },
        },
        results: diagnostics.map((diagnostic) => ({
          ruleId: diagnostic.ruleId,
          ruleIndex: ruleIds.indexOf(diagnostic.ruleId),
          level: diagnostic.severity,
          message: { text: diagnostic.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: diagnostic.file },
                region: { startLine: diagnostic.line, startColumn: diagnostic.column, endLine: diagnostic.endLine, endColumn: diagnostic.endColumn },
              },
            },
          ],
        })),
      },
    ],
  };
  return `${JSON.stringify(document)}\n`;
}
