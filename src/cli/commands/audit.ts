import type { Command } from "commander";
import { EXIT_USAGE } from "../../diagnostics/exit-code.js";
import type { ReporterName } from "../../diagnostics/reporters/index.js";
import { commandHelpFooter, reporterFormatOption } from "../options.js";

interface AuditCommandOptions {
  format: ReporterName;
  dist?: string;
  variant?: string;
}

export function registerAuditCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("audit")
    .description("Audit recorded sessions: did the agent follow its workflow skills' checklists?")
    .argument("<files...>", "transcripts: the runtime's session logs or Pi session files (JSONL)")
    .addOption(reporterFormatOption())
    .option("--dist <dir>", "the dist/ whose checklists the sessions ran on (default: the package's embedded default)")
    .option("--variant <name>", "the variant of a Pi session file that does not record one (default: base)")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Runs the runtime's completion audit at every yield of each transcript: required and verification
steps complete, skipped optional steps with a reason, the workflow loaded before the first task action,
hinted knowledge fetched. Each finding points at the transcript line it concerns.`,
        exitCodes: "0 every audit passed, 1 a failed audit or an unreadable transcript, 2 usage or a dist/ that fails verification.",
        examples: ["gamma-prompt audit sessions/s_123.jsonl", "gamma-prompt audit ~/.pi/agent/sessions/*/*.jsonl --variant deck-generation", "gamma-prompt audit sessions/*.jsonl --format sarif > audit.sarif"],
      }),
    )
    .action(async (files: string[], options: AuditCommandOptions) => {
      const [{ audit }, { formatDiagnostics }, { exitCodeFor }, { ArtifactVerificationError }] = await Promise.all([
        import("../../audit.js"),
        import("../../diagnostics/reporters/index.js"),
        import("../../diagnostics/exit-code.js"),
        import("../../runtime/artifacts.js"),
      ]);
      let outcome;
      try {
        outcome = await audit({ files, ...(options.dist === undefined ? {} : { distDir: options.dist }), ...(options.variant === undefined ? {} : { variant: options.variant }) });
      } catch (error) {
        if (error instanceof ArtifactVerificationError) {
          process.stderr.write(`gamma-prompt audit: ${error.message}\n`);
          result.exitCode = EXIT_USAGE;
          return;
        }
        throw error;
      }
      const counts = { errorCount: outcome.errorCount, warningCount: outcome.warningCount };
      process.stdout.write(formatDiagnostics(options.format, outcome.diagnostics, counts));
      result.exitCode = exitCodeFor(counts);
    });
}
