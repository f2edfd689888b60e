/**
 * The accepted-survivors check `npm run mutate` runs after Stryker
 * (scripts/mutation-survivors.mjs): every survivor is killed or explained,
 * and an explanation that no longer describes a survivor is reported stale.
 * Each case is a hand-made report with its accepted entries in
 * test/fixtures/mutation/<case>/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MUTATION_MODULES } from "../../scripts/mutation-modules.mjs";
import { checkSurvivors, formatCheck, type AcceptedSurvivors, type MutationReport } from "../../scripts/mutation-survivors.mjs";

const fixtures = join(import.meta.dirname, "..", "fixtures", "mutation");
const acceptedDir = join(import.meta.dirname, "accepted-survivors");

function readCase(name: string): { report: MutationReport; accepted: AcceptedSurvivors } {
  return {
    report: JSON.parse(readFileSync(join(fixtures, name, "mutation.json"), "utf8")) as MutationReport,
    accepted: JSON.parse(readFileSync(join(fixtures, name, "accepted.json"), "utf8")) as AcceptedSurvivors,
  };
}

function where(items: ReadonlyArray<{ file: string; line: number; column: number; mutator: string }>): string[] {
  return items.map((item) => `${item.file}:${item.line}:${item.column} ${item.mutator}`);
}

describe("the accepted-survivors check", () => {
  it("counts the report as Stryker does: killed and timed out over every mutant that compiled", () => {
    const { report, accepted } = readCase("all-explained");
    const result = checkSurvivors(report, accepted);
    expect(result.counts).toEqual({ mutants: 7, killed: 2, timeout: 1, survived: 2, noCoverage: 1, compileError: 1 });
    expect(result.score).toBeCloseTo(50, 10);
  });

  it("matches entries on file, mutator, original text and replacement even after the lines drifted", () => {
    const { report, accepted } = readCase("all-explained");
    const result = checkSurvivors(report, accepted);
    expect(result.unexplained).toEqual([]);
    expect(result.stale).toEqual([]);
    expect(result.accepted).toBe(3);
    expect(result.explainedScore).toBeCloseTo(100, 10);
  });

  it("lists each survivor nobody explained, a no-coverage mutant included, and one entry explains only the nearest of two equal survivors", () => {
    const { report, accepted } = readCase("unexplained");
    const result = checkSurvivors(report, accepted);
    expect(where(result.unexplained)).toEqual(["src/clamp.ts:2:7 EqualityOperator", "src/clamp.ts:3:7 EqualityOperator"]);
    expect(result.unexplained.map((mutant) => [mutant.original, mutant.replacement, mutant.status])).toEqual([
      ["value < low", "value <= low", "Survived"],
      ["value > high", "value >= high", "NoCoverage"],
    ]);
    expect(formatCheck("clamp", result).split("\n")).toEqual([
      "mutation module clamp: score 50.00% (7 mutants: 2 killed, 1 timeout, 2 survived, 1 no coverage, 1 compile error)",
      "accepted survivors: 1; score with them counted as detected 66.67%",
      "2 survivor(s) neither killed nor accepted:",
      "  src/clamp.ts:2:7 EqualityOperator: value < low -> value <= low",
      "  src/clamp.ts:3:7 EqualityOperator (no coverage): value > high -> value >= high",
    ]);
  });

  it("reports an entry stale when its mutant is killed now or its source text changed", () => {
    const { report, accepted } = readCase("stale");
    const result = checkSurvivors(report, accepted);
    expect(result.unexplained).toEqual([]);
    expect(result.stale.map((entry) => [entry.line, entry.original])).toEqual([
      [2, "value < low"],
      [3, "value > max"],
    ]);
    expect(formatCheck("clamp", result)).toContain("2 accepted entries match no survivor (killed now, or the code changed): remove or update:\n  src/clamp.ts:2:7 EqualityOperator: value < low -> value <= low\n");
  });

  it("leaves an entry unjudged when a partial run did not mutate its code, and stale when the run was whole", () => {
    const { report, accepted } = readCase("partial");
    const partial = checkSurvivors(report, accepted, { partial: true });
    expect(partial.accepted).toBe(2);
    expect(partial.stale).toEqual([]);
    expect(where(partial.unjudged)).toEqual(["src/clamp.ts:8:7 EqualityOperator"]);
    expect(formatCheck("clamp", partial)).toContain("1 accepted entry outside this partial run, not judged");
    expect(where(checkSurvivors(report, accepted).stale)).toEqual(["src/clamp.ts:8:7 EqualityOperator"]);
  });

  it("leaves an entry unjudged when a partial run killed an equal mutant on another line only", () => {
    // clamp's `value < low` (line 2) is accepted; the run mutated only atLeast, whose equal mutant (line 8) was killed.
    const { report, accepted } = readCase("partial-equal-text-elsewhere");
    const partial = checkSurvivors(report, accepted, { partial: true });
    expect(partial.stale).toEqual([]);
    expect(where(partial.unjudged)).toEqual(["src/clamp.ts:2:7 EqualityOperator"]);
  });
});

describe("the accepted-survivors files", () => {
  const files = readdirSync(acceptedDir).filter((name) => name.endsWith(".json")).sort();

  it.each(files)("%s names a mutation module and explains each entry within that module's files", (name) => {
    const accepted = JSON.parse(readFileSync(join(acceptedDir, name), "utf8")) as { module: string; survivors: Array<Record<string, unknown>> };
    expect(`${accepted.module}.json`).toBe(name);
    const module = MUTATION_MODULES[accepted.module];
    expect(module).toBeDefined();
    for (const entry of accepted.survivors) {
      expect(Object.keys(entry).sort()).toEqual(["column", "file", "line", "mutator", "original", "reason", "replacement"]);
      expect(module?.mutate).toContain(entry["file"]);
      expect(entry["reason"]).toMatch(/^(equivalent|logging only|message only|unreachable): \S/);
    }
  });
});

describe("the scores the README shows", () => {
  const repo = join(import.meta.dirname, "..", "..");
  /** Rows of the first Markdown table after `heading`: the cells of each, without the header and the rule. */
  function tableAfter(text: string, heading: string): string[][] {
    const lines = text.slice(text.indexOf(heading)).split("\n");
    const start = lines.findIndex((line) => line.startsWith("|"));
    const rows: string[][] = [];
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith("|")) break;
      rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
    }
    return rows;
  }

  it("lists every mutation module, in order, with the score today's row of docs/mutation-testing.md gives", () => {
    const readme = tableAfter(readFileSync(join(repo, "README.md"), "utf8"), "### How strong the tests are");
    const docs = tableAfter(readFileSync(join(repo, "docs/mutation-testing.md"), "utf8"), "## Today's score per module");
    expect(readme.map((row) => row[0])).toEqual(Object.keys(MUTATION_MODULES).map((name) => `\`${name}\``));
    for (const [module, , score] of readme) {
      const row = docs.find((cells) => cells[0] === module);
      expect(score, `${module}`).toMatch(/^\d+(\.\d+)?%$/);
      expect(row?.[5], `${module}`).toContain(score);
    }
  });
});
