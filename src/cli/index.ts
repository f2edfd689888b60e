#!/usr/bin/env node
// A bare --version is answered before commander and the commands load: scripts and hooks ask it often.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { packageVersion } = await import("../version.js");
  process.stdout.write(`${packageVersion}\n`);
} else {
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(process.argv);
}
