// `npm run mutate [-- <module>...] [--concurrency <n>] [--mutate <spec>] [--check]`:
// Stryker over each mutation module in turn (all of them without a name), one
// at a time so two shared cores are never asked for more, then each module's
// report judged against its accepted survivors
// (test/mutation/accepted-survivors/<module>.json, see docs/mutation-testing.md).
//   --concurrency <n>  test runners (and type checkers) Stryker starts; the configuration's 2 by default
//   --mutate <spec>    mutate only part of the module, Stryker's syntax ("src/x.ts:10-40", comma-separated);
//                      the report goes to reports/mutation/<module>/partial/
//   --check            run nothing: judge the module's last whole report again
// Exits non-zero when Stryker fails or a survivor is neither killed nor accepted.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MUTATION_MODULES } from "./mutation-modules.mjs";
import { checkSurvivors, formatCheck } from "./mutation-survivors.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const requested = [];
const strykerArgs = [];
let partial = false;
let checkOnly = false;
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  if (arg === "--check") checkOnly = true;
  else if (arg === "--concurrency" || arg === "--mutate") {
    const value = args[++index];
    if (value === undefined) usage(`${arg} needs a value`);
    strykerArgs.push(arg, value);
    if (arg === "--mutate") partial = true;
  } else if (arg.startsWith("--")) usage(`Unexpected option ${JSON.stringify(arg)}`);
  else requested.push(arg);
}
const unknown = requested.filter((name) => !Object.hasOwn(MUTATION_MODULES, name));
if (unknown.length > 0) usage(`Unexpected mutation module ${unknown.map((name) => JSON.stringify(name)).join(", ")}`);
if (partial && requested.length !== 1) usage("--mutate needs exactly one module");

let failed = false;
for (const name of requested.length > 0 ? requested : Object.keys(MUTATION_MODULES)) {
  console.log(`\n== mutation module ${name}`);
  const reportDir = join("reports", "mutation", name, ...(partial ? ["partial"] : []));
  if (!checkOnly) {
    // The type checker gets only the module's files (and what they import), not the whole project: on two cores it
    // otherwise costs far more than the tests.
    const tsconfig = { extends: "./tsconfig.json", include: [], files: MUTATION_MODULES[name].mutate };
    writeFileSync(join(root, `.mutation-tsconfig.${name}.json`), `${JSON.stringify(tsconfig, null, 2)}\n`);
    const run = spawnSync(process.execPath, [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", "stryker.config.mjs", ...strykerArgs], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, GAMMA_MUTATION_MODULE: name, GAMMA_MUTATION_REPORT_DIR: reportDir },
    });
    if (run.status !== 0) {
      failed = true;
      continue;
    }
  }
  const reportPath = join(root, reportDir, "mutation.json");
  if (!existsSync(reportPath)) {
    console.error(`No report at ${reportPath}: run \`npm run mutate -- ${name}\` first`);
    failed = true;
    continue;
  }
  const acceptedPath = join(root, "test", "mutation", "accepted-survivors", `${name}.json`);
  const accepted = existsSync(acceptedPath) ? JSON.parse(readFileSync(acceptedPath, "utf8")) : { module: name, survivors: [] };
  const result = checkSurvivors(JSON.parse(readFileSync(reportPath, "utf8")), accepted, { partial });
  console.log(`\n${formatCheck(name, result)}`);
  if (result.unexplained.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);

function usage(problem) {
  console.error(`${problem}. Usage: npm run mutate -- [<module>...] [--concurrency <n>] [--mutate <spec>] [--check]; modules: ${Object.keys(MUTATION_MODULES).join(", ")}`);
  process.exit(2);
}
