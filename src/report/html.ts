/**
 * The report as one self-contained HTML page: inline CSS and SVG, no script,
 * nothing fetched. Figures carry `data-field` attributes (and rows the keys
 * they belong to) so tests can read back exactly what a person sees.
 */
import type { CostRow } from "../cost/cost.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { runsPerScenario, type RateChange } from "../evals/results.js";
import type { Rate } from "../evals/stats.js";
import { REPORT_CSS } from "./style.js";
import { allOf, blockLabel, centsChange, costFigures, count, dollarDelta, dollars, escapeHtml, listing, percent0, percent1, plural, rateFigures, shortHash } from "./format.js";
import type { BaseComparison, ReportData, SkillsView, VariantLayout } from "./model.js";
import { barSvg, describeLayout, rateSvg, skillsGraphSvg, type BarSegment } from "./svg.js";
import { expectReportData } from "./report-data.js";

const e = escapeHtml;

export function renderHtml(data: ReportData): string {
  expectReportData(data, "renderReportHtml");
  const sections = [layoutSection(data), data.base === undefined ? "" : baseSection(data.base, data), costSection(data), skillsSection(data.skills), data.evals === undefined ? "" : evalsSection(data)];
  const nav = [
    ["layout", "Layout and cache"],
    ...(data.base === undefined ? [] : [["base", "Against the base"]]),
    ["costs", "Costs"],
    ["skills", "Skills"],
    ...(data.evals === undefined ? [] : [["evals", "Evaluations"]]),
  ]
    .map(([id, label]) => `<a href="#${id}">${label}</a>`)
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>gamma-prompt report</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
<header class="top">
<p class="eyebrow">gamma-prompt report</p>
<h1>Prompt layout, cache and costs</h1>
<p class="meta">${e(data.generator)} · ${e(data.tokenizer)} · prefix cache key <code>${e(shortHash(data.cacheKey))}</code></p>
${summaryCards(data)}
<nav>${nav}</nav>
</header>
${sections.join("\n")}
<footer>Rules and prices: <code>data/prompt-caching.json</code> (read ${e(data.cost.dataReadOn)}) · ${count(data.cost.simulatedCalls)} model calls simulated · token counts are ${e(data.tokenizer)}.</footer>
</main>
</body>
</html>
`;
}

function summaryCards(data: ReportData): string {
  const cards: string[] = [];
  const largest = [...data.layout].sort((a, b) => b.tokens - a.tokens)[0];
  if (data.sharedPrefix !== undefined) {
    cards.push(card("Shared prefix", `${count(data.sharedPrefix.tokens)} tokens`, `${listing(data.sharedPrefix.blocks.map(blockLabel)) || "nothing"} · same bytes in ${allOf(data.sharedPrefix.variants.length, "variant")}`));
  }
  if (largest !== undefined) cards.push(card("Largest variant", `${count(largest.tokens)} tokens`, `${largest.name} · ${plural(data.layout.length, "variant")}`));
  for (const model of models(data.cost.rows)) {
    // Only variants with sessions have a price: one the profile starts no session of would read as free.
    const rows = data.cost.rows.filter((row) => row.isDefault && row.sessions > 0 && `${row.provider}/${row.model}` === model);
    if (rows.length === 0) continue;
    const low = Math.min(...rows.map((row) => row.inputCostPer1000Sessions));
    const high = Math.max(...rows.map((row) => row.inputCostPer1000Sessions));
    cards.push(card("Input $ / 1,000 sessions", low === high ? dollars(low) : `${dollars(low)}–${dollars(high)}`, `${model}, default policy`));
  }
  if (data.base !== undefined) {
    const affected = data.base.variants.filter((variant) => variant.blocks.some((block) => block.state !== "intact")).length;
    cards.push(data.base.intact ? card("Against the base", "Cache intact", `every cached block kept against ${data.base.label}`, "good") : affected === 0 ? card("Against the base", "Nothing re-cached", `every block already cached against ${data.base.label}`, "good") : card("Against the base", `${plural(affected, "variant")} re-cached`, `cached blocks invalidated against ${data.base.label}`, "warn"));
  }
  const findings = data.skills.skills.flatMap((skill) => skill.findings).concat(data.skills.otherFindings);
  if (data.skills.lintSkipped === undefined) {
    const errors = findings.filter((finding) => finding.severity === "error").length;
    cards.push(card("Lint", errors > 0 ? plural(errors, "error") : findings.length === 0 ? "Clean" : plural(findings.length, "finding"), `${plural(data.skills.skillFilesLinted ?? 0, "skill")} checked`, errors > 0 ? "bad" : findings.length === 0 ? "good" : "warn"));
  }
  if (data.evals !== undefined) {
    const { results, comparison } = data.evals;
    const passing = results.scenarios.filter((scenario) => scenario.pass).length;
    const regressions = comparison?.regressions.length ?? 0;
    const good = passing === results.scenarios.length && regressions === 0;
    const detail = regressions > 0 ? `${plural(regressions, "regression")} against the baseline` : data.evals.otherBuild !== undefined ? "measured on another build" : `${results.model} · ${results.mode}`;
    cards.push(card("Evaluations", `${passing}/${results.scenarios.length} pass`, detail, !good ? "bad" : data.evals.otherBuild !== undefined ? "warn" : "good"));
  }
  return `<div class="cards">${cards.join("")}</div>`;
}

function card(label: string, value: string, detail: string, tone = ""): string {
  return `<div class="card${tone === "" ? "" : ` card-${tone}`}"><div class="card-label">${e(label)}</div><div class="card-value">${e(value)}</div><div class="card-detail">${e(detail)}</div></div>`;
}

function models(rows: readonly CostRow[]): string[] {
  return [...new Set(rows.map((row) => `${row.provider}/${row.model}`))];
}

// ---- layout and cache ---------------------------------------------------------------

function blockSegments(variant: VariantLayout): BarSegment[] {
  return variant.blocks.map((block) => ({ name: block.name, from: block.cumulativeTokens - block.tokens, to: block.cumulativeTokens, fill: `fill-${block.name}`, breakpoint: block.breakpoint }));
}

/**
 * A segment label is its name, then its figure: a figure that does not fit
 * beside the name wraps out of sight whole (never shows cut), a name that does
 * not fit alone ends in an ellipsis.
 */
function lanes(rows: Array<{ name: string; total: string; bar: string; labels: Array<{ from: number; to: number; text: string; figure: string; onLight: boolean }> }>, scale: number, bracket?: { tokens: number; text: string }): string {
  const at = (tokens: number) => (scale === 0 ? 0 : Math.round((tokens / scale) * 10000) / 100);
  const out: string[] = [];
  if (bracket !== undefined && bracket.tokens > 0) {
    out.push(`<div class="lane lane-bracket"><div class="lane-name"></div><div class="lane-track"><div class="bracket" style="width:${at(bracket.tokens)}%"><span>${e(bracket.text)}</span></div></div></div>`);
  }
  for (const row of rows) {
    const labels = row.labels.map((label) => `<span class="seg${label.onLight ? " seg-on-light" : ""}" style="left:${at(label.from)}%;width:${at(label.to - label.from)}%"><span class="seg-name">${e(label.text)}</span> <span class="seg-figure">${e(label.figure)}</span></span>`).join("");
    out.push(`<div class="lane"><div class="lane-name"><strong>${e(row.name)}</strong><small>${e(row.total)}</small></div><div class="lane-track">${row.bar}<div class="seg-labels" aria-hidden="true">${labels}</div></div></div>`);
  }
  out.push(`<div class="lane lane-axis" aria-hidden="true"><div class="lane-name"></div><div class="lane-track">${axisTicks(scale)
    .map((tick) => `<span style="left:${at(tick)}%">${tick >= 1000 ? `${Math.round(tick / 100) / 10}k` : count(tick)}</span>`)
    .join("")}</div></div>`);
  return `<div class="lanes">${out.join("")}</div>`;
}

/** Round ticks, at most six. */
function axisTicks(scale: number): number[] {
  if (scale <= 0) return [0];
  const raw = scale / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let tick = 0; tick <= scale + 1e-9; tick += step) ticks.push(Math.round(tick));
  return ticks;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function legend(items: Array<[string, string]>): string {
  return `<ul class="legend">${items.map(([cls, label]) => `<li><span class="swatch ${cls}"></span>${e(label)}</li>`).join("")}</ul>`;
}

/**
 * Who else sends a variant's block from the same cache entry: the variants
 * whose blocks up to and including it are the same bytes (sha256), as a
 * provider's prefix cache matches them.
 */
function sharedWith(layout: readonly VariantLayout[], variant: VariantLayout, index: number): string {
  const lead = variant.blocks.slice(0, index + 1);
  const others = layout.filter((other) => other.name !== variant.name && lead.every((block, at) => other.blocks[at]?.sha256 === block.sha256 && other.blocks[at]?.name === block.name)).map((other) => other.name);
  if (others.length === 0) return "this variant";
  if (others.length === layout.length - 1) return "all variants";
  return others.length <= 3 ? `this variant and ${listing(others)}` : `this variant and ${count(others.length)} others`;
}

function layoutSection(data: ReportData): string {
  const scale = Math.max(0, ...data.layout.map((variant) => variant.tokens));
  const shared = data.sharedPrefix;
  const rows = data.layout.map((variant) => ({
    name: variant.name,
    total: `${count(variant.tokens)} tokens`,
    bar: barSvg(`layout-${variant.name}`, blockSegments(variant), scale, `Cache layout of ${variant.name}: ${count(variant.tokens)} tokens`, describeLayout(variant)),
    labels: variant.blocks.map((block) => ({ from: block.cumulativeTokens - block.tokens, to: block.cumulativeTokens, text: blockLabel(block.name), figure: count(block.tokens), onLight: block.name === "variant-tail" })),
  }));
  const bracket = shared === undefined ? undefined : { tokens: shared.tokens, text: `shared by ${allOf(shared.variants.length, "variant")} · ${count(shared.tokens)} tokens` };
  const table = data.layout
    .flatMap((variant) =>
      variant.blocks.map(
        (block, index) =>
          `<tr data-variant="${e(variant.name)}" data-block="${e(block.name)}">${index === 0 ? `<th scope="rowgroup" rowspan="${variant.blocks.length}">${e(variant.name)}</th>` : ""}<td><span class="swatch fill-${e(block.name)}"></span>${e(blockLabel(block.name))}</td><td class="num" data-field="tokens">${count(block.tokens)}</td><td class="num" data-field="cumulativeTokens">${count(block.cumulativeTokens)}</td><td class="num" data-field="bytes">${count(block.bytes)}</td><td><code data-field="sha256">${e(shortHash(block.sha256))}</code></td><td data-field="breakpoint">${block.breakpoint ? "yes" : "no"}</td><td data-field="shared">${e(sharedWith(data.layout, variant, index))}</td></tr>`,
      ),
    )
    .join("");
  const sharedText =
    shared === undefined
      ? "One variant: nothing to share."
      : shared.blockCount === 0
        ? "The variants share no cached block: each one starts its cache from nothing."
        : `${capitalize(listing(shared.blocks.map(blockLabel)))} ${shared.blockCount === 1 ? "is" : "are"} byte for byte the same in every variant (${count(shared.tokens)} tokens): a session of any variant warms them for all.`;
  return `<section id="layout">
<h2>Layout and cache</h2>
<p class="lead">What each variant sends before the conversation, in cache order and to scale in tokens. A dark line is a cache breakpoint of the plan. ${e(sharedText)}</p>
${legend([
  ["fill-tools", "tools"],
  ["fill-static-prefix", "static prefix"],
  ["fill-variant-tail", "variant tail"],
  ["swatch-bp", "cache breakpoint"],
])}
<figure>${lanes(rows, scale, bracket)}<figcaption>Blocks of <code>dist/cache-plan.json</code>, tokens counted with o200k_base; the table below gives every figure.</figcaption></figure>
<div class="table-wrap"><table class="blocks"><caption>Cache blocks per variant</caption><thead><tr><th scope="col">variant</th><th scope="col">block</th><th scope="col" class="num">tokens</th><th scope="col" class="num">running total</th><th scope="col" class="num">bytes</th><th scope="col">sha256</th><th scope="col">breakpoint</th><th scope="col">shared</th></tr></thead><tbody>${table}</tbody></table></div>
</section>`;
}

// ---- against the base ---------------------------------------------------------------

const STATE_LABELS: Readonly<Record<string, string>> = { intact: "cached, intact", changed: "changed", invalidated: "after a change: written again", new: "new variant" };

function baseSection(base: BaseComparison, data: ReportData): string {
  const label = e(base.label);
  const affected = base.variants.filter((variant) => variant.blocks.some((block) => block.state !== "intact"));
  const verdict = base.intact
    ? `<p class="verdict verdict-good"><strong>Every cached block is intact.</strong> Against <code>${label}</code> no variant's tools, static prefix or variant tail changed: the provider's cache entries stay valid and nothing is written again.</p>`
    : affected.length === 0
      ? `<p class="verdict verdict-good"><strong>No variant must be cached again.</strong> Against <code>${label}</code> every block of every variant is one a variant of the base already sent; removed: ${e(listing(base.removedVariants))}.</p>`
      : `<p class="verdict verdict-warn"><strong>${plural(affected.length, "variant")} must be cached again.</strong> Against <code>${label}</code> ${e(listing(affected.map((variant) => variant.name)))} ${affected.length === 1 ? "loses" : "lose"} cached blocks${base.removedVariants.length > 0 ? `; removed: ${e(listing(base.removedVariants))}` : ""}.</p>`;
  const scale = Math.max(0, ...data.layout.map((variant) => variant.tokens));
  const rows = base.variants.map((variant) => ({
    name: variant.name,
    total: variant.blocks.every((block) => block.state === "intact") ? "intact" : `${count(base.invalidation.find((entry) => entry.variant === variant.name)?.tokens ?? 0)} tokens re-cached`,
    bar: barSvg(
      `base-${variant.name}`,
      variant.blocks.map((block) => ({ name: block.name, from: block.cumulativeTokens - block.tokens, to: block.cumulativeTokens, fill: `state-${block.state}`, breakpoint: true })),
      scale,
      `Cache blocks of ${variant.name} against ${base.label}`,
      variant.blocks.map((block) => `${blockLabel(block.name)}: ${STATE_LABELS[block.state] ?? block.state}`).join("; "),
    ),
    labels: variant.blocks.map((block) => ({ from: block.cumulativeTokens - block.tokens, to: block.cumulativeTokens, text: blockLabel(block.name), figure: `· ${block.state}`, onLight: block.state !== "changed" })),
  }));
  const changes =
    base.changes.length === 0
      ? `<p>No file in <code>dist/</code> differs from the base.</p>`
      : `<div class="table-wrap"><table><caption>Files changed in dist/</caption><thead><tr><th scope="col">file</th><th scope="col">change</th><th scope="col" class="num">bytes</th><th scope="col">cached blocks it invalidates</th></tr></thead><tbody>${base.changes
          .map(
            (change) =>
              `<tr data-file="${e(change.file)}"><td><code>${e(change.file)}</code></td><td>${change.kind}</td><td class="num">${change.bytesBefore === undefined ? "" : count(change.bytesBefore)}${change.bytesBefore !== undefined && change.bytesAfter !== undefined ? " → " : ""}${change.bytesAfter === undefined ? "" : count(change.bytesAfter)}</td><td data-field="invalidates">${
                change.invalidates.length === 0 ? `<span class="muted">none</span>` : change.invalidates.map((entry) => `<strong>${e(entry.variant)}</strong>: ${e(listing(entry.blocks.map(blockLabel)))}`).join("<br>")
              }</td></tr>`,
          )
          .join("")}</tbody></table></div>`;
  const invalidation =
    base.invalidation.length === 0
      ? ""
      : `<h3>What re-caching costs</h3><p>Per affected variant: the tokens that go uncached until the cache is warm again (on Anthropic from the first block no variant of the base had, on OpenAI from the last 128-token step before the first token no variant of the base had), and what that costs per 1,000 sessions that start cold (a write instead of a read on Anthropic, an uncached read on OpenAI), as <code>check</code> prints it.</p><div class="table-wrap"><table><thead><tr><th scope="col">variant</th><th scope="col" class="num">tokens uncached, Anthropic</th><th scope="col" class="num">tokens uncached, OpenAI</th>${Object.keys(base.invalidation[0]?.dollarsPer1000Sessions ?? {})
          .map((model) => `<th scope="col" class="num">${e(model)}</th>`)
          .join("")}</tr></thead><tbody>${base.invalidation
          .map((entry) => `<tr data-variant="${e(entry.variant)}"><th scope="row">${e(entry.variant)}</th><td class="num">${count(entry.tokens)}</td><td class="num">${count(entry.openaiTokens)}</td>${Object.values(entry.dollarsPer1000Sessions).map((value) => `<td class="num">${dollars(value)}</td>`).join("")}</tr>`)
          .join("")}</tbody></table></div>`;
  const delta =
    base.costDelta.length === 0
      ? base.costDeltaProblem === undefined
        ? ""
        : `<p class="muted">No cost comparison: ${e(base.costDeltaProblem)}.</p>`
      : `<h3>Steady cost under the traffic profile</h3><p>Input cost per 1,000 sessions with the runtime's default policy, base against this build, under the same traffic profile.</p><div class="table-wrap"><table><thead><tr><th scope="col">model</th><th scope="col">policy</th><th scope="col">variant</th><th scope="col" class="num">base</th><th scope="col" class="num">now</th><th scope="col" class="num">change</th></tr></thead><tbody>${base.costDelta
          .map(
            (row) =>
              `<tr><td>${e(`${row.provider}/${row.model}`)}</td><td>${e(row.policy)}</td><td>${e(row.variant)}</td><td class="num">${dollars(row.before)}</td><td class="num">${dollars(row.after)}</td><td class="num ${centsChange(row.before, row.after) > 0 ? "worse" : centsChange(row.before, row.after) < 0 ? "better" : ""}">${dollarDelta(row.before, row.after)}</td></tr>`,
          )
          .join("")}</tbody></table></div>`;
  return `<section id="base">
