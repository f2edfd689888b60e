// `npm run mutate [-- <module>...]`: Stryker over each mutation module in turn
// (all of them without an argument), one at a time so two shared cores are
// never asked for more. Reports go to reports/mutation/<module>/.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MUTATION_MODULES } from "./mutation-modules.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !Object.hasOwn(MUTATION_MODULES, name));
if (unknown.length > 0) {
  console.error(`Unexpected mutation module ${unknown.map((name) => JSON.stringify(name)).join(", ")}, expected one of: ${Object.keys(MUTATION_MODULES).join(", ")}`);
  process.exit(2);
}
let failed = false;
for (const name of requested.length > 0 ? requested : Object.keys(MUTATION_MODULES)) {
  console.log(`\n== mutation module ${name}`);
  const run = spawnSync(process.execPath, [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", "stryker.config.mjs"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, GAMMA_MUTATION_MODULE: name },
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
