import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { encodedBytes, MAX_MESSAGE_BYTES } from "./message-limit.js";

/**
 * A tool's structured result as it goes to the client (the same JSON as text
 * and as `structuredContent`), and the bound it has to keep: a result past it
 * is not sent, and the error sent instead says what it would have held.
 */

/** Room for the JSON-RPC envelope (`jsonrpc`, `id`, `result`) around a result. */
export const MAX_RESULT_BYTES = MAX_MESSAGE_BYTES - 1024;

export function toolResult(structured: object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured as Record<string, unknown> };
}

/** The bytes `structured` takes on the wire as a tool result; undefined when it is within the bound. */
export function oversizedBytes(structured: object): number | undefined {
  const bytes = encodedBytes(toolResult(structured));
  return bytes > MAX_RESULT_BYTES ? bytes : undefined;
}

/** The refusal of a result of `bytes` bytes from `tool`, before what it would have held. */
export function oversizedResult(tool: string, bytes: number): string {
  return `Unexpected result of ${bytes} bytes as JSON from ${tool}, expected at most ${MAX_RESULT_BYTES}: a client's stdio reader drops a larger message, so it is not sent`;
}

/** How many findings there are, of what severity, in how many files, and the rules with the most. */
export function findingsSummary(diagnostics: readonly Diagnostic[]): string {
  const count = (severity: string): number => diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
  const files = new Set(diagnostics.map((diagnostic) => diagnostic.file)).size;
  const byRule = new Map<string, number>();
  for (const diagnostic of diagnostics) byRule.set(diagnostic.ruleId, (byRule.get(diagnostic.ruleId) ?? 0) + 1);
  const top = [...byRule].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
  const more = byRule.size > top.length ? `, and ${byRule.size - top.length} more rules` : "";
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(diagnostics.length, "finding")} (${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}, ${plural(count("note"), "note")}) in ${plural(files, "file")}; by rule: ${top.map(([rule, n]) => `${rule} ${n}`).join(", ")}${more}`;
}
