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
