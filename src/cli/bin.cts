#!/usr/bin/env node
/**
 * The package's bin. CommonJS, because Node starts a CommonJS file sooner than
 * an ES module: the Node check, a bare `--version` and a bare `--help` to a
 * pipe or a file, which scripts and hooks ask often, run here before anything
 * else loads. Everything else is the bundled CLI (main.cjs and the chunks it
 * loads, written by scripts/bundle-cli.mjs).
 */
// Node's file functions are loaded before any script runs (its module loader uses them): no cost here.
import fs = require("node:fs");

/**
 * The oldest Node the package runs on (package.json's `engines.node`, checked by a test). Pi 1.x needs it,
 * and Node 20 is past its end of life. Checked before any dependency loads, so an older Node gets one
 * line and exit code 2 instead of a syntax or import error from deep inside a dependency.
 */
const MINIMUM_NODE: readonly [number, number] = [22, 19];
const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split(".").map(Number);
if (nodeMajor < MINIMUM_NODE[0] || (nodeMajor === MINIMUM_NODE[0] && nodeMinor < MINIMUM_NODE[1])) {
  process.stderr.write(`gamma-prompt needs Node.js ${MINIMUM_NODE.join(".")} or later; this is Node.js ${process.versions.node}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const help = args.length === 1 && (args[0] === "--help" || args[0] === "-h") && !stdoutIsTerminal() ? recordedHelp() : undefined;
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  // package.json sits two folders up, in src/ and in lib/ alike (what version.ts reads).
  const { version } = require("../../package.json") as { version: string };
  answer(`${version}\n`);
} else if (help !== undefined) {
  answer(help);
} else {
  // The bundled CLI (scripts/bundle-cli.mjs): its entry chunk, compiled by the loader that keeps the code V8
  // compiled for it between runs.
  (require("./chunk-loader.cjs") as typeof import("./chunk-loader.cjs")).loadChunk(`${__dirname}/main.cjs`);
}

/**
 * Writes the answer straight to the descriptor: `process.stdout` would first build its stream, loading
 * Node's stream modules (4–6 ms, a tenth of such a run, to a pipe). A reader that closed the pipe
 * already has nothing to miss; any other failed write (a full disk) loses the answer asked for, so, as
 * every command does (index.ts), one line on stderr says so in the system's own words and the exit code is
 * 2. A descriptor left non-blocking by whoever made it may refuse a write for now (EAGAIN): the rest then
 * goes through the stream, which waits until the reader takes it. node:util loads only on a failure.
 */
function answer(text: string): void {
  let rest = Buffer.from(text, "utf8");
  try {
    while (rest.length > 0) rest = rest.subarray(fs.writeSync(1, rest));
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (failure.code === "EAGAIN") answerThroughStream(rest);
    else if (failure.code !== "EPIPE") reportFailedWrite(failure);
  }
}

function answerThroughStream(rest: Buffer): void {
  let failed = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED" || failed) return;
    failed = true;
    reportFailedWrite(error);
  });
  process.stdout.write(rest);
}

function reportFailedWrite(error: NodeJS.ErrnoException): void {
  process.exitCode = 2;
  const described = error.errno === undefined ? undefined : (require("node:util") as typeof import("node:util")).getSystemErrorMap().get(error.errno)?.[1];
  const reason = described === undefined ? error.message : `${described} (${error.code ?? error.errno})`;
  process.stderr.write(`gamma-prompt: could not write to standard output: ${reason}\n`);
}

/**
 * Whether standard output is a terminal. Only a character device can be one, and asking the descriptor costs
 * nothing; for a character device (a terminal, /dev/null, /dev/full) `process.stdout` decides.
 */
function stdoutIsTerminal(): boolean {
  try {
    if (!fs.fstatSync(1).isCharacterDevice()) return false;
  } catch {
    // No descriptor 1 to ask about: the stream says what it makes of that.
  }
  return process.stdout.isTTY === true;
}

/**
 * The text of a bare `--help` off a terminal (80 columns), which the package build records from
 * commander itself beside this file; undefined before that build, when commander answers. On a
 * terminal commander always answers, wrapping help to the window's width.
 */
function recordedHelp(): string | undefined {
  try {
    return fs.readFileSync(`${__dirname}/recorded-help.txt`, "utf8");
  } catch {
    return undefined;
  }
}
