#!/usr/bin/env node
import { existsSync, readFileSync } from "node:fs";
import { getSystemErrorMap } from "node:util";

/** Written by the package build (scripts/bundle-cli.mjs) from this program's own `--help`, 80 columns as off a terminal. */
const RECORDED_HELP = new URL("./recorded-help.txt", import.meta.url);

// A reader that stops early (`gamma-prompt check | head`) closes the pipe: the rest of the output has
// nowhere to go, but the command still runs to its end and its exit code still says what it found (watch
// stops: its events are all it has to say). Any other failed write (a full disk, an I/O error) loses
// output the caller asked for: one line says so and the exit code is 2, never the 1 of findings.
let outputFailed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED" || outputFailed) return;
    outputFailed = true;
    process.exitCode = 2;
    const name = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
    const what = stream === process.stdout ? "standard output" : "standard error";
    // The system's own words ("no space left on device"); nothing of the package loads for them.
    const described = error.errno === undefined ? undefined : getSystemErrorMap().get(error.errno)?.[1];
    const reason = described === undefined ? error.message : `${described} (${error.code ?? error.errno})`;
    if (stream === process.stdout) process.stderr.write(`gamma-prompt${name === undefined ? "" : ` ${name}`}: could not write to ${what}: ${reason}\n`);
  });
}

// The package's bin (bin.cjs) checked the Node version and answered a bare --version, and a bare --help
// to a pipe or a file (with the text the package build recorded beside it), before loading this module.
const args = process.argv.slice(2);
/** Why the working folder has no path, when a command needs it and it has none. */
let workingFolder: string | undefined;
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h") && !process.stdout.isTTY && existsSync(RECORDED_HELP)) {
  // Run as `node lib/cli/index.js --help`: the same recorded text.
  process.stdout.write(readFileSync(RECORDED_HELP, "utf8"));
} else if (needsWorkingFolder(args) && (workingFolder = workingFolderProblem()) !== undefined) {
  // Every command resolves paths against the working folder, --root included: one line instead of an error
  // from deep inside the command.
  const name = args.find((arg) => !arg.startsWith("-"));
  process.stderr.write(`gamma-prompt${name === undefined ? "" : ` ${name}`}: ${workingFolder}\n`);
  process.exitCode = 2;
} else {
  // No top-level await: the package build bundles this module into CommonJS chunks (scripts/bundle-cli.mjs),
  // which the loader compiles with the code V8 kept from an earlier run (chunk-loader.cts).
  void import("./program.js")
    .then(({ runCli }) => runCli(process.argv))
    .then((exitCode) => {
      // A write that failed while the command ran decides the exit code; one that fails later sets it then.
      if (!outputFailed) process.exitCode = exitCode;
    });
}

/**
 * Why the system gives no path for the folder this process was started in (with the way out), or undefined when it does: the
 * folder was removed (ENOENT), its path is longer than the system's limit (ERANGE), or a folder above it
 * may not be read (EACCES).
 */
function workingFolderProblem(): string | undefined {
  try {
    process.cwd();
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "the working folder no longer exists; cd to a folder that does and run it again";
    if (code === "ERANGE" || code === "ENAMETOOLONG") return `the working folder's path is longer than the system allows (${code}); cd to a folder with a shorter path and run it again`;
    return `the working folder's path cannot be read (${code ?? String(error)}); cd to another folder and run it again`;
  }
}

/**
 * Whether a run works in the working folder: every command does, but help, `explain` (which reads only the
 * package's rule pages) and the language server (which takes its projects from the editor) do not.
 */
function needsWorkingFolder(argv: readonly string[]): boolean {
  const name = argv.find((arg) => !arg.startsWith("-"));
  return name !== undefined && name !== "help" && name !== "explain" && name !== "lsp" && !argv.some((arg) => arg === "--help" || arg === "-h");
}
