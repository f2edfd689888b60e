/**
 * The completion audit: when the model yields while a workflow skill is
 * active, did it follow the skill? Every required step complete, every
 * skipped optional step with a reason, the verification steps done, the
 * workflow loaded before the first task action, and the knowledge its hints
 * point at fetched. One implementation for the live runtime (at each yield)
 * and for `gamma-prompt audit` over recorded transcripts.
 */
import { AUDIT_RULES, type AuditRuleId } from "../../protocol/audit-rules.js";
import type { ChecklistStep } from "../../protocol/checklist.js";
import { checklistProgress, type Deviation, type StepProgress } from "../checklist/progress.js";
import type { Task } from "../execution-state.js";
import { fetchedKnowledgeId, TASK_ACTION_TOOLS, type PositionedEvent, type TranscriptEvent } from "./transcript.js";


export { AUDIT_RULES, type AuditRuleId };

export interface AuditFinding {
  ruleId: AuditRuleId;
  severity: "error" | "warning";
  message: string;
  skill?: string;
  step?: number;
  /** Transcript position the finding points at. */
  position: number;
}

/**
 * `pass`: nothing required is missing; `fail`: an error finding; `question`:
 * the yield asks the user something while a task is blocked on it, so the
 * workflow is paused, not finished, and its steps are not judged yet.
 */
export type AuditOutcome = "pass" | "fail" | "question";

export interface AuditReport {
  outcome: AuditOutcome;
  /** The active workflow skills that were audited. */
  workflows: string[];
  findings: AuditFinding[];
  deviations: Deviation[];
  /** Position of the yield audited. */
  position: number;
}

/** What the audit needs to know about each skill (LoadedSkill fits). */
export interface AuditSkill {
  type: "workflow" | "reference";
  steps?: readonly ChecklistStep[];
}

/** The running state of a transcript as the audit reads it; JSON only, so a session can persist it. */
export interface AuditFold {
  /** Active skills with the position at which each became active (0 = preloaded). */
  active: Array<{ name: string; position: number }>;
  tasks: Task[];
  tasksPosition: number;
  firstAction?: { tool: string; position: number; id?: string };
  hints: Array<{ id: string; position: number }>;
  fetched: string[];
  /** Task actions that ran while a required skill was missing (invocation enforcement). */
  unmet?: Array<{ tool: string; missing: string[]; position: number }>;
}

export function emptyFold(): AuditFold {
  return { active: [], tasks: [], tasksPosition: 0, hints: [], fetched: [] };
}

/** Applies one event to the fold (in place) and returns it. */
export function foldEvent(fold: AuditFold, event: PositionedEvent | (TranscriptEvent & { position: number })): AuditFold {
  const activate = (name: string, position: number): void => {
    if (!fold.active.some((skill) => skill.name === name)) fold.active.push({ name, position });
  };
  switch (event.type) {
    case "session":
      for (const name of event.preloadedSkills) activate(name, 0);
      break;
    case "skills_loaded":
      for (const name of event.names) activate(name, event.position);
      break;
    case "build_changed": {
      // What the build dropped leaves; a skill it brought (a requirement, a preload) is active from here.
      const now = new Set(event.activeSkills);
      fold.active = fold.active.filter((skill) => now.has(skill.name));
      for (const name of event.activeSkills) activate(name, event.position);
      break;
    }
    case "tool_call": {
      if (fold.firstAction === undefined && TASK_ACTION_TOOLS.has(event.name)) fold.firstAction = { tool: event.name, position: event.position, id: event.id };
      const fetched = fetchedKnowledgeId(event);
      if (fetched !== undefined && !fold.fetched.includes(fetched)) fold.fetched.push(fetched);
      break;
    }
    case "tasks":
      fold.tasks = event.tasks.map((task) => ({ ...task }));
      fold.tasksPosition = event.position;
      break;
    case "knowledge_hints":
      for (const id of event.ids) if (!fold.hints.some((hint) => hint.id === id)) fold.hints.push({ id, position: event.position });
      break;
    case "tool_refused":
      // A refused call did not run: the next task action is the first one. (A later call of the same batch,
      // let through after the refusals' bound, is reported as `audit/required-skill` instead.)
      if (fold.firstAction?.id === event.id) delete fold.firstAction;
      break;
    case "requirement_unmet":
      (fold.unmet ??= []).push({ tool: event.name, missing: [...event.missing], position: event.position });
      break;
    case "yield":
    case "skills_required":
      break;
  }
  return fold;
}

