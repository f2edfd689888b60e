import { Option, type Command } from "commander";
import { build, type BuildResult } from "../../build.js";
import { check, type CheckResult } from "../../check.js";
import { countDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { formatDiagnostics, type ReporterName } from "../../diagnostics/reporters/index.js";
import { ProjectRootError } from "../../pipeline/discover/discover.js";
import type { BuildSummary } from "../../pipeline/render/summary.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { addProjectOptions, commandHelpFooter } from "../options.js";

interface BuildCommandOptions {
  root: string;
  out: string;
  format: "table" | "json";
}

interface CheckCommandOptions {
  root: string;
  out: string;
  format: ReporterName;
}

export function registerBuildCommands(program: Command, result: { exitCode: number }): void {
  const buildCommand = program
    .command("build")
    .description("Lint, then render the prefix, variants, catalog, tool schemas and skill bodies into dist/.");
  addProjectOptions(buildCommand, { rootDescription: "project root (holds skills/, prompts/, schemas/tools/)", out: true })
    .addOption(new Option("--format <format>", "table: figures for people; json: the same as one JSON document").choices(["table", "json"]).default("table"))
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `All of dist/ is written or none of it: any error leaves dist/ exactly as it was. Unchanged files
are not rewritten; stale files are removed; dist/manifest.json is written last.

The table shows each variant's bytes and o200k tokens, the tokens it shares with the static prefix,
how many of those OpenAI can cache (none below 1,024, then steps of 128) and the prefix's share.
Diagnostics go to stderr.`,
        exitCodes: "0 built, 1 errors found (nothing written), 2 usage or internal error.",
        examples: ["gamma-prompt build", "gamma-prompt build --root my-agent --out dist --format json"],
      }),
    )
    .action(async (options: BuildCommandOptions) => {
      result.exitCode = await runBuildCommand(options);
    });

  const checkCommand = program.command("check").description("Verify that dist/ matches its sources and its manifest (writes nothing).");
  addProjectOptions(checkCommand, { rootDescription: "project root", out: true })
    .addOption(new Option("--format <format>", "how findings are printed").choices(["stylish", "json", "github"]).default("stylish"))
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Renders everything in memory and compares it with dist/. Reports each changed, missing or extra
artifact and each file whose sha256 no longer matches the manifest. For the static prefix it names
the first differing byte and token, the template line that produced it, and whether the change
invalidates the shared cache prefix of every variant.`,
        exitCodes: "0 dist/ is current, 1 drift or source errors, 2 usage or internal error.",
        examples: ["gamma-prompt check", "gamma-prompt check --format github"],
      }),
    )
    .action(async (options: CheckCommandOptions) => {
      result.exitCode = await runCheckCommand(options);
    });
}

async function runBuildCommand(options: BuildCommandOptions): Promise<number> {
  let outcome: BuildResult;
  try {
    outcome = await build({ root: options.root, outDir: options.out });
  } catch (error) {
    return usageError("build", error);
  }
  if (options.format === "json") {
    const document = {
      ok: outcome.ok,
      summary: outcome.summary ?? null,
      prefixChanged: outcome.prefixChanged,
      written: outcome.written,
      removed: outcome.removed,
      unchanged: outcome.unchanged,
      diagnostics: outcome.diagnostics,
      errorCount: outcome.errorCount,
      warningCount: outcome.warningCount,
    };
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } else {
    if (outcome.diagnostics.length > 0) process.stderr.write(stylish(outcome.diagnostics));
    if (outcome.ok && outcome.summary) {
      process.stdout.write(formatSummaryTable(outcome.summary));
      const changes = outcome.written.length + outcome.removed.length === 0 ? `${options.out}/ already up to date` : `wrote ${outcome.written.length}, removed ${outcome.removed.length}`;
      process.stdout.write(`\n${changes}; ${outcome.unchanged.length} unchanged${outcome.prefixChanged ? "; the shared cache prefix changed" : ""}\n`);
    }
  }
  return outcome.ok ? EXIT_OK : EXIT_FAILURE;
}

async function runCheckCommand(options: CheckCommandOptions): Promise<number> {
  let outcome: CheckResult;
  try {
    outcome = await check({ root: options.root, outDir: options.out });
  } catch (error) {
    return usageError("check", error);
  }
  if (options.format === "json") {
    const document = {
      diagnostics: outcome.diagnostics,
      errorCount: outcome.errorCount,
      warningCount: outcome.warningCount,
      ok: outcome.ok,
      drift: outcome.drift,
      invalidatesSharedPrefix: outcome.invalidatesSharedPrefix,
    };
    process.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    const text = formatDiagnostics(options.format, outcome.diagnostics, countDiagnostics(outcome.diagnostics));
    if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    if (options.format === "stylish") {
      if (outcome.ok) process.stdout.write(`${options.out}/ is current: ${outcome.artifactCount} artifacts match their sources\n`);
      else if (outcome.drift.length > 0) {
        process.stdout.write(
          outcome.invalidatesSharedPrefix
            ? "The static prefix or tool schemas changed: every variant loses its shared cached prefix. Run `gamma-prompt build`.\n"
            : "Run `gamma-prompt build` to update dist/.\n",
        );
      }
    }
  }
  return outcome.ok ? EXIT_OK : EXIT_FAILURE;
}

/** Columns: variant, bytes, tokens, shared-prefix tokens, OpenAI-cacheable tokens, prefix share. */
export function formatSummaryTable(summary: BuildSummary): string {
  const header = ["variant", "bytes", "tokens", "shared prefix", "cacheable", "prefix share"];
  const rows = summary.variants.map((variant) => [
    variant.name,
    String(variant.bytes),
    String(variant.tokens),
    String(variant.sharedPrefixTokens),
    String(variant.cacheableTokens),
    `${variant.prefixShare.toFixed(1)}%`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]): string => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  const lines = [line(header), ...rows.map(line)];
  lines.push("", `static prefix: ${summary.prefix.bytes} bytes, ${summary.prefix.tokens} tokens (${summary.prefix.cacheableTokens} cacheable); catalog: ${summary.catalog.tokens} tokens`);
  return `${lines.join("\n")}\n`;
}

function stylish(diagnostics: Diagnostic[]): string {
  const text = formatDiagnostics("stylish", diagnostics, countDiagnostics(diagnostics));
  return text.endsWith("\n") ? text : `${text}\n`;
}

function usageError(command: string, error: unknown): number {
  if (error instanceof ProjectRootError) {
    process.stderr.write(`gamma-prompt ${command}: ${error.message}\n`);
    return EXIT_USAGE;
  }
  throw error;
}
