/**
 * Judges one run's trace against the scenario's expectations. Each verdict
 * says what was expected and what happened, so a failing run explains itself.
 */
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import { TASK_ACTION_TOOLS } from "../runtime/audit/transcript.js";
import { checklistProgress } from "../runtime/checklist/progress.js";
import { LOAD_NAMESPACE_TOOL } from "../runtime/namespaces.js";
import { argsMatch, type RunTrace, type TraceEntry } from "./run.js";
import { expectationKind, type Expectation, type ExpectationKind, type Scenario, type TraceNamespaceSource } from "./scenario.js";

export interface Verdict {
  id: string;
  kind: ExpectationKind;
  passed: boolean;
  /** Why it failed (absent when it passed). */
  reason?: string;
}

export function judgeRun(scenario: Scenario, trace: RunTrace, artifacts: LoadedArtifacts): Verdict[] {
  return scenario.expect.map((expectation) => {
    const kind = expectationKind(expectation);
    const reason = trace.error !== undefined ? `the run did not finish: ${trace.error}` : failure(expectation, scenario, trace, artifacts);
    return { id: expectation.id, kind, passed: reason === undefined, ...(reason === undefined ? {} : { reason }) };
  });
}

/** Undefined when the expectation holds, else what went wrong. */
function failure(expectation: Expectation, scenario: Scenario, trace: RunTrace, artifacts: LoadedArtifacts): string | undefined {
  const entries = trace.entries;
  if ("skillActivated" in expectation) {
    const { name, beforeFirstTaskAction } = expectation.skillActivated;
    const at = entries.findIndex((entry) => entry.type === "skills_activated" && entry.names.includes(name));
    if (at === -1) return `${name} was never activated (activated: ${activatedNames(entries).join(", ") || "none"})`;
    if (beforeFirstTaskAction === true) {
      const action = entries.findIndex((entry) => entry.type === "tool_call" && entry.refused !== true && TASK_ACTION_TOOLS.has(entry.name));
      if (action !== -1 && action < at) return `${name} was activated after the first task action (${describeCall(entries[action])})`;
    }
    return undefined;
  }
  if ("skillNotActivated" in expectation) {
    const { name } = expectation.skillNotActivated;
    return activatedNames(entries).includes(name) ? `${name} was activated` : undefined;
  }
  if ("namespaceLoaded" in expectation) {
    const { name, loadedBy } = expectation.namespaceLoaded;
    const load = namespaceLoads(entries).find((entry) => entry.names.includes(name));
    if (load === undefined) return `the tool namespace ${name} was never loaded (loaded: ${loadedNamespaceNames(entries).join(", ") || "none"})`;
    if (loadedBy !== undefined && load.loadedBy !== loadedBy) return `the tool namespace ${name} was loaded ${LOAD_SOURCE_TEXT[load.loadedBy]}, expected ${LOAD_SOURCE_TEXT[loadedBy]}`;
    return undefined;
  }
  if ("namespaceNotLoaded" in expectation) {
    const { name } = expectation.namespaceNotLoaded;
    const load = namespaceLoads(entries).find((entry) => entry.names.includes(name));
    return load === undefined ? undefined : `the tool namespace ${name} was loaded ${LOAD_SOURCE_TEXT[load.loadedBy]} in turn ${load.turn}`;
  }
  if ("stepsCompleted" in expectation) {
    const { skill, steps } = expectation.stepsCompleted;
    const checklist = artifacts.skills.get(skill)?.steps ?? [];
    const progress = checklistProgress(skill, checklist, trace.tasks);
    const wanted = steps === "required" ? progress.steps.filter((step) => !step.optional) : progress.steps.filter((step) => steps.includes(step.number));
    const missing = wanted.filter((step) => step.status !== "complete" && !(step.optional && step.status === "skipped"));
    if (missing.length === 0) return undefined;
    // A step no task names is pending in no task: say so, as the audit does.
    const tasked = missing.filter((step) => step.taskIds.length > 0).map((step) => `${step.number} (${step.status.replace("_", " ")})`);
    const unnamed = missing.filter((step) => step.taskIds.length === 0).map((step) => step.number);
    const noTask = unnamed.length === 0 ? "" : `no task names step${unnamed.length === 1 ? "" : "s"} ${unnamed.join(", ")}`;
    return `steps not complete: ${[tasked.join(", "), noTask].filter((part) => part !== "").join("; ")}`;
  }
  if ("toolCalled" in expectation) {
    const { name, argsContain, min = 1, max } = expectation.toolCalled;
    const count = calls(entries, name, argsContain).length;
    if (count < min) return `${name}${describeArgs(argsContain)} was called ${count} time${count === 1 ? "" : "s"}, expected at least ${min}`;
    if (max !== undefined && count > max) return `${name}${describeArgs(argsContain)} was called ${count} times, expected at most ${max}`;
    return undefined;
  }
  if ("toolNotCalled" in expectation) {
    const { name, argsContain, beforeFirstYield } = expectation.toolNotCalled;
    const firstYield = entries.findIndex((entry) => entry.type === "message" && entry.blockOnUser);
    const scope = beforeFirstYield === true && firstYield !== -1 ? entries.slice(0, firstYield) : entries;
    const found = calls(scope, name, argsContain);
    return found.length === 0 ? undefined : `${describeCall(found[0])} was called${beforeFirstYield === true ? " before the first yield" : ""}`;
  }
  if ("yield" in expectation) {
    const { turn = scenario.turns.length, blockOnUser, asksQuestion, contains } = expectation.yield;
    const messages = entries.filter((entry): entry is Extract<TraceEntry, { type: "message" }> => entry.type === "message" && entry.turn === turn);
    const last = messages.at(-1);
    if (last === undefined) return `no message_user call in turn ${turn}`;
    const problems: string[] = [];
    if (blockOnUser !== undefined && last.blockOnUser !== blockOnUser) problems.push(`blockOnUser was ${last.blockOnUser}`);
    if (asksQuestion !== undefined && asksAQuestion(last.message) !== asksQuestion) problems.push(asksQuestion ? "it asks no question" : "it asks a question");
    for (const text of contains ?? []) if (!last.message.toLowerCase().includes(text.toLowerCase())) problems.push(`it does not contain "${text}"`);
    return problems.length === 0 ? undefined : `the last message of turn ${turn} (${JSON.stringify(clip(last.message))}): ${problems.join("; ")}`;
  }
  if ("maxModelCalls" in expectation) {
    return trace.modelCalls <= expectation.maxModelCalls ? undefined : `${trace.modelCalls} model calls, expected at most ${expectation.maxModelCalls}`;
  }
  // auditPasses
  const failed = trace.audits.filter((report) => report.outcome === "fail");
  if (scenario.audit === "off") return `no completion audit ran (the scenario sets audit: off)${expectation.auditPasses ? "" : ", expected one to fail"}`;
  if (!expectation.auditPasses) return failed.length > 0 ? undefined : "every completion audit passed, expected one to fail";
  if (trace.audits.length === 0) return "no completion audit ran (no workflow was active at a yield)";
  if (failed.length === 0) return undefined;
  const findings = failed.flatMap((report) => report.findings.filter((finding) => finding.severity === "error"));
  return `the completion audit failed: ${findings.map((finding) => `${finding.ruleId}${finding.step === undefined ? "" : ` step ${finding.step}`}`).join(", ")}`;
}

