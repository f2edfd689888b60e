/**
 * The names `--format` accepts, apart from the reporters themselves: the CLI
 * builds its options from these at start-up, and the reporters (SARIF carries
 * every rule's documentation) load only when one prints.
 */
export const REPORTER_NAMES = ["stylish", "json", "github", "sarif"] as const;

export type ReporterName = (typeof REPORTER_NAMES)[number];

export const DEFAULT_REPORTER: ReporterName = "stylish";

export function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}
