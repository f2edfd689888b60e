#!/usr/bin/env node
// A reader that stops early (`gamma-prompt check | head`) closes the pipe: the rest of the output has
// nowhere to go, but the command still runs to its end and its exit code still says what it found.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
  });
}

// A bare --version is answered before commander and the commands load: scripts and hooks ask it often.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { packageVersion } = await import("../version.js");
  process.stdout.write(`${packageVersion}\n`);
} else {
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(process.argv);
}
