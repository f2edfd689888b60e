import { Option, type Command } from "commander";
import { DEFAULT_REPORTER, REPORTER_NAMES } from "../diagnostics/reporters/names.js";
import { ROOT_DEFAULT } from "./project-root.js";

/** Every command reads a project from `--root` (else the one found from the working folder up); the ones that touch dist/ also take `--out`. */
export function addProjectOptions(command: Command, options: { rootDescription: string; out: boolean }): Command {
  command.option("--root <dir>", `${options.rootDescription} (${ROOT_DEFAULT})`);
  if (options.out) command.option("--out <dir>", "output folder, relative to the root (or absolute)", "dist");
  return command;
}

/** `--format` for commands that print findings: the choices are the reporter registry's names. */
export function reporterFormatOption(): Option {
  return new Option("--format <name>", "how findings are printed").choices(REPORTER_NAMES).default(DEFAULT_REPORTER);
}

/**
 * The help text after a command's options, in one layout for every command:
 * what it does, its exit codes, then example invocations.
 */
export function commandHelpFooter(parts: { about: string; exitCodes: string; examples: string[] }): () => string {
  // Made when help is shown (commander calls it then), not at every start-up, and wrapped to the width of that moment.
  return () => {
    const examples = parts.examples.map((example) => `  ${example}`).join("\n");
    const about = parts.about.split(/\n{2,}/).map((paragraph) => wrap(paragraph)).join("\n\n");
    return `\n${about}\n\n${wrap(`Exit codes: ${parts.exitCodes}`)}\n\nExamples:\n${examples}`;
  };
}

/** Help's width: the terminal's, else 80, as commander wraps the options above (examples are commands: never wrapped). */
function helpWidth(): number {
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : 80;
}

/** A paragraph's words on lines no wider than help's width (a longer word stands alone). */
function wrap(paragraph: string): string {
  const width = helpWidth();
  const lines: string[] = [];
  let line = "";
  for (const word of paragraph.split(/\s+/).filter((part) => part !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}

/** What an option or argument names, by the placeholder its help shows. */
const PATH_PLACEHOLDERS: Readonly<Record<string, string>> = { file: "file", files: "file", scenarios: "file", dir: "folder", "dist-or-ref": "folder or git ref" };

/**
 * The usage error for a file or folder option or argument given an empty name
 * (`--profile "$PROFILE"` with the variable unset): resolved, "" is the working
 * folder, so it would be read as a folder, written as nothing, or taken for
 * the project itself. Undefined when every such value names something.
 * `--root` and `--config` say it where they are read, with their own advice.
 */
export function emptyNameProblem(command: Command): string | undefined {
  for (const option of command.options) {
    const placeholder = /<([a-z-]+)>/.exec(option.flags)?.[1];
    const what = placeholder === undefined ? undefined : PATH_PLACEHOLDERS[placeholder];
    if (what === undefined || option.long === "--root" || option.long === "--config") continue;
    if (command.getOptionValue(option.attributeName()) === "") return `${option.long} names no ${what} (an empty name); pass it a path, or leave the option out`;
  }
  for (const [index, argument] of command.registeredArguments.entries()) {
    const what = PATH_PLACEHOLDERS[argument.name()];
    const value: unknown = command.processedArgs[index];
    if (what === undefined || !(value === "" || (Array.isArray(value) && value.includes("")))) continue;
    return `the ${argument.name()} argument names no ${what} (an empty name); pass it a path${argument.required ? "" : ", or leave it out"}`;
  }
  return undefined;
}
