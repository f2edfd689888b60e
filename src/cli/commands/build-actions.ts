import { build, BuildStoppedError, type BuildResult } from "../../build.js";
import { check, type CheckResult } from "../../check.js";
import { countDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { relativeForFormat } from "../../diagnostics/rebase.js";
import { formatDiagnostics, type ReporterName } from "../../diagnostics/reporters/index.js";
import { ProjectRootError } from "../../pipeline/discover/discover.js";
import { describeLockHolder, OutputLockedError } from "../../pipeline/emit/lock.js";
import type { BuildSummary } from "../../pipeline/render/summary.js";
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandRoot } from "../project-root.js";
import { exitInterrupted, listenForStop } from "../stop-signals.js";


/**
 * What `build` and `check` do once their options are parsed. A module of its
 * own so that the compiler loads only when one of them runs, never for
 * --help, --version or another command.
 */

export interface BuildCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  out: string;
  format: "table" | "json" | "github" | "sarif";
  /** Seconds, as typed (validated by the option's parser). */
  wait: string;
}

export interface CheckCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  out: string;
  format: ReporterName;
  full?: boolean;
}

export async function runBuildCommand(given: BuildCommandOptions): Promise<number> {
  const located = await commandRoot("build", given.root);
  if ("error" in located) return usageLine(located.error);
  const options = { ...given, root: located.root };
  // The first Ctrl-C or SIGTERM stops the build at its next safe point (a write already begun finishes), so
  // it never leaves its lock or a staging folder; a second one ends the process at once.
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stopListening = listenForStop((signal) => {
    stoppedBy = signal;
    stop.abort();
  });
  let outcome: BuildResult;
  try {
    outcome = await build({
      root: options.root,
      outDir: options.out,
      lockWaitMs: Number(options.wait) * 1000,
      onLockWait: (holder) => process.stderr.write(`gamma-prompt build: waiting up to ${options.wait} s for the build of ${options.out}/ by ${describeLockHolder(holder)}\n`),
      signal: stop.signal,
    });
  } catch (error) {
    if (error instanceof BuildStoppedError) {
      process.stderr.write(`gamma-prompt build: stopped by ${stoppedBy ?? "a signal"}; ${options.out}/ was left as it was\n`);
      return exitInterrupted(stoppedBy);
    }
    return usageError("build", error);
  } finally {
    stopListening();
  }
  // The signal came while the build was writing, which always finishes: the new build is in place.
  if (stoppedBy !== undefined) {
    process.stderr.write(`gamma-prompt build: stopped by ${stoppedBy} after ${outcome.ok ? `writing ${options.out}/ in full` : `a build that failed; ${options.out}/ was left as it was`}\n`);
    return exitInterrupted(stoppedBy);
  }
  if (outcome.recovery) {
    const how = { "rolled-back": "rolled back to the previous build", "rolled-forward": "completed", unrecoverable: "could not be used, so only a successful build clears it" }[outcome.recovery];
    process.stderr.write(`gamma-prompt build: an interrupted build had left ${options.out}/ half-replaced; its journal ${how}\n`);
  }
  // Files relative to the working folder, whatever --root is; github's and sarif's to the repository's root in Actions.
  const diagnostics = relativeForFormat(options.format, outcome.diagnostics, options.root);
  if (options.format === "github" || options.format === "sarif") {
    process.stdout.write(formatDiagnostics(options.format, diagnostics, countDiagnostics(diagnostics)));
  } else if (options.format === "json") {
    const document = {
      ok: outcome.ok,
      summary: outcome.summary ?? null,
      prefixChanged: outcome.prefixChanged,
      written: outcome.written,
      removed: outcome.removed,
      unchanged: outcome.unchanged,
      diagnostics,
      errorCount: outcome.errorCount,
      warningCount: outcome.warningCount,
      noteCount: outcome.noteCount,
    };
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } else {
    if (diagnostics.length > 0) process.stderr.write(stylish(diagnostics));
    if (outcome.ok && outcome.summary) {
      process.stdout.write(formatSummaryTable(outcome.summary));
      const changes = outcome.written.length + outcome.removed.length === 0 ? `${options.out}/ already up to date` : `wrote ${outcome.written.length}, removed ${outcome.removed.length}`;
      process.stdout.write(`\n${changes}; ${outcome.unchanged.length} unchanged${outcome.prefixChanged ? "; the shared cache prefix changed" : ""}\n`);
    }
  }
  if (outcome.ok) return EXIT_OK;
  // An output folder that cannot be written (a full disk, no permission) is the environment failing, not the sources: 2, as
  // for a lock that cannot be created or a standard output that refuses a write. The finding says which file and why.
  return outcome.diagnostics.some((diagnostic) => diagnostic.ruleId === "dist/write-failed" && diagnostic.severity === "error") ? EXIT_USAGE : EXIT_FINDINGS;
}