/** A message asks a question when one of its sentences ends with a question mark. */
export function asksAQuestion(message: string): boolean {
  return /\?(?=\s|$|["')\]])/.test(message);
}

function activatedNames(entries: readonly TraceEntry[]): string[] {
  return entries.flatMap((entry) => (entry.type === "skills_activated" ? entry.names : []));
}

const LOAD_SOURCE_TEXT: Record<TraceNamespaceSource, string> = {
  skill: "by a workflow skill that became active",
  tool: `with ${LOAD_NAMESPACE_TOOL}`,
  host: "by the host",
  variant: "from session start (the variant sends it)",
};

function namespaceLoads(entries: readonly TraceEntry[]): Array<Extract<TraceEntry, { type: "namespaces_loaded" }>> {
  return entries.filter((entry): entry is Extract<TraceEntry, { type: "namespaces_loaded" }> => entry.type === "namespaces_loaded");
}

function loadedNamespaceNames(entries: readonly TraceEntry[]): string[] {
  return namespaceLoads(entries).flatMap((entry) => entry.names);
}

function calls(entries: readonly TraceEntry[], name: string, argsContain: Record<string, string> | undefined): Array<Extract<TraceEntry, { type: "tool_call" }>> {
  return entries.filter((entry): entry is Extract<TraceEntry, { type: "tool_call" }> => entry.type === "tool_call" && entry.name === name && argsMatch(argsContain, entry.arguments));
}

function describeCall(entry: TraceEntry | undefined): string {
  if (entry?.type !== "tool_call") return "a call";
  return `${entry.name}(${clip(JSON.stringify(entry.arguments), 60)})`;
}

function describeArgs(argsContain: Record<string, string> | undefined): string {
  return argsContain === undefined ? "" : ` with ${Object.entries(argsContain).map(([key, text]) => `${key} containing "${text}"`).join(", ")}`;
}

function clip(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
