/**
 * A small project for the report's tests, made from the neutral template:
 * two variants (one preloading a workflow), built once as the base, then
 * edited so the build under test changes one variant's tail and nothing else.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import type { EvalResults, ExpectationResult, ScenarioResult } from "../../src/evals/results.js";
import { RESULTS_FORMAT } from "../../src/evals/results.js";
import { rate } from "../../src/evals/stats.js";
import { tempDir } from "../helpers/temp-project.js";

export interface ReportProject {
  root: string;
  /** dist/ as built before the edit. */
  baseDist: string;
}

export async function reportProject(edit: "tail" | "prefix" | "none" = "tail"): Promise<ReportProject> {
  const root = await tempDir("gamma-prompt-report");
  await init({ dir: root, template: "agent" });
  await writeFile(join(root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  outline:\n    preload: [draft-outline]\n");
  await mustBuild(root);
  const baseDist = join(await tempDir("gamma-prompt-report-base"), "dist");
  await cp(join(root, "dist"), baseDist, { recursive: true });
  if (edit === "tail") {
    const file = join(root, "skills/draft-outline/SKILL.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("Keep a note of each fact you will use", "Keep a short note of each fact you will use"));
  } else if (edit === "prefix") {
    const file = join(root, "prompts/partials/identity.hbs");
    await writeFile(file, `${await readFile(file, "utf8")}\nAnswer in the user's language.\n`);
  }
  if (edit !== "none") await mustBuild(root);
  return { root, baseDist };
}

async function mustBuild(root: string): Promise<void> {
  const result = await build({ root });
  if (result.errorCount > 0) throw new Error(`the report project does not build: ${JSON.stringify(result.diagnostics)}`);
}

function expectation(id: string, kind: ExpectationResult["kind"], passed: number, runs: number): ExpectationResult {
  return { id, kind, ...rate(passed, runs) };
}

function scenario(name: string, variant: string, passed: number, runs: number, expectations: ExpectationResult[]): ScenarioResult {
  return { name, file: `evals/${name}.yaml`, variant, ...rate(passed, runs), pass: passed / runs >= 0.8, expectations, runResults: [] };
}

/** Results as `eval --format json` writes them, and an earlier run they regress from. */
export function sampleEvals(cacheKey: string): { results: EvalResults; baseline: EvalResults } {
  const make = (outlinePassed: number, stepsPassed: number): EvalResults => ({
    format: RESULTS_FORMAT,
    model: "anthropic/claude-sonnet-4-5",
    mode: "live",
    cacheKey,
    runs: 20,
    confidence: { method: "wilson", level: 0.95 },
    threshold: 0.8,
    passed: outlinePassed >= 16,
    scenarios: [
      scenario("outline-from-topic", "outline", outlinePassed, 20, [expectation("loads-outline", "skillActivated", 20, 20), expectation("all-steps", "stepsCompleted", stepsPassed, 20), expectation("asks-once", "yield", 19, 20)]),
      scenario("plain-question", "base", 20, 20, [expectation("no-workflow", "skillNotActivated", 20, 20)]),
    ],
  });
  return { results: make(11, 11), baseline: make(19, 19) };
}