<h2>Against the base <code>${label}</code></h2>
${verdict}
${legend([
  ["state-intact", "cached, intact"],
  ["state-changed", "changed"],
  ["state-invalidated", "after a change: written again"],
  ["state-new", "new variant"],
])}
<figure>${lanes(rows, scale)}</figure>
${changes}
${invalidation}
${delta}
</section>`;
}

// ---- costs ---------------------------------------------------------------------------

function costSection(data: ReportData): string {
  const { cost } = data;
  const profile = cost.profile;
  const rates = Object.entries(profile.sessionsPerMinute).map(([name, rate]) => `${name} ${Number.isInteger(rate) ? rate : rate.toFixed(1)}`);
  const tables = models(cost.rows).map((model) => {
    const rows = cost.rows.filter((row) => `${row.provider}/${row.model}` === model);
    const highest = Math.max(...rows.map((row) => row.inputCostPer1000Sessions));
    const body = rows
      .map((row) => {
        const figures = costFigures(row);
        return `<tr class="${row.isDefault ? "default" : ""}" data-provider="${e(row.provider)}" data-model="${e(row.model)}" data-policy="${e(row.policy)}" data-variant="${e(row.variant)}"><td>${e(row.policy)}${row.isDefault ? ' <span class="pill">default</span>' : ""}</td><td>${e(row.variant)}</td><td class="num" data-field="cachedFraction">${figures.cached}</td><td class="num"><span class="cost-bar" style="width:${highest === 0 ? 0 : Math.round((row.inputCostPer1000Sessions / highest) * 80)}px"></span><span data-field="inputCostPer1000Sessions">${e(figures.price)}</span></td><td class="num" data-field="coldVariantRead">${count(row.coldVariantRead)}</td></tr>`;
      })
      .join("");
    return `<div class="table-wrap"><table class="costs"><caption>${e(model)}</caption><thead><tr><th scope="col">policy</th><th scope="col">variant</th><th scope="col" class="num">cached</th><th scope="col" class="num">input $ / 1,000 sessions</th><th scope="col" class="num">cold-variant read</th></tr></thead><tbody>${body}</tbody></table></div>`;
  });
  return `<section id="costs">
