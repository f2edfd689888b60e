// `npm run mutate [-- <module>...]`: Stryker over each mutation module in turn
// (all of them without an argument), one at a time so two shared cores are
// never asked for more. Reports go to reports/mutation/<module>/.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
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
  // The type checker gets only the mutated files (and what they import), not the whole project: on two cores it
  // otherwise costs far more than the tests.
  const tsconfig = { extends: "./tsconfig.json", include: [], files: MUTATION_MODULES[name].mutate };
  writeFileSync(join(root, `.mutation-tsconfig.${name}.json`), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const run = spawnSync(process.execPath, [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", "stryker.config.mjs"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, GAMMA_MUTATION_MODULE: name },
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
