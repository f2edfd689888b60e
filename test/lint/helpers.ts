import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { fileURLToPath } from "node:url";
import { formatDiagnostics } from "../../src/diagnostics/reporters/index.js";
import { lint, type LintResult } from "../../src/lint.js";
import { readGolden } from "../helpers/golden.js";

export const fixturesDir = fileURLToPath(new URL("../fixtures/lint", import.meta.url));

/** Fixture cases: one folder per case, each a project root with skills/ and expected.json. */
export function fixtureCases(): string[] {
  return readdirSync(fixturesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The rule fixtures are Gamma skills and run under the gamma profile. A case
 * with its own gamma-prompt.config.json, or named `profile-…`, runs as lint
 * would run it: the config's profile, else the one the folder's shape gives.
 */
export async function lintFixture(name: string): Promise<LintResult> {
  const root = join(fixturesDir, name);
  const decidesItself = name.startsWith("profile-") || existsSync(join(root, "gamma-prompt.config.json"));
  return lint(decidesItself ? { root } : { root, profile: "gamma" });
}

/** The `--format json` document for a lint result: the golden files hold exactly this text. */
export function jsonReport(result: LintResult): string {
  return formatDiagnostics("json", result.diagnostics, result);
}

/**
 * Reads a case's expected.json. With UPDATE_GOLDEN=1 it first writes the
 * actual text, for reviewing a deliberate change with git diff.
 */
export function golden(name: string, actual: string): string {
  const path = join(fixturesDir, name, "expected.json");
  return readGolden(path, prettyJson(actual));
}

/** Golden files are indented for review; comparisons parse both sides back to the same compact text. */
export function prettyJson(compact: string): string {
  return `${JSON.stringify(JSON.parse(compact), null, 2)}\n`;
}

/** The OASIS SARIF 2.1.0 schema (draft-04), shipped in test/fixtures/sarif; ajv reads it as draft-07, which it is compatible with. */
export function sarifValidator() {
  const schema = JSON.parse(readFileSync(new URL("../fixtures/sarif/sarif-2.1.0-rtm.5.json", import.meta.url), "utf8")) as Record<string, unknown>;
  delete schema["$schema"];
  delete schema["id"];
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, unicodeRegExp: false });
  return ajv.compile(schema);
}
