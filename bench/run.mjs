// Runs every benchmark in bench/ (files named *.bench.mjs), one after another,
// each in its own process so one benchmark's heap never skews the next.
// Arguments name benchmarks (part of a file name); those that start with `--`
// are passed to each benchmark run (`npm run bench -- startup --installed`).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const passed = process.argv.slice(2).filter((arg) => arg.startsWith("--"));
const files = readdirSync(here)
  .filter((name) => name.endsWith(".bench.mjs"))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort();
let failed = false;
for (const file of files) {
  process.stdout.write(`\n=== ${file}\n`);
  const run = spawnSync(process.execPath, ["--expose-gc", join(here, file), ...passed], { stdio: "inherit" });
  if (run.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
