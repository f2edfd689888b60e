import { InvalidArgumentError, Option, type Command } from "commander";
import { EXIT_FINDINGS, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import type { ReporterName } from "../../diagnostics/reporters/index.js";
import { addProjectOptions, commandHelpFooter, reporterFormatOption } from "../options.js";

interface LintCommandOptions {
  root: string;
  format: ReporterName;
  maxWarnings?: number;
  profile?: "gamma" | "agentskills";
  allowEmpty?: boolean;
}

export function registerLintCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("lint").description("Validate skill manifests, their bodies, their links and their cross-references (requires, conflicts).");
  addProjectOptions(command, { rootDescription: "project root: the folder that holds skills/", out: false })
    .addOption(reporterFormatOption())
    .addOption(new Option("--profile <name>", "rules to apply (default: the config's profile, else detected)").choices(["gamma", "agentskills"]))
    .option("--max-warnings <n>", "fail when there are more than n warnings", parseMaxWarnings)
    .option("--allow-empty", "pass when no skill is found")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Checks every SKILL.md where the config's \`skills\` looks (default skills/*): the frontmatter against the
profile's rules, the body's links and shape, and the cross-references between skills.

Profiles: gamma (type required; the default for a project with prompts/) and agentskills (exactly the open
Agent Skills specification; the default for any other folder). The summary line names the one that ran.`,
        exitCodes:
          "0 no errors (and warnings within --max-warnings), 1 an error, more warnings than --max-warnings or no skill found (without --allow-empty), 2 usage (no skills/ folder under --root) or internal error.",
        examples: [
          "gamma-prompt lint",
          "gamma-prompt lint --root path/to/project",
          "gamma-prompt lint --profile agentskills",
          "gamma-prompt lint --max-warnings 0",
          "gamma-prompt lint --format json > lint.json",
          "gamma-prompt lint --format github",
          "gamma-prompt lint --format sarif > lint.sarif",
        ],
      }),
    )
    .action(async (options: LintCommandOptions) => {
      result.exitCode = await runLint(options);
    });
}

async function runLint(options: LintCommandOptions): Promise<number> {
  // Loaded here, not at the top, so other commands and --help start fast.
  const [{ lint, ProjectRootError }, { formatDiagnostics }, { exitCodeFor }, { relativeToWorkingFolder }] = await Promise.all([
    import("../../lint.js"),
    import("../../diagnostics/reporters/index.js"),
    import("../../diagnostics/exit-code.js"),
    import("../../diagnostics/rebase.js"),
  ]);
  let outcome;
  try {
    outcome = await lint({ root: options.root, ...(options.profile ? { profile: options.profile } : {}), reportEmpty: options.allowEmpty !== true });
  } catch (error) {
    if (error instanceof ProjectRootError) {
      process.stderr.write(`gamma-prompt lint: ${error.message}; pass --root with the folder that holds skills/\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  // Files relative to the working folder (the repository root in CI), whatever --root is.
  const diagnostics = relativeToWorkingFolder(outcome.diagnostics, options.root);
  const counts = { errorCount: outcome.errorCount, warningCount: outcome.warningCount, noteCount: outcome.noteCount };
  process.stdout.write(formatDiagnostics(options.format, diagnostics, { ...counts, profile: outcome.profile, skillCount: outcome.skillFileCount }));
  if (options.format === "stylish" && options.maxWarnings !== undefined && counts.errorCount === 0 && counts.warningCount > options.maxWarnings) {
    process.stderr.write(`gamma-prompt lint: ${counts.warningCount} warnings, more than --max-warnings ${options.maxWarnings}\n`);
  }
  // An empty project is only a warning, but a run that checked nothing must not pass by accident.
  if (outcome.diagnostics.some((diagnostic) => diagnostic.ruleId === "skill/no-skills")) return EXIT_FINDINGS;
  return exitCodeFor(counts, options.maxWarnings);
}

function parseMaxWarnings(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number of 0 or more.");
  return Number(value);
}