<h2>Costs</h2>
<p class="lead">Every cache policy for every variant, simulated with each provider's cache rules under the traffic profile (as <code>gamma-prompt cost</code> prints it). “default” is the runtime's policy when the host sets nothing.</p>
<p class="profile">Traffic: ${profile.durationMinutes} min; sessions per minute: ${e(rates.join(", "))}; ${profile.callsPerSession} calls per session, +${count(profile.newTokensPerCall)} tokens per call, ${profile.secondsBetweenCalls} s apart.</p>
${tables.join("\n")}
<p class="muted">“cached” is the share of input tokens read from the cache; “cold-variant read” is what the first call of a new session reads right after one session of another variant.</p>
</section>`;
}

// ---- skills --------------------------------------------------------------------------

function findingItem(finding: Diagnostic): string {
  return `<li class="finding finding-${finding.severity}"><span class="sev">${finding.severity}</span> <a href="${e(finding.url)}"><code>${e(finding.ruleId)}</code></a> ${e(finding.message)} <span class="muted">${e(finding.file)}:${finding.line}</span></li>`;
}

function skillsSection(view: SkillsView): string {
  const svg = skillsGraphSvg(view);
  const rows = view.skills
    .map(
      (skill) =>
        `<tr data-skill="${e(skill.name)}"><th scope="row">${e(skill.name)}</th><td><span class="type type-${skill.type}">${skill.type}</span></td><td class="num" data-field="tokens">${count(skill.tokens)}</td><td class="num" data-field="checklistSteps">${skill.checklistSteps === undefined ? "—" : skill.checklistSteps}</td><td>${e(skill.requires.join(", ")) || "—"}</td><td>${e(skill.conflicts.join(", ")) || "—"}</td><td>${e(skill.preloadedBy.join(", ")) || "—"}</td><td>${
          skill.findings.length === 0 ? (view.lintSkipped !== undefined ? "" : skill.linted ? '<span class="ok">none</span>' : '<span class="muted">no source linted</span>') : `<ul class="findings">${skill.findings.map(findingItem).join("")}</ul>`
        }</td></tr>`,
    )
    .join("");
  const other = view.otherFindings.length === 0 ? "" : `<h3>Other lint findings</h3><ul class="findings">${view.otherFindings.map(findingItem).join("")}</ul>`;
  return `<section id="skills">
