#!/usr/bin/env node
/**
 * The package's bin. CommonJS, because Node starts a CommonJS file sooner than
 * an ES module: the Node check, a bare `--version` and a bare `--help` to a
 * pipe or a file, which scripts and hooks ask often, run here before anything
 * else loads. Everything else is the bundled CLI (main.cjs and the chunks it
 * loads, written by scripts/bundle-cli.mjs).
 */

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
const help = args.length === 1 && (args[0] === "--help" || args[0] === "-h") && !process.stdout.isTTY ? recordedHelp() : undefined;
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
 * Writes the answer. A reader that closed the pipe already has nothing to miss; any other failed write (a full
 * disk) loses the answer asked for, so, as every command does (index.ts), one line on stderr says so in the
 * system's own words and the exit code is 2. node:util loads only then.
 */
function answer(text: string): void {
  let failed = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED" || failed) return;
    failed = true;
    process.exitCode = 2;
    const described = error.errno === undefined ? undefined : (require("node:util") as typeof import("node:util")).getSystemErrorMap().get(error.errno)?.[1];
    const reason = described === undefined ? error.message : `${described} (${error.code ?? error.errno})`;
    process.stderr.write(`gamma-prompt: could not write to standard output: ${reason}\n`);
  });
  process.stdout.write(text);
}

/**
 * The text of a bare `--help` off a terminal (80 columns), which the package build records from
 * commander itself beside this file; undefined before that build, when commander answers. On a
 * terminal commander always answers, wrapping help to the window's width.
 */
function recordedHelp(): string | undefined {
  try {
    return (require("node:fs") as typeof import("node:fs")).readFileSync(`${__dirname}/recorded-help.txt`, "utf8");
  } catch {
    return undefined;
  }
}
