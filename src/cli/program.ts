import { Command, CommanderError } from "commander";
import { registerAuditCommand } from "./commands/audit.js";
import { registerBuildCommands } from "./commands/build.js";
import { registerCostCommand } from "./commands/cost.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerExplainCommand } from "./commands/explain.js";
import { registerInitCommand } from "./commands/init.js";
import { registerLintCommand } from "./commands/lint.js";
import { registerLspCommand } from "./commands/lsp.js";
import { registerMcpCommand } from "./commands/mcp.js";
import { registerPostgresCommand } from "./commands/postgres.js";
import { registerReportCommand } from "./commands/report.js";
import { registerWatchCommand } from "./commands/watch.js";
import { EXIT_USAGE } from "../diagnostics/exit-code.js";
import { emptyNameProblem } from "./options.js";
import { packageVersion } from "../version.js";
import { missingPiMessage } from "../protocol/pi-requirement.js";

/**
 * Builds the commander program. Each command's action stores its exit code in
 * `result.exitCode`; nothing here calls process.exit, so the program can be
 * driven from tests.
 */
export function createProgram(result: { exitCode: number }): Command {
  const program = new Command("gamma-prompt")
    .description("Compile agent skills and prompt templates into byte-stable, cache-friendly artifacts.")
    .version(packageVersion, "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .hook("preAction", (_program, action) => {
      // Before any command reads or writes: an empty path would name the working folder, or nothing at all.
      const problem = emptyNameProblem(action);
      if (problem === undefined) return;
      process.stderr.write(`${commandPath(action)}: ${problem}\n`);
      throw new CommanderError(EXIT_USAGE, "gamma-prompt.emptyName", problem);
    });
  registerInitCommand(program, result);
  registerLintCommand(program, result);
  registerBuildCommands(program, result);
  registerWatchCommand(program, result);
  registerCostCommand(program, result);
  registerAuditCommand(program, result);
  registerEvalCommand(program, result);
  registerReportCommand(program, result);
  registerExplainCommand(program, result);
  registerLspCommand(program, result);
  registerMcpCommand(program, result);
  registerPostgresCommand(program, result);
  return program;
}

/** Parses argv and runs one command; resolves to the process exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const result = { exitCode: 0 };
  const program = createProgram(result);
  try {
    await program.parseAsync([...argv]);
    return result.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through exitOverride with exit code 0.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const missingPi = missingPiMessage(error);
    if (missingPi !== undefined) {
      process.stderr.write(`gamma-prompt${commandName(argv)}: ${missingPi}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`gamma-prompt: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_USAGE;
  }
}

/** "gamma-prompt postgres migrate": the command as typed, without its options. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/** " eval" for `gamma-prompt eval …`: the command a message is about, or nothing before the first argument. */
function commandName(argv: readonly string[]): string {
  const name = argv.slice(2).find((arg) => !arg.startsWith("-"));
  return name === undefined ? "" : ` ${name}`;
}
