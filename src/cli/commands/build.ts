import { InvalidArgumentError, Option, type Command } from "commander";
import { addProjectOptions, commandHelpFooter, reporterFormatOption } from "../options.js";
import type { BuildCommandOptions, CheckCommandOptions } from "./build-actions.js";

function parseSeconds(value: string): string {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError("expected a number of seconds, such as 10 or 0.5");
  return value;
}

export function registerBuildCommands(program: Command, result: { exitCode: number }): void {
  const buildCommand = program
    .command("build")
    .description("Lint, then render the prefix, variants, catalog, tool schemas and skill bodies into dist/.");
  addProjectOptions(buildCommand, { rootDescription: "project root (holds skills/, prompts/, schemas/tools/)", out: true })
    .addOption(
      new Option("--format <format>", "table: figures for people; json: the same as one JSON document; github, sarif: the findings for CI").choices(["table", "json", "github", "sarif"]).default("table"),
    )
    .addOption(new Option("--wait <seconds>", "how long to wait for another build of the same output folder").default("10").argParser(parseSeconds))
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `dist/ is replaced as one transaction: a reader finds the complete old build or the complete
new one; a build killed halfway leaves a journal that check and the runtime refuse and that the next
build rolls back or forward. Any error leaves dist/ exactly as it was. Unchanged files are not
rewritten; stale files are removed. One build at a time per output folder: a second one waits
(--wait) and then gives up with exit 2, naming the build that holds the folder.

The table shows each variant's bytes and o200k tokens, the tokens it shares with the static prefix,
how many of those OpenAI can cache (none below 1,024, then steps of 128) and the prefix's share.
Diagnostics go to stderr.`,
        exitCodes: "0 built, 1 errors found (nothing written), 2 usage, an output folder that cannot be written (dist/write-failed: a full disk, no permission; dist/ left as it was) or internal error, 130 stopped by Ctrl-C (143 by SIGTERM) at a safe point: dist/ whole, the lock released.",
        examples: ["gamma-prompt build", "gamma-prompt build --root my-agent --out dist --format json", "gamma-prompt build --format sarif > build.sarif"],
      }),
    )
    .action(async (options: BuildCommandOptions) => {
      const { runBuildCommand } = await import("./build-actions.js");
      result.exitCode = await runBuildCommand(options);
    });

  const checkCommand = program.command("check").description("Verify that dist/ matches its sources and its manifest (writes nothing).");
  addProjectOptions(checkCommand, { rootDescription: "project root", out: true })
    .addOption(reporterFormatOption())
    .option("--full", "work everything out again, even what dist/ records for the same bytes (token counts, accepted tool schemas)")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Renders everything in memory and compares it with dist/. Reports each changed, missing or extra
artifact and each file whose sha256 no longer matches the manifest. For the static prefix it names
the first differing byte and token, the template line that produced it, and whether the change
invalidates the shared cache prefix of every variant. What dist/ records about bytes that come
out the same (their token counts, tool parameter schemas the build accepted) is taken as recorded;
--full works it out again.`,
        exitCodes: "0 dist/ is current, 1 drift or source errors, 2 usage or internal error.",
        examples: ["gamma-prompt check", "gamma-prompt check --format github", "gamma-prompt check --format sarif > check.sarif", "gamma-prompt check --full"],
      }),
    )
    .action(async (options: CheckCommandOptions) => {
      const { runCheckCommand } = await import("./build-actions.js");
      result.exitCode = await runCheckCommand(options);
    });
}
