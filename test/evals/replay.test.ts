import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runEvals, EvalUsageError } from "../../src/evals/index.js";
import type { EvalResults } from "../../src/evals/results.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { evalProject, repoRoot, withoutNetwork } from "./helpers/project.js";

const RECORD_AGAIN = "the embedded default changed since its cassettes were recorded: run `npm run build:ts && node scripts/record-eval-cassettes.mjs` and commit evals/cassettes/";

describe("the shipped scenarios replay from their cassettes", () => {
  it("replays every cassette in evals/cassettes with no key and no network, and every scenario passes", async () => {
    const { results, diagnostics } = await withoutNetwork(() => runEvals({ root: repoRoot, replay: true }));
    expect(diagnostics).toEqual([]);
    const stale = results?.scenarios.flatMap((scenario) => scenario.runResults.flatMap((run) => (run.error === undefined ? [] : [`${scenario.name} ${run.run}: ${run.error}`]))) ?? [];
    expect(stale, RECORD_AGAIN).toEqual([]);
    expect(results?.scenarios.map((scenario) => [scenario.name, scenario.passed, scenario.runs, scenario.pass])).toEqual([
      ["blocking-question", 3, 3, true],
      ["conflicting-request", 3, 3, true],
      ["drive-import", 3, 3, true],
      ["edit-with-artifact-update", 3, 3, true],
      ["import-request", 3, 3, true],
      ["new-deck-required", 3, 3, true],
      ["topic-only-deck", 3, 3, true],
    ]);
    expect(results).toMatchObject({ model: "scripted/good-agent", mode: "replay", runs: 3, passed: true, cacheKey: loadArtifacts({ distDir: join(repoRoot, "dist") }).manifest.staticPrefix.cacheKey });
  });

  it("reports a stale cassette at the first call whose context changed, naming the cassette and what to do", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const file = join(root, "evals", "blocking-question.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("for Friday's board meeting", "for Monday's board meeting"));
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const { results } = await runEvals({ replay: true, runs: 1 });
      expect(results?.passed).toBe(false);
      expect(results?.scenarios[0]?.runResults[0]?.error).toBe(
        "stale cassette evals/cassettes/blocking-question/1.json: the context of model call 1 differs from the recorded one (dist/'s cache key is unchanged: a skill's body or checklist, a knowledge note, a tool namespace, the scenario or the runtime changed since the recording); re-record it with record: true",
      );
      // Nothing was measured: the run is not counted as a failure of any expectation.
      expect(results?.scenarios[0]).toMatchObject({ stale: 1, runs: 0, pass: false });
      expect(results?.scenarios[0]?.runResults[0]).toMatchObject({ run: 1, stale: true, passed: false, failures: [] });
      expect(results?.scenarios[0]?.expectations.every((expectation) => expectation.runs === 0 && expectation.passed === 0)).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  it("fails on a stale cassette whatever the threshold (exit 1), counting it in no rate and never saying passed", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const third = join(root, "evals/cassettes/blocking-question/3.json");
    const cassette = JSON.parse(readFileSync(third, "utf8")) as { calls: Array<{ context: string }> };
    (cassette.calls[0] as { context: string }).context = "0".repeat(64);
    writeFileSync(third, JSON.stringify(cassette));
    const run = await runCliInProcessFrom(root, "eval", "--replay", "--threshold", "0.6", "evals/blocking-question.yaml");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("blocking-question                       2/2  100%  34%–100%         STALE (1 run not evaluated)\n");
    expect(run.stdout).toContain("  writes-nothing-before-asking          2/2  100%  34%–100%\n");
    expect(run.stdout).toContain("not evaluated (stale cassettes; counted in no rate):\n  blocking-question run 3: stale cassette evals/cassettes/blocking-question/3.json: the context of model call 1 differs");
    expect(run.stdout).not.toContain("passed (threshold");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("1 stale cassette not evaluated (re-record with --record)");
    const json = await runCliInProcessFrom(root, "eval", "--replay", "--threshold", "0.6", "--format", "json", "evals/blocking-question.yaml");
    const document = JSON.parse(json.stdout) as EvalResults;
    expect([json.code, document.passed, document.stale, document.runs]).toEqual([1, false, 1, 3]);
    expect(document.scenarios[0]).toMatchObject({ passed: 2, runs: 2, stale: 1, pass: false });
  });

  it("fails with exit 1 at --threshold 0 when every cassette is stale: nothing was evaluated", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const file = join(root, "evals", "blocking-question.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("for Friday's board meeting", "for Monday's board meeting"));
    const run = await runCliInProcessFrom(root, "eval", "--replay", "--threshold", "0", "evals/blocking-question.yaml");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("blocking-question                       0/0     —  —                STALE (3 runs not evaluated)\n");
    expect(run.stdout).not.toContain("passed (threshold");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("3 stale cassettes not evaluated (re-record with --record)");
  });

  it("refuses a replay of a scenario without cassettes before any run, saying how to record them as the caller would", async () => {
    const root = evalProject({ scenarios: ["blocking-question"] });
    await expect(runEvals({ root, replay: true })).rejects.toThrow(EvalUsageError);
    await expect(runEvals({ root, replay: true })).rejects.toThrow(/^Unexpected scenario "blocking-question" without cassettes in .*evals\/cassettes\/blocking-question\/, expected them recorded first: runEvals\(\{ record: true, model: "provider\/id" \}\)$/);
    const run = await runCliInProcessFrom(root, "eval", "--replay");
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", 'gamma-prompt eval: Unexpected scenario "blocking-question" without cassettes in evals/cassettes/blocking-question/, expected them recorded first: gamma-prompt eval --record --model provider/id\n']);
  });

  it("refuses more runs than cassettes, and a file that is not a cassette, before any run, naming the option as the caller passed it", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    await expect(runEvals({ root, replay: true, runs: 4 })).rejects.toThrow(/^Unexpected runs 4 for scenario "blocking-question", expected at most the 3 cassettes recorded in .*evals\/cassettes\/blocking-question\/$/);
    const runs = await runCliInProcessFrom(root, "eval", "--replay", "--runs", "4");
    expect([runs.code, runs.stderr]).toEqual([2, 'gamma-prompt eval: Unexpected --runs 4 for scenario "blocking-question", expected at most the 3 cassettes recorded in evals/cassettes/blocking-question/\n']);
    writeFileSync(join(root, "evals/cassettes/blocking-question/2.json"), "{\"format\":\"tape\"}\n");
    await expect(runEvals({ root, replay: true })).rejects.toThrow(/^Unexpected cassette .*evals\/cassettes\/blocking-question\/2\.json: expected "format": "gamma-prompt\/eval-cassette@1"; re-record it with record: true$/);
    const cassette = await runCliInProcessFrom(root, "eval", "--replay");
    expect([cassette.code, cassette.stderr]).toEqual([2, 'gamma-prompt eval: Unexpected cassette evals/cassettes/blocking-question/2.json: expected "format": "gamma-prompt/eval-cassette@1"; re-record it with --record\n']);
  });
});

