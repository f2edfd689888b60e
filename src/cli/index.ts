#!/usr/bin/env node
import { enableCompileCache } from "node:module";

// A reader that stops early (`gamma-prompt check | head`) closes the pipe: the rest of the output has
// nowhere to go, but the command still runs to its end and its exit code still says what it found.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
  });
}

/**
 * The text of a bare `--help` written to a pipe or a file (80 columns), as the package build recorded it
 * from this very program into the bundled CLI (scripts/bundle-cli.mjs); undefined in the unbundled modules.
 * On a terminal commander wraps help to the window's width, so there it always answers itself.
 */
declare const GAMMA_PROMPT_RECORDED_HELP: string | undefined;
const recordedHelp = typeof GAMMA_PROMPT_RECORDED_HELP === "string" ? GAMMA_PROMPT_RECORDED_HELP : undefined;

// The package's bin (bin.cjs) checked the Node version and answered a bare --version before loading this module.
// A piped bare --help is answered before commander and the commands load.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h") && recordedHelp !== undefined && !process.stdout.isTTY) {
  process.stdout.write(recordedHelp);
} else {
  // Node keeps the code it compiled for the CLI's modules between runs (in the system's temporary folder,
  // or where NODE_COMPILE_CACHE says; NODE_DISABLE_COMPILE_CACHE turns it off): compiling them is a large
  // part of a small project's lint. A cache that cannot be written costs only that time, never a result.
  enableCompileCache();
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(process.argv);
}
