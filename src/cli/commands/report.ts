import { Option, type Command } from "commander";
import { addProjectOptions, commandHelpFooter } from "../options.js";
import type { ReportCommandOptions } from "./report-action.js";

export function registerReportCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("report").description("Write one self-contained HTML page (or a Markdown summary) of the prompt's layout, cache plan, costs, skills and evaluations.");
  addProjectOptions(command, { rootDescription: "project root (dist/ must be built)", out: true })
    .option("--base <dist-or-ref>", "compare with a base: a dist/ folder (or a project holding one) or a git ref whose dist/ is committed")
    .option("--profile <file>", "traffic profile (JSON) for the costs, as for `cost`")
    .option("--evals <file>", "evaluation results (JSON from `eval --format json` or `eval --output`)")
    .option("--baseline <file>", "earlier evaluation results: flag regressions beyond noise")
    .option("--no-lint", "leave lint findings out")
    .addOption(new Option("--format <format>", "html: one page, inline CSS and SVG, no script; markdown: a summary for a pull-request comment or job summary").choices(["html", "markdown"]).default("html"))
    .option("--output <file>", "write to this file instead of stdout")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Reads dist/ (verified, with its cache plan) and shows, per variant, its cache blocks to scale in
tokens (tools, static prefix, variant tail, breakpoints, bytes, sha256), the \`cost\` policy table, the
skills graph (requires, conflicts, preloads) with lint findings, and with --evals the pass rates and
their 95% intervals. With --base it says which files changed, which cached blocks each change
invalidates per variant and what that costs per 1,000 sessions. The same inputs give the same bytes.`,
        exitCodes: "0 written, 2 usage error (no built dist/, a bad --base, profile or results file) or internal error.",
        examples: [
          "gamma-prompt report --output report.html",
          "gamma-prompt report --base origin/main --output report.html",
          "gamma-prompt report --base origin/main --format markdown >> \"$GITHUB_STEP_SUMMARY\"",
          "gamma-prompt report --evals results/branch.json --baseline results/main.json --output report.html",
        ],
      }),
    )
    .action(async (options: ReportCommandOptions) => {
      const { runReportCommand } = await import("./report-action.js");
      result.exitCode = await runReportCommand(options);
    });
}
