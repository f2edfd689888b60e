import { formatInvalidationCost } from "../cost/invalidation.js";
import { escapeControls, messageRow } from "../diagnostics/printable.js";
import { relativeToWorkingFolder } from "../diagnostics/rebase.js";
import type { WatchBuildEvent, WatchEvent } from "./events.js";

/** The warning the author must not miss: the provider-side prompt cache restarts from zero. */
export const PREFIX_INVALIDATED = "this edit invalidates the cached prefix of every variant";

const LISTED_PATHS = 4;

/**
 * The human summary of one event: one line per build, plus a second line when
 * the static prefix changed. Diagnostics are printed separately, in the lint format.
 */
export function formatWatchEvent(event: WatchEvent): string {
  if (event.type === "error") return `✖ ${describeTrigger(event.changedPaths)}watch error after ${event.durationMs} ms: ${messageRow(escapeControls(event.message, { keepLineBreaks: true }))}\n`;
  let text = event.ok ? formatSuccess(event) : formatFailure(event);
  if (event.prefixChange) {
    const { tokensBefore, tokensAfter } = event.prefixChange;
    text += `⚠ ${PREFIX_INVALIDATED} (static prefix ${tokensBefore} → ${tokensAfter} tokens)\n`;
  }
  if (event.invalidation) {
    if (!event.prefixChange) text += "⚠ this edit invalidates cached blocks\n";
    for (const line of formatInvalidationCost(event.invalidation).split("\n")) text += `  ${line}\n`;
  }
  return text;
}

/**
 * The event as printed: its diagnostics name files relative to the working
 * folder, as lint, build and check print them, whatever --root is.
 */
export function withFilesFromWorkingFolder(event: WatchEvent, root: string, cwd: string = process.cwd()): WatchEvent {
  if (event.type === "error" || event.diagnostics.length === 0) return event;
  return { ...event, diagnostics: relativeToWorkingFolder(event.diagnostics, root, cwd) };
}

/** One JSON document per line, for editor integrations. */
export function formatWatchEventJson(event: WatchEvent): string {
  return `${JSON.stringify(event)}\n`;
}

function formatSuccess(event: WatchBuildEvent): string {
  const verb = event.type === "initial" ? "built" : "rebuilt";
  const parts = [`${verb} in ${event.durationMs} ms`];
  if (event.written.length === 0 && event.removed.length === 0) parts.push("dist/ already up to date");
  if (event.written.length > 0) parts.push(`wrote ${listPaths(event.written)}`);
  if (event.removed.length > 0) parts.push(`removed ${listPaths(event.removed)}`);
  if (event.warningCount > 0) parts.push(plural(event.warningCount, "warning"));
  if (event.noteCount > 0) parts.push(plural(event.noteCount, "note"));
  return `✔ ${describeTrigger(event.changedPaths)}${parts.join(" · ")}\n`;
}

function formatFailure(event: WatchBuildEvent): string {
  const counts = `${plural(event.errorCount, "error")}, ${plural(event.warningCount, "warning")}`;
  return `✖ ${describeTrigger(event.changedPaths)}build failed in ${event.durationMs} ms: ${counts} · dist/ left as it was\n`;
}

function describeTrigger(changedPaths: readonly string[]): string {
  return changedPaths.length === 0 ? "" : `${listPaths(changedPaths)} → `;
}

function listPaths(paths: readonly string[]): string {
  // Names as found on disk: printed with their control characters escaped, as messages are.
  const shown = paths.slice(0, LISTED_PATHS).map((path) => escapeControls(path)).join(", ");
  return paths.length > LISTED_PATHS ? `${shown} (+${paths.length - LISTED_PATHS} more)` : shown;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
