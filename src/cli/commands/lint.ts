import { InvalidArgumentError, type Command } from "commander";
import { EXIT_USAGE } from "../../diagnostics/exit-code.js";
import type { ReporterName } from "../../diagnostics/reporters/index.js";
import { addProjectOptions, commandHelpFooter, reporterFormatOption } from "../options.js";

interface LintCommandOptions {
  root: string;
  format: ReporterName;
  maxWarnings?: number;
}


export function registerLintCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("lint").description("Validate skill manifests, their bodies and their cross-references (requires, conflicts).");
  addProjectOptions(command, { rootDescription: "project root: the folder that holds skills/", out: false })
    .addOption(reporterFormatOption())
    .option("--max-warnings <n>", "fail when there are more than n warnings", parseMaxWarnings)
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Checks every skills/<name>/SKILL.md: the frontmatter against the manifest schema, the body against
the skill's type, and the cross-references (names, requiresSkills, conflictsWith) between skills.`,
        exitCodes: "0 no errors (and warnings within --max-warnings), 1 an error or more warnings than --max-warnings, 2 usage (no skills/ folder under --root) or internal error.",
        examples: [
          "gamma-prompt lint",
          "gamma-prompt lint --root path/to/project",
          "gamma-prompt lint --max-warnings 0",
          "gamma-prompt lint --format json > lint.json",
          "gamma-prompt lint --format github",
        ],
      }),
    )
    .action(async (options: LintCommandOptions) => {
      // Loaded here, not at the top, so other commands and --help start fast.
      const [{ lint, ProjectRootError }, { formatDiagnostics }, { exitCodeFor }] = await Promise.all([
        import("../../lint.js"),
        import("../../diagnostics/reporters/index.js"),
        import("../../diagnostics/exit-code.js"),
      ]);
      let outcome;
      try {
        outcome = await lint({ root: options.root });
      } catch (error) {
        if (error instanceof ProjectRootError) {
          process.stderr.write(`gamma-prompt lint: ${error.message}; pass --root with the folder that holds skills/\n`);
          result.exitCode = EXIT_USAGE;
          return;
        }
        throw error;
      }
      const counts = { errorCount: outcome.errorCount, warningCount: outcome.warningCount };
      process.stdout.write(formatDiagnostics(options.format, outcome.diagnostics, counts));
      result.exitCode = exitCodeFor(counts, options.maxWarnings);
      if (options.format === "stylish" && options.maxWarnings !== undefined && counts.errorCount === 0 && counts.warningCount > options.maxWarnings) {
        process.stderr.write(`gamma-prompt lint: ${counts.warningCount} warnings, more than --max-warnings ${options.maxWarnings}\n`);
      }
    });
}

function parseMaxWarnings(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number of 0 or more.");
  return Number(value);
}
