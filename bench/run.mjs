// Runs every benchmark in bench/ (files named *.bench.mjs), one after another,
// each in its own process so one benchmark's heap never skews the next.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith(".bench.mjs"))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort();
let failed = false;
for (const file of files) {
  process.stdout.write(`\n=== ${file}\n`);
  const run = spawnSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" });
  if (run.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