export async function runCheckCommand(given: CheckCommandOptions): Promise<number> {
  const located = await commandRoot("check", given.root);
  if ("error" in located) return usageLine(located.error);
  const options = { ...given, root: located.root };
  let outcome: CheckResult;
  try {
    outcome = await check({ root: options.root, outDir: options.out, ...(options.full ? { full: true } : {}) });
  } catch (error) {
    return usageError("check", error);
  }
  const diagnostics = relativeForFormat(options.format, outcome.diagnostics, options.root);
  if (options.format === "json") {
    const document = {
      diagnostics,
      errorCount: outcome.errorCount,
      warningCount: outcome.warningCount,
      noteCount: outcome.noteCount,
      ok: outcome.ok,
      drift: outcome.drift,
      invalidatesSharedPrefix: outcome.invalidatesSharedPrefix,
      ...(outcome.invalidation === undefined ? {} : { invalidation: outcome.invalidation }),
    };
    process.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    const text = formatDiagnostics(options.format, diagnostics, countDiagnostics(diagnostics));
    if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    if (options.format === "stylish") {
      if (outcome.ok) process.stdout.write(`${options.out}/ is current: ${outcome.artifactCount} artifacts match their sources\n`);
      else if (outcome.drift.some((entry) => entry.kind !== "unreadable")) {
        process.stdout.write(
          outcome.invalidatesSharedPrefix
            ? "The static prefix or tool schemas changed: every variant loses its shared cached prefix. Run `gamma-prompt build`.\n"
            : "Run `gamma-prompt build` to update dist/.\n",
        );
        if (outcome.invalidation) {
          const { formatInvalidationCost } = await import("../../cost/invalidation.js");
          process.stdout.write(`What the edit costs in cached blocks:\n${formatInvalidationCost(outcome.invalidation).replace(/^/gm, "  ")}\n`);
        }
      }
    }
  }
  return outcome.ok ? EXIT_OK : EXIT_FINDINGS;
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
  lines.push(formatToolTokens(summary.tools));
  return `${lines.join("\n")}\n`;
}

/** The stable tool set's tokens and each namespace's: what loading everything up front adds to every call. */
export function formatToolTokens(tools: BuildSummary["tools"]): string {
  const plural = (count: number): string => `${count} tool${count === 1 ? "" : "s"}`;
  const stable = `tools: stable set ${plural(tools.stableCount)}${tools.stableTokens === undefined ? "" : `, ${tools.stableTokens} tokens`}`;
  const namespaces = tools.namespaces.map((namespace) => `; namespace ${namespace.name} ${plural(namespace.tools)}, ${namespace.tokens} tokens`);
  return stable + namespaces.join("");
}

function stylish(diagnostics: Diagnostic[]): string {
  const text = formatDiagnostics("stylish", diagnostics, countDiagnostics(diagnostics));
  return text.endsWith("\n") ? text : `${text}\n`;
}

function usageLine(line: string): number {
  process.stderr.write(`${line}\n`);
  return EXIT_USAGE;
}

function usageError(command: string, error: unknown): number {
  if (error instanceof ProjectRootError || error instanceof OutputLockedError) {
    process.stderr.write(`gamma-prompt ${command}: ${error.message}\n`);
    return EXIT_USAGE;
  }
  throw error;
}