<h2>Skills</h2>
<p class="lead">Which skills each variant preloads, which skills require or exclude others, with each skill's type, tokens and checklist length${view.lintSkipped === undefined ? " and what <code>gamma-prompt lint</code> finds in its sources" : ""}.</p>
${view.lintSkipped === undefined ? "" : `<p class="muted">Lint did not run: ${e(view.lintSkipped)}.</p>`}
${legend([
  ["edge-sample-preload", "preloads"],
  ["edge-sample-requires", "requires"],
  ["edge-sample-conflict", "conflicts"],
  ["swatch-finding", "lint findings"],
])}
<figure class="graph-wrap">${svg}</figure>
<div class="table-wrap"><table class="skills"><caption>Skills</caption><thead><tr><th scope="col">skill</th><th scope="col">type</th><th scope="col" class="num">tokens</th><th scope="col" class="num">checklist steps</th><th scope="col">requires</th><th scope="col">conflicts with</th><th scope="col">preloaded by</th><th scope="col">lint findings</th></tr></thead><tbody>${rows}</tbody></table></div>
${other}
</section>`;
}

// ---- evaluations ---------------------------------------------------------------------

function rateCells(id: string, label: string, rate: Rate): string {
  const figures = rateFigures(rate);
  return `<td class="num" data-field="passed">${rate.passed}/${rate.runs}</td><td class="num" data-field="rate">${figures.rate}</td><td class="num" data-field="interval">${figures.interval}</td><td class="rate-cell">${rateSvg(id, label, rate)}</td>`;
}

function evalsSection(data: ReportData): string {
  const evals = data.evals;
  if (evals === undefined) return "";
  const { results, comparison } = evals;
  const regressed = new Set((comparison?.regressions ?? []).map((change) => `${change.scenario}\u0000${change.expectation ?? ""}`));
  const rows = results.scenarios
    .map((scenario, index) => {
      const verdict = scenario.pass ? '<span class="ok">pass</span>' : `<span class="bad">fail</span>${scenario.stale === undefined ? "" : ` <span class="muted">(${plural(scenario.stale, "stale run")} not evaluated)</span>`}${scenario.unanswered === undefined ? "" : ` <span class="muted">(${plural(scenario.unanswered, "run")} without a model reply, not evaluated)</span>`}`;
      const head = `<tr class="scenario${regressed.has(`${scenario.name}\u0000`) ? " regressed" : ""}" data-scenario="${e(scenario.name)}"><th scope="row">${e(scenario.name)} <span class="muted">${e(scenario.variant)}</span></th>${rateCells(`rate-${index}`, scenario.name, scenario)}<td>${verdict}</td></tr>`;
      const expectations = scenario.expectations
        .map(
          (expectation, inner) =>
            `<tr class="expectation${regressed.has(`${scenario.name}\u0000${expectation.id}`) ? " regressed" : ""}" data-scenario="${e(scenario.name)}" data-expectation="${e(expectation.id)}"><th scope="row">${e(expectation.id)} <span class="muted">${e(expectation.kind)}</span></th>${rateCells(`rate-${index}-${inner}`, `${scenario.name} ${expectation.id}`, expectation)}<td>${regressed.has(`${scenario.name}\u0000${expectation.id}`) ? '<span class="bad">regressed</span>' : ""}</td></tr>`,
        )
        .join("");
      return head + expectations;
    })
    .join("");
  const change = (entry: RateChange) => `<li><strong>${e(entry.scenario)}${entry.expectation === undefined ? "" : ` · ${e(entry.expectation)}`}</strong>: ${percent0(entry.baseline.rate)} (${percent0(entry.baseline.interval[0])}–${percent0(entry.baseline.interval[1])}) → ${percent0(entry.current.rate)} (${percent0(entry.current.interval[0])}–${percent0(entry.current.interval[1])})</li>`;
  const baseline =
    comparison === undefined
      ? ""
      : comparison.regressions.length === 0
        ? `<p class="verdict verdict-good"><strong>No regression beyond noise</strong> against the baseline (model ${e(comparison.model)}, dist <code>${e(shortHash(comparison.cacheKey))}</code>): every 95% interval overlaps the baseline's.</p>${comparison.improvements.length === 0 ? "" : `<h3>Improvements</h3><ul>${comparison.improvements.map(change).join("")}</ul>`}`
        : `<p class="verdict verdict-bad"><strong>${plural(comparison.regressions.length, "regression")}</strong> against the baseline (model ${e(comparison.model)}, dist <code>${e(shortHash(comparison.cacheKey))}</code>): the 95% intervals do not overlap.</p><ul>${comparison.regressions.map(change).join("")}</ul>${comparison.improvements.length === 0 ? "" : `<h3>Improvements</h3><ul>${comparison.improvements.map(change).join("")}</ul>`}`;
  const otherBuild =
    evals.otherBuild === undefined
      ? ""
      : `<p class="verdict verdict-warn" data-warning="other-build"><strong>Measured on another build.</strong> These results are of dist <code>${e(shortHash(evals.otherBuild.resultsCacheKey))}</code>; this report's build has prefix cache key <code>${e(shortHash(evals.otherBuild.buildCacheKey))}</code>. They say how that build behaved, not this one: run <code>gamma-prompt eval</code> on this build to measure it.</p>\n`;
  const missing = comparison !== undefined && comparison.missing.length > 0 ? `<p class="muted">In the baseline but not run here: ${e(comparison.missing.join(", "))}.</p>` : "";
  return `<section id="evals">
<h2>Evaluations</h2>
<p class="lead">Model ${e(results.model)} · ${e(results.mode)} · ${e(runsPerScenario(results, count))} · dist <code>${e(shortHash(results.cacheKey))}</code> · a scenario passes at ${percent0(results.threshold)} or more. Intervals are 95% Wilson score intervals.</p>
${otherBuild}${baseline}${missing}
<div class="table-wrap"><table class="evals"><caption>Pass rates per scenario and expectation</caption><thead><tr><th scope="col">scenario / expectation</th><th scope="col" class="num">passed</th><th scope="col" class="num">rate</th><th scope="col" class="num">95% interval</th><th scope="col">0–100%</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>
</section>`;
}
