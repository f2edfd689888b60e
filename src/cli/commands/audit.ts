import { join } from "node:path";
import type { Command } from "commander";
import { EXIT_USAGE } from "../../diagnostics/exit-code.js";
import type { ReporterName } from "../../diagnostics/reporters/index.js";
import { commandHelpFooter, reporterFormatOption } from "../options.js";
import { namedProjectsBelow } from "../../project-root.js";
import { commandRoot, ROOT_DEFAULT } from "../project-root.js";

interface AuditCommandOptions {
  format: ReporterName;
  root?: string;
  dist?: string;
  variant?: string;
}

export function registerAuditCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("audit")
    .description("Audit recorded sessions: did the agent follow its workflow skills' checklists?")
    .argument("<files...>", "transcripts: the runtime's session logs or Pi session files (JSONL)")
    .addOption(reporterFormatOption())
    .option("--root <dir>", `the project whose dist/ the sessions ran on (${ROOT_DEFAULT})`)
    .option("--dist <dir>", "the dist/ the sessions ran on, from the working folder (default: the project's dist/)")
    .option("--variant <name>", "the variant of a Pi session file that does not record one, one the dist/ defines (default: the dist/'s only variant; required when it has several)")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Runs the runtime's completion audit at every yield of each transcript: required and verification
steps complete, skipped optional steps with a reason, the workflow loaded before the first task action,
hinted knowledge fetched. Each finding points at the transcript line it concerns. A transcript is audited
only against the build it ran on: a session log of another build (its cache key), or a variant or skill the
dist/ does not define, is an error instead. The last line says what was audited: transcripts, yields and
workflows (on stderr with --format json, github or sarif).`,
        exitCodes: "0 every audit passed, 1 a failed audit, a transcript of another build or an unreadable transcript, 2 usage (a --variant the dist/ does not define, or none for a Pi session file that records no variant on a dist/ of several), no dist/ or a dist/ that fails verification.",
        examples: ["gamma-prompt audit sessions/s_123.jsonl", "gamma-prompt audit ~/.pi/agent/sessions/*/*.jsonl --variant deck-generation", "gamma-prompt audit sessions/*.jsonl --format sarif > audit.sarif"],
      }),
    )
    .action(async (files: string[], options: AuditCommandOptions) => {
      const [{ audit, AuditUsageError, formatAuditChecked }, { formatDiagnostics }, { exitCodeFor }, { ArtifactVerificationError }] = await Promise.all([
        import("../../audit.js"),
        import("../../diagnostics/reporters/index.js"),
        import("../../diagnostics/exit-code.js"),
        import("../../runtime/artifacts.js"),
      ]);
      const fail = (message: string): void => {
        process.stderr.write(`gamma-prompt audit: ${message}\n`);
        result.exitCode = EXIT_USAGE;
      };
      const located = await commandRoot("audit", options.root, { build: true, optional: true });
      if ("error" in located) {
        process.stderr.write(`${located.error}\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      if (options.dist === undefined && !located.found) {
        // As every command says it: a monorepo's root names the projects below it, one of which built the dist/ meant.
        const below = namedProjectsBelow(process.cwd());
        const none = "no dist/ to audit against: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/)";
        return fail(below === undefined ? `${none}; pass --dist with the dist/ the sessions ran on` : `${none}; projects below it: ${below}; pass --root with the project's folder, or --dist with the dist/ the sessions ran on`);
      }
      let outcome;
      try {
        outcome = await audit({ files, root: located.root, ...(options.dist === undefined ? {} : { distDir: options.dist }), ...(options.variant === undefined ? {} : { variant: options.variant }) });
      } catch (error) {
        if (error instanceof ArtifactVerificationError) {
          const hint = options.dist === undefined ? "run `gamma-prompt build` first, or pass --dist with the dist/ the sessions ran on" : "pass --dist with the built dist/ the sessions ran on";
          const { unbuiltFolderMessage } = await import("../unbuilt.js");
          return fail(unbuiltFolderMessage(error, options.dist ?? join(located.root, "dist"), process.cwd(), hint) ?? `${error.message}\n(${hint})`);
        }
        if (error instanceof AuditUsageError) return fail(error.message);
        throw error;
      }
      const counts = { errorCount: outcome.errorCount, warningCount: outcome.warningCount };
      const checked = formatAuditChecked(outcome.checked);
      if (options.format === "stylish") {
        // The findings, then what was audited: a pass and a check of nothing never print the same.
        process.stdout.write(outcome.diagnostics.length === 0 ? `✔ ${checked}\n` : `${formatDiagnostics("stylish", outcome.diagnostics, counts)}${checked}\n`);
      } else {
        // Transcripts are named as given, from the working folder; github's and sarif's from the repository's root in Actions, as lint's.
        const { relativeForFormat } = await import("../../diagnostics/rebase.js");
        process.stdout.write(formatDiagnostics(options.format, relativeForFormat(options.format, outcome.diagnostics, "."), counts));
        process.stderr.write(`${checked}\n`);
      }
      result.exitCode = exitCodeFor(counts);
    });
}
