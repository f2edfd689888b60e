// Records the cassettes of the shipped scenarios (evals/*.yaml) with a
// scripted model that behaves as a good agent would: it loads the matching
// workflow first, plans one task per checklist step, follows the steps,
// fetches the knowledge its hints point at, asks only what blocks, and
// presents the result. It records through the same path as
// `gamma-prompt eval --record` (runEvals with record: true), on pi-ai's faux
// provider, so anyone can re-run it without a key:
//
//   npm run build:ts && node scripts/record-eval-cassettes.mjs
//
// With a key, replace them by real recordings:
//   OPENAI_API_KEY=... npx gamma-prompt eval --record --model openai/gpt-5 --runs 3
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatSummary, runEvals } from "../lib/index.js";
import { goodAgent } from "./good-agent.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Runs recorded per scenario. */
const RUNS = 3;

const { results, diagnostics } = await runEvals({ root, record: true, runs: RUNS, scriptedModel: goodAgent });
if (results === undefined) {
  process.stderr.write(`${diagnostics.map((diagnostic) => `${diagnostic.file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.message} ${diagnostic.ruleId}`).join("\n")}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(formatSummary(results));
  process.exitCode = results.passed ? 0 : 1;
}
