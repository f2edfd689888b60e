import { InvalidArgumentError, Option, type Command } from "commander";
import { EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { addProjectOptions } from "../options.js";

interface LintCommandOptions {
  root: string;
  format: "stylish" | "json" | "github";
  maxWarnings?: number;
}

const EXAMPLES = `
Exit codes:
  0  no errors (and warnings within --max-warnings)
  1  at least one error, or more warnings than --max-warnings
  2  bad usage (unknown option, no skills/ folder under --root) or an internal error

Examples:
  $ gamma-prompt lint                          check ./skills
  $ gamma-prompt lint --root path/to/project   check path/to/project/skills
  $ gamma-prompt lint --max-warnings 0         fail on any warning too
  $ gamma-prompt lint --format json > lint.json
  $ gamma-prompt lint --format github          annotations for GitHub Actions`;

export function registerLintCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("lint").description("Validate skill manifests, their bodies and their cross-references (requires, conflicts).");
  addProjectOptions(command, { rootDescription: "project root: the folder that holds skills/", out: false })
    .addOption(new Option("--format <name>", "output format").choices(["stylish", "json", "github"]).default("stylish"))
    .option("--max-warnings <n>", "fail when there are more than n warnings", parseMaxWarnings)
    .addHelpText("after", EXAMPLES)
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
