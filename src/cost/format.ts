/** The `cost` table for people: one block per model, one row per policy and variant. */
import type { CostResult, ToolPolicyReport } from "./cost.js";

/** What the price column says for a variant the traffic profile starts no session of. */
export const NO_SESSIONS = "no sessions";

export function formatCostTable(result: CostResult): string {
  const lines: string[] = [];
  const p = result.profile;
  const rates = Object.entries(p.sessionsPerMinute).map(([name, rate]) => `${name} ${round(rate)}`).join(", ");
  lines.push(
    `traffic: ${p.durationMinutes} min; sessions/min: ${rates}; ${p.callsPerSession} calls/session, +${p.newTokensPerCall} tokens/call, ${p.secondsBetweenCalls} s apart`,
    `blocks (o200k tokens, running total): ${Object.entries(result.blocks).map(([name, b]) => `${name} tools ${b.toolsEnd} / prefix ${b.prefixEnd} / variant ${b.variantEnd}`).join("; ")}`,
    "",
  );
  const models = [...new Set(result.rows.map((row) => `${row.provider}/${row.model}`))];
  for (const model of models) {
    const rows = result.rows.filter((row) => `${row.provider}/${row.model}` === model);
    const header = ["policy", "variant", "cached", "input $/1k sessions", "cold-variant read"];
    // A variant the profile starts no session of has no cached share and no price: a dash and "no sessions", never a figure that reads as free.
    const cells = rows.map((row) => [
      `${row.isDefault ? "* " : "  "}${row.policy}`,
      row.variant,
      row.sessions === 0 ? "—" : `${(row.cachedFraction * 100).toFixed(1)}%`,
      row.sessions === 0 ? NO_SESSIONS : `$${row.inputCostPer1000Sessions.toFixed(2)}`,
      String(row.coldVariantRead),
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => (row[column] ?? "").length)));
    const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
    lines.push(model, line(header), ...cells.map(line), "");
  }
  lines.push(...warmingLines(result), "");
  lines.push(`* the runtime's default. Rules and prices: data/prompt-caching.json (read ${result.dataReadOn}); ${result.simulatedCalls.toLocaleString("en-US")} model calls simulated.`);
  if (result.toolPolicies) lines.push("", ...formatToolPolicies(result.toolPolicies));
  return `${lines.join("\n")}\n`;
}

/** Pi's cache warming per model and variant: what its refreshes cost, what they save, and what Pi itself would send. */
function warmingLines(result: CostResult): string[] {
  const first = result.warming[0];
  if (first === undefined) return [];
  const schedules = [...new Set(result.warming.map((row) => `${row.provider} every ${row.refreshEverySeconds} s of a ${row.ttlSeconds} s entry, at most ${row.maxRefreshes}`))];
  const header = ["model", "variant", "refreshes/session", "refresh $/1k", "saved $/1k", "net $/1k", "Pi's gate from", "Pi sends"];
  const cells = result.warming.map((row) => [
    `${row.provider}/${row.model}`,
    row.variant,
    String(row.refreshesPerSession),
    dollars(row.refreshCostPer1000Sessions),
    dollars(row.savedPer1000Sessions),
    dollars(row.netPer1000Sessions),
    row.piGatePromptTokens === null ? "never" : `${row.piGatePromptTokens.toLocaleString("en-US")} tokens`,
    row.piWarmsProvider ? String(row.piRefreshesPerSession) : "0 (no lifetime)",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => (row[column] ?? "").length)));
  const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
  return [
    `cache warming (Pi's idle refreshes; the runtime sends none unless promptCache.cacheWarming is "pi"): ${schedules.join("; ")}`,
    line(header),
    ...cells.map(line),
  ];
}

function dollars(value: number): string {
  return `${value < 0 ? "-" : ""}$${Math.abs(value).toFixed(2)}`;
}

/** The tool policies: every namespace from the start against namespaces on demand, then the break-even per model. */
export function formatToolPolicies(report: ToolPolicyReport): string[] {
  const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;
  const lines = [
    `tool policies (steady state, input $/1k sessions); a load comes after ${report.callsBeforeLoad} model call${report.callsBeforeLoad === 1 ? "" : "s"} and adds one`,
    ...report.namespaces.map((namespace) => `  namespace ${namespace.name}: ${namespace.tools} tool${namespace.tools === 1 ? "" : "s"}, ${namespace.tokens} tokens, loaded in ${percent(namespace.probability)} of sessions (${namespace.probabilitySource})`),
    "",
  ];
  const models = [...new Set(report.rows.map((row) => `${row.provider}/${row.model}`))];
  for (const model of models) {
    const rows = report.rows.filter((row) => `${row.provider}/${row.model}` === model);
    const inPlace = rows[0]?.inPlace === true;
    const header = ["variant", "all from the start", `${inPlace ? "* " : ""}on demand, in place`, `${inPlace ? "" : "* "}on demand, list re-sent`];
    const cells = rows.map((row) => [row.variant, `$${row.upFront.toFixed(2)}`, `$${row.onDemandInPlace.toFixed(2)}`, `$${row.onDemandResent.toFixed(2)}`]);
    const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => (row[column] ?? "").length)));
    const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
    lines.push(model, line(header), ...cells.map(line));
    const entries = report.breakEven.filter((candidate) => `${candidate.provider}/${candidate.model}` === model);
    const size = (tokens: number | undefined): string => (tokens === undefined ? "never" : String(tokens));
    if (entries[0]) lines.push(`  break-even (${entries[0].variant}): on demand pays for a namespace of at least … tokens, in place / re-sent`);
    for (const entry of entries) {
      const label = entry.namespace === undefined ? `loaded in ${percent(entry.probability)} of sessions` : `${entry.namespace}, loaded in ${percent(entry.probability)}`;
      lines.push(`    ${label}: ${size(entry.inPlaceTokens)} / ${size(entry.resentTokens)}`);
    }
    lines.push("");
  }
  lines.push("* how this model takes a tool added mid-session (data/prompt-caching.json, toolAdditionsInPlace).");
  return lines;
}

/** A one-line progress bar for a terminal. */
export function progressBar(fraction: number, width = 30): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(clamped * 100)).padStart(3)}%`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
