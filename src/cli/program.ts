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

type RegisterCommands = (program: Command, result: { exitCode: number }) => void;

/** Every command's definition, in the order help lists them, with the names each defines. */
const COMMANDS: readonly { names: readonly string[]; register: RegisterCommands }[] = [
  { names: ["init"], register: registerInitCommand },
  { names: ["lint"], register: registerLintCommand },
  { names: ["build", "check"], register: registerBuildCommands },
  { names: ["watch"], register: registerWatchCommand },
  { names: ["cost"], register: registerCostCommand },
  { names: ["audit"], register: registerAuditCommand },
  { names: ["eval"], register: registerEvalCommand },
  { names: ["report"], register: registerReportCommand },
  { names: ["explain"], register: registerExplainCommand },
  { names: ["lsp"], register: registerLspCommand },
  { names: ["mcp"], register: registerMcpCommand },
  { names: ["postgres"], register: registerPostgresCommand },
];

/**
 * Builds the commander program. Each command's action stores its exit code in
 * `result.exitCode`; nothing here calls process.exit, so the program can be
 * driven from tests.
 *
 * Given the argv about to be parsed, and its first argument is a command's
 * name, only that command is defined (with the program's own options): every
 * other definition is work a run of that command never reads, since commander
 * then parses, helps and complains within that command alone. Anything else
 * (no command, an unknown one, `help`, an option first) gets the whole
 * program, so its help, suggestions and errors stay the same.
 */
export function createProgram(result: { exitCode: number }, argv?: readonly string[]): Command {
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
  const named = argv?.[2];
  const only = named === undefined ? undefined : COMMANDS.find(({ names }) => names.includes(named));
  for (const { register } of only === undefined ? COMMANDS : [only]) register(program, result);
  return program;
}

/** Parses argv and runs one command; resolves to the process exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const result = { exitCode: 0 };
  const program = createProgram(result, argv);
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
