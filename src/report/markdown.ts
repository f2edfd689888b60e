/**
 * The report as a Markdown summary, for a pull-request comment or a CI job
 * summary: the same figures as the HTML page, in tables, with the long cost
 * table folded.
 */
import { runsPerScenario } from "../evals/results.js";
import { allOf, blockLabel, costFigures, count, dollarDelta, dollars, listing, markdownCode, markdownText as text, percent0, percent1, plural, rateFigures, shortHash } from "./format.js";
import type { ReportData } from "./model.js";
import { expectReportData } from "./report-data.js";

/** A table whose cells are Markdown already: the report's own markup, and outside text through `text` or `markdownCode`. */
function table(header: readonly string[], rows: readonly (readonly string[])[], numeric: readonly number[] = []): string {
  const align = header.map((_, column) => (numeric.includes(column) ? "---:" : "---"));
  const line = (row: readonly string[]) => `| ${row.join(" | ")} |`;
  return [line(header), line(align), ...rows.map(line)].join("\n");
}

export function renderMarkdown(data: ReportData): string {
  expectReportData(data, "renderReportMarkdown");
  const out: string[] = ["## gamma-prompt report", ""];
  out.push(`${text(data.generator)} · ${text(data.tokenizer)} · prefix cache key \`${shortHash(data.cacheKey)}\``, "");
  if (data.base !== undefined) {
    const base = data.base;
    const affected = base.variants.filter((variant) => variant.blocks.some((block) => block.state !== "intact"));
    out.push(
      base.intact
        ? `**Every cached block is intact** against ${markdownCode(base.label, "text")}: no variant's tools, static prefix or variant tail changed.`
        : affected.length === 0
          ? `**No variant must be cached again** against ${markdownCode(base.label, "text")}: every block of every variant is one a variant of the base already sent; removed: ${listing(base.removedVariants.map(text))}.`
          : `**${plural(affected.length, "variant")} must be cached again** against ${markdownCode(base.label, "text")}: ${listing(affected.map((variant) => text(variant.name)))}${base.removedVariants.length > 0 ? `; removed: ${listing(base.removedVariants.map(text))}` : ""}.`,
      "",
    );
  }
  out.push("### Layout and cache", "");
  if (data.sharedPrefix !== undefined && data.sharedPrefix.blockCount > 0) {
    out.push(`Shared by ${allOf(data.sharedPrefix.variants.length, "variant")}: ${listing(data.sharedPrefix.blocks.map(blockLabel))} (${count(data.sharedPrefix.tokens)} tokens).`, "");
  }
  out.push(
    table(
      ["variant", "block", "tokens", "running total", "bytes", "sha256", "breakpoint"],
      data.layout.flatMap((variant) => variant.blocks.map((block) => [text(variant.name), blockLabel(block.name), count(block.tokens), count(block.cumulativeTokens), count(block.bytes), `\`${shortHash(block.sha256)}\``, block.breakpoint ? "yes" : "no"])),
      [2, 3, 4],
    ),
    "",
  );
  if (data.base !== undefined) {
    const base = data.base;
    out.push(`### Against ${markdownCode(base.label, "text")}`, "");
    if (base.changes.length === 0) out.push("No file in dist/ differs from the base.", "");
    else {
      out.push(
        table(
          ["file", "change", "bytes", "cached blocks it invalidates"],
          base.changes.map((change) => [
            markdownCode(change.file, "table"),
            change.kind,
            [change.bytesBefore, change.bytesAfter].filter((value): value is number => value !== undefined).map(count).join(" → "),
            change.invalidates.length === 0 ? "none" : change.invalidates.map((entry) => `${text(entry.variant)}: ${listing(entry.blocks.map(blockLabel))}`).join("; "),
          ]),
          [2],
        ),
        "",
      );
    }
    if (base.invalidation.length > 0) {
      const priced = Object.keys(base.invalidation[0]?.dollarsPer1000Sessions ?? {});
      out.push("Re-caching, per 1,000 sessions that start cold:", "", table(["variant", "tokens uncached, Anthropic", "tokens uncached, OpenAI", ...priced], base.invalidation.map((entry) => [text(entry.variant), count(entry.tokens), count(entry.openaiTokens), ...Object.values(entry.dollarsPer1000Sessions).map(dollars)]), [1, 2, ...priced.map((_, index) => index + 3)]), "");
    }
    if (base.costDelta.length > 0) {
      out.push(
        "Input cost per 1,000 sessions under the traffic profile (the runtime's default policy):",
        "",
        table(["model", "policy", "variant", "base", "now", "change"], base.costDelta.map((row) => [text(`${row.provider}/${row.model}`), text(row.policy), text(row.variant), dollars(row.before), dollars(row.after), dollarDelta(row.before, row.after)]), [3, 4, 5]),
        "",
      );
    } else if (base.costDeltaProblem !== undefined) out.push(`No cost comparison: ${base.costDeltaProblem}.`, "");
  }
  const defaults = data.cost.rows.filter((row) => row.isDefault);
  out.push("### Costs", "", "Input cost per 1,000 sessions with the runtime's default policy:", "");
  out.push(table(["model", "policy", "variant", "cached", "input $ / 1,000 sessions"], defaults.map((row) => {
    const { cached, price } = costFigures(row);
    return [text(`${row.provider}/${row.model}`), text(row.policy), text(row.variant), cached, price];
  }), [3, 4]), "");
  out.push(
    "<details><summary>Every policy</summary>",
    "",
    table(["model", "policy", "variant", "cached", "input $ / 1,000 sessions", "cold-variant read"], data.cost.rows.map((row) => {
      const { cached, price } = costFigures(row);
      return [text(`${row.provider}/${row.model}`), `${text(row.policy)}${row.isDefault ? " (default)" : ""}`, text(row.variant), cached, price, count(row.coldVariantRead)];
    }), [3, 4, 5]),
    "",
    "</details>",
    "",
  );
  const skills = data.skills;
  out.push("### Skills", "");
  if (skills.lintSkipped !== undefined) out.push(`Lint did not run: ${text(skills.lintSkipped)}.`, "");
  out.push(
    table(
      ["skill", "type", "tokens", "checklist steps", "requires", "conflicts with", "preloaded by", "lint findings"],
      skills.skills.map((skill) => [
        text(skill.name),
        text(skill.type),
        count(skill.tokens),
        skill.checklistSteps === undefined ? "—" : String(skill.checklistSteps),
        skill.requires.map(text).join(", ") || "—",
        skill.conflicts.map(text).join(", ") || "—",
        skill.preloadedBy.map(text).join(", ") || "—",
        skill.findings.length === 0 ? (skills.lintSkipped !== undefined ? "" : skill.linted ? "none" : "no source linted") : skill.findings.map((finding) => `${finding.severity} ${text(finding.ruleId)}: ${text(finding.message)}`).join("; "),
      ]),
      [2, 3],
    ),
    "",
  );
  if (skills.otherFindings.length > 0) out.push(...skills.otherFindings.map((finding) => `- ${finding.severity} ${markdownCode(finding.ruleId, "text")} ${text(finding.file)}:${finding.line}: ${text(finding.message)}`), "");
  if (data.evals !== undefined) {
    const { results, comparison } = data.evals;
    out.push("### Evaluations", "", `Model ${text(results.model)} · ${text(results.mode)} · ${text(runsPerScenario(results, count))} · dist \`${shortHash(results.cacheKey)}\` · threshold ${percent0(results.threshold)} · 95% Wilson intervals.`, "");
    const otherBuild = data.evals.otherBuild;
    if (otherBuild !== undefined) {
      out.push(
        `> **Warning: measured on another build.** These results are of dist \`${shortHash(otherBuild.resultsCacheKey)}\`; this report's build has prefix cache key \`${shortHash(otherBuild.buildCacheKey)}\`. They say how that build behaved, not this one: run \`gamma-prompt eval\` on this build to measure it.`,
        "",
      );
    }
    if (comparison !== undefined) {
      out.push(comparison.regressions.length === 0 ? "No regression beyond noise against the baseline (every 95% interval overlaps)." : `**${plural(comparison.regressions.length, "regression")}** against the baseline (95% intervals do not overlap):`, "");
      for (const change of comparison.regressions) out.push(`- ${text(change.scenario)}${change.expectation === undefined ? "" : ` · ${text(change.expectation)}`}: ${percent0(change.baseline.rate)} (${percent0(change.baseline.interval[0])}–${percent0(change.baseline.interval[1])}) → ${percent0(change.current.rate)} (${percent0(change.current.interval[0])}–${percent0(change.current.interval[1])})`);
      if (comparison.regressions.length > 0) out.push("");
    }
    out.push(
      table(
        ["scenario / expectation", "passed", "rate", "95% interval", ""],
        results.scenarios.flatMap((scenario) => [
          [text(scenario.name), `${scenario.passed}/${scenario.runs}`, rateFigures(scenario).rate, rateFigures(scenario).interval, scenario.pass ? "pass" : `**fail**${scenario.stale === undefined ? "" : ` (${plural(scenario.stale, "stale run")} not evaluated)`}${scenario.unanswered === undefined ? "" : ` (${plural(scenario.unanswered, "run")} without a model reply, not evaluated)`}`],
          ...scenario.expectations.map((expectation) => [`↳ ${text(expectation.id)}`, `${expectation.passed}/${expectation.runs}`, rateFigures(expectation).rate, rateFigures(expectation).interval, ""]),
        ]),
        [1, 2, 3],
      ),
      "",
    );
  }
  out.push(`<sub>Rules and prices: data/prompt-caching.json (read ${data.cost.dataReadOn}); ${count(data.cost.simulatedCalls)} model calls simulated.</sub>`);
  return `${out.join("\n")}\n`;
}