/** Audits the state of a transcript at a yield. */
export function auditFold(fold: AuditFold, skills: ReadonlyMap<string, AuditSkill>, yieldPosition: number): AuditReport {
  const findings: AuditFinding[] = [];
  const deviations: Deviation[] = [];
  const workflows = fold.active.filter((skill) => skills.get(skill.name)?.type === "workflow");
  const waiting = fold.tasks.some((task) => task.status === "blocked" && task.deviation !== true);
  const stepsAt = fold.tasksPosition > 0 ? fold.tasksPosition : yieldPosition;
  const add = (ruleId: AuditRuleId, message: string, position: number, skill?: string, step?: number): void => {
    findings.push({ ruleId, severity: AUDIT_RULES[ruleId].severity, message, position, ...(skill === undefined ? {} : { skill }), ...(step === undefined ? {} : { step }) });
  };
  for (const workflow of workflows) {
    const action = fold.firstAction;
    if (action !== undefined && action.position < workflow.position) {
      add(
        "audit/skill-after-action",
        `Unexpected ${action.tool} call before the workflow skill "${workflow.name}" was loaded, expected the skill loaded before the first task action`,
        action.position,
        workflow.name,
      );
    }
    const steps = skills.get(workflow.name)?.steps;
    if (steps === undefined || waiting) continue;
    const progress = checklistProgress(workflow.name, steps, fold.tasks);
    deviations.push(...progress.deviations);
    for (const step of progress.steps) judgeStep(workflow.name, step, stepsAt, add);
  }
  for (const unmet of fold.unmet ?? []) {
    const names = unmet.missing.map((name) => `"${name}"`).join(", ");
    add(
      "audit/required-skill",
      `Unexpected ${unmet.tool} call while the required skill${unmet.missing.length === 1 ? "" : "s"} ${names} ${unmet.missing.length === 1 ? "was" : "were"} not loaded, expected the skills the host requires for this request loaded before any task action`,
      unmet.position,
      unmet.missing[0],
    );
  }
  // Hints are pointers the runtime refreshes per turn: one fetched body shows the model followed them.
  if (fold.hints.length > 0 && fold.fetched.length === 0) {
    const first = fold.hints[0] as { id: string; position: number };
    add(
      "audit/knowledge-not-fetched",
      `Unexpected yield without fetching any hinted knowledge (${fold.hints.map((hint) => `"${hint.id}"`).join(", ")}), expected the relevant knowledge read before acting on it`,
      first.position,
    );
  }
  findings.sort((a, b) => a.position - b.position || (a.step ?? 0) - (b.step ?? 0));
  const outcome: AuditOutcome = findings.some((finding) => finding.severity === "error") ? "fail" : waiting && workflows.length > 0 ? "question" : "pass";
  return { outcome, workflows: workflows.map((workflow) => workflow.name), findings, deviations, position: yieldPosition };
}

type AddFinding = (ruleId: AuditRuleId, message: string, position: number, skill?: string, step?: number) => void;

function judgeStep(skill: string, step: StepProgress, position: number, add: AddFinding): void {
  const name = `step ${step.number} "${step.title}" of ${skill}`;
  const state = step.taskIds.length === 0 ? "no task names it" : `its task is ${step.status.replace("_", " ")}`;
  if (step.status === "complete" || (step.status === "skipped" && step.optional)) return;
  if (step.status === "failed") {
    add("audit/deviation", `Step ${step.number} "${step.title}" of ${skill} failed: ${step.reason ?? "no cause given"}; the final message must report this deviation`, position, skill, step.number);
    return;
  }
  if (step.optional) {
    add("audit/skip-without-reason", `Unexpected optional ${name} neither done nor skipped with a reason (${state}), expected its task complete, with a note when skipped`, position, skill, step.number);
  } else if (step.verifies) {
    add("audit/verification-step", `Unexpected verification ${name} not done (${state}), expected it complete before the final message`, position, skill, step.number);
  } else {
    add("audit/required-step", `Unexpected required ${name} not done (${state}), expected it complete before the final message`, position, skill, step.number);
  }
}

/** Audits every yield of a recorded transcript, in order. */
export function auditTranscript(events: readonly PositionedEvent[], skills: ReadonlyMap<string, AuditSkill>): AuditReport[] {
  const fold = emptyFold();
  const reports: AuditReport[] = [];
  for (const event of events) {
    foldEvent(fold, event);
    if (event.type === "yield") reports.push(auditFold(fold, skills, event.position));
  }
  return reports;
}

/**
 * The findings the model can still act on before it yields: steps of an active
 * workflow not done, not verified or skipped without a reason, all mended by
 * doing the step and updating `todo`. The others report what already happened
 * (a task action before the workflow was loaded, a call that went ahead without
 * a required skill): nothing the model does now changes them.
 */
const ACTIONABLE_RULES: ReadonlySet<AuditRuleId> = new Set(["audit/required-step", "audit/verification-step", "audit/skip-without-reason"]);

/** The error findings of a report the model can still fix, in report order. */
export function actionableFindings(report: AuditReport): AuditFinding[] {
  return report.findings.filter((finding) => finding.severity === "error" && ACTIONABLE_RULES.has(finding.ruleId));
}

/**
 * The problems of a failed audit the model can still fix, as the tool error a
 * `block` policy returns to the model (only called when there is one).
 */
export function auditBlockMessage(report: AuditReport, at: "yield" | "unyielded-end" = "yield"): string {
  const errors = actionableFindings(report);
  const lines = errors.map((finding) => `- ${finding.message}`);
  const problems = `${errors.length} problem${errors.length === 1 ? "" : "s"} in the active workflow${report.workflows.length === 1 ? "" : "s"} (${report.workflows.join(", ")}):`;
  const fix = "Finish these steps (or mark an optional step complete with a note saying why it was skipped, or an unrecoverable failure blocked with deviation: true and its cause), update `todo`,";
  return at === "yield"
    ? [`Completion audit failed: the final message was not sent. ${problems}`, ...lines, `${fix} then send the final message again.`].join("\n")
    : [`Completion audit failed: a reply without message_user does not end the turn while a workflow is active. ${problems}`, ...lines, `${fix} then end the turn with message_user (blockOnUser: true).`].join("\n");
}
