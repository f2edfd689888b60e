import { describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { ruleAnchor, ruleRegistry, type RuleId } from "../../src/diagnostics/rules/index.js";
import { collectionTable, formatTable, precisionByRule, precisionCell, keyFindings, lintCorpus, matchLabels, precisionRows, readLabels } from "../../scripts/corpus-precision.mjs";
import { docPage } from "../helpers/docs.js";

/**
 * The labelled corpus (corpus/): every finding lint makes on it has a label
 * read from its file, every label still has its finding, and the tables the
 * corpus README shows are the ones the script prints today.
 */
const findings = await lintCorpus(lint);
const keyed = keyFindings(findings);
const { labelled, unlabelled, stale } = matchLabels(keyed, readLabels());
const corpusReadme = docPage("corpus/README.md").text;
const readme = docPage("README.md").text;

describe("the labelled corpus", () => {
  it("holds at least 500 skills from at least 20 collections", () => {
    expect(findings.skillCounts.size).toBeGreaterThanOrEqual(20);
    expect([...findings.skillCounts.values()].reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(500);
  });

  it("has a label for every finding", () => {
    expect(unlabelled.map((item) => `${item.file}:${item.finding.line}:${item.finding.column} ${item.rule} ${item.key}`)).toEqual([]);
  });

  it("has no label whose finding is gone", () => {
    expect(stale.map((label) => `corpus/labels.tsv:${label.line} ${label.rule} ${label.file} ${label.key}`)).toEqual([]);
  });

  it("gives every label a reason", () => {
    expect(labelled.filter((item) => item.reason.trim() === "").map((item) => `${item.file} ${item.rule} ${item.key}`)).toEqual([]);
  });

  it("shows its collections and the per-rule precision exactly as scripts/corpus-precision.mjs prints them", () => {
    expect(corpusReadme).toContain(collectionTable(findings.skillCounts));
    expect(corpusReadme).toContain(formatTable(precisionRows(labelled, ruleRegistry)));
  });

  it("gives each rule's precision on the corpus in the README's rule table", () => {
    const rows = precisionByRule(precisionRows(labelled, ruleRegistry));
    for (const ruleId of Object.keys(ruleRegistry)) {
      const row = readme.split("\n").find((line) => line.startsWith(`| <a id="${ruleAnchor(ruleId as RuleId)}"></a>`)) ?? "";
      expect(row.split(" | ").at(-1), ruleId).toBe(`${precisionCell(rows.get(ruleId))} |`);
    }
  });

  it("gives skill/unresolved-path's precision on the corpus in its rule page, beside the one measured outside it", () => {
    const row = precisionByRule(precisionRows(labelled, ruleRegistry)).get("skill/unresolved-path");
    expect(docPage("docs/rules/skill/unresolved-path.md").text).toContain(`Measured precision: ${precisionCell(row)} on the labelled corpus`);
  });
});
