/** The `cost` table for people: one block per model, one row per policy and variant. */
import type { CostResult } from "./cost.js";

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
    const cells = rows.map((row) => [
      `${row.isDefault ? "* " : "  "}${row.policy}`,
      row.variant,
      `${(row.cachedFraction * 100).toFixed(1)}%`,
      `$${row.inputCostPer1000Sessions.toFixed(2)}`,
      String(row.coldVariantRead),
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => (row[column] ?? "").length)));
    const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
    lines.push(model, line(header), ...cells.map(line), "");
  }
  lines.push(...warmingLines(result), "");
  lines.push(`* the runtime's default. Rules and prices: data/prompt-caching.json (read ${result.dataReadOn}); ${result.simulatedCalls.toLocaleString("en-US")} model calls simulated.`);
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

/** A one-line progress bar for a terminal. */
export function progressBar(fraction: number, width = 30): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(clamped * 100)).padStart(3)}%`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