describe("a scenario's set of cassettes with a gap", () => {
  it("refuses a replay with a cassette missing in the middle (exit 2), naming it, instead of replaying fewer runs", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    rmSync(join(root, "evals/cassettes/blocking-question/2.json"));
    const expected = 'Unexpected missing cassette evals/cassettes/blocking-question/2.json of scenario "blocking-question", expected every run from 1.json to 3.json (2 of 3 are there); restore it, or re-record the scenario with --record';
    for (const extra of [[], ["--runs", "1"], ["--runs", "3"]]) {
      const run = await runCliInProcessFrom(root, "eval", "--replay", ...extra, "evals/blocking-question.yaml");
      expect([run.code, run.stdout, run.stderr], extra.join(" ")).toEqual([2, "", `gamma-prompt eval: ${expected}\n`]);
    }
    await expect(runEvals({ root, replay: true })).rejects.toThrow(/^Unexpected missing cassette .*evals\/cassettes\/blocking-question\/2\.json of scenario "blocking-question", .*re-record the scenario with record: true$/);
  });

  it("refuses a cassette copied under another run's name (exit 2): one recorded run counted twice would raise the pass rate", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const folder = join(root, "evals/cassettes/blocking-question");
    writeFileSync(join(folder, "4.json"), readFileSync(join(folder, "3.json")));
    const expected = 'Unexpected cassette evals/cassettes/blocking-question/4.json recorded as run 3 of scenario "blocking-question", expected run 4 of "blocking-question": a copy of another run is no run of its own; re-record the scenario with --record';
    const run = await runCliInProcessFrom(root, "eval", "--replay", "evals/blocking-question.yaml");
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", `gamma-prompt eval: ${expected}\n`]);
    // A cassette of another scenario, too.
    writeFileSync(join(folder, "4.json"), readFileSync(join(folder, "3.json"), "utf8").replace('"scenario": "blocking-question"', '"scenario": "drive-import"'));
    await expect(runEvals({ root, replay: true })).rejects.toThrow(/recorded as run 3 of scenario "drive-import", expected run 4 of "blocking-question"/);
  });

  it("counts the cassettes there are in the --runs message, and replays every one of them", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    rmSync(join(root, "evals/cassettes/blocking-question/3.json"));
    const runs = await runCliInProcessFrom(root, "eval", "--replay", "--runs", "3");
    expect([runs.code, runs.stderr]).toEqual([2, 'gamma-prompt eval: Unexpected --runs 3 for scenario "blocking-question", expected at most the 2 cassettes recorded in evals/cassettes/blocking-question/\n']);
    const { results } = await runEvals({ root, replay: true });
    expect(results?.scenarios[0]).toMatchObject({ passed: 2, runs: 2, pass: true });
    writeFileSync(join(root, "evals/cassettes/blocking-question/notes.md"), "Recorded against the staging proxy.\n");
    const { results: again } = await runEvals({ root, replay: true });
    expect(again?.scenarios[0]?.runResults.map((run) => run.run)).toEqual([1, 2]);
  });
});

describe("a recording killed between its two renames", () => {
  it("loses no cassette: the next replay takes the old set back from the folder beside the scenario's", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    const cassettes = join(root, "evals/cassettes");
    const before = readFileSync(join(cassettes, "blocking-question/1.json"), "utf8");
    // Where a kill after the first rename leaves them: the scenario's folder renamed away, the new set not yet in place.
    renameSync(join(cassettes, "blocking-question"), join(cassettes, ".blocking-question.old-4242-0a1b2c3d"));
    const run = await runCliInProcessFrom(root, "eval", "--replay", "evals/blocking-question.yaml");
    expect(run.code).toBe(0);
    expect(readFileSync(join(cassettes, "blocking-question/1.json"), "utf8")).toBe(before);
    expect(readdirSync(cassettes)).toEqual(["blocking-question"]);
  });
});
