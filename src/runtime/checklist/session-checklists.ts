/**
 * The session's workflow checklists and the completion audit: which active
 * workflows have a compiled checklist, their progress as tasks change, the
 * deviations a yield reports, the check of a task's `step`, and the audit at
 * each yield. Pi-free; it reads the state owner and records through the audit
 * recorder.
 */
import type { VariantName } from "../../protocol/dist-manifest.js";
import { parseStepReference, type ChecklistStep } from "../../protocol/checklist.js";
import type { LoadedSkill } from "../artifacts.js";
import { actionableFindings, auditBlockMessage, type AuditReport } from "../audit/audit.js";
import { DEFAULT_MAX_BLOCKS, resolveAuditMode, type AuditPolicy } from "../audit/policy.js";
import type { AuditRecorder } from "../audit/recorder.js";
import type { SessionStateOwner } from "../state/owner.js";
import { MessageUserError, type ProtocolEvent, type RunTracker } from "../yield.js";
import { checklistProgress, type Deviation } from "./progress.js";

export interface ChecklistHost {
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  readonly variant: VariantName;
  readonly owner: SessionStateOwner;
  readonly recorder: AuditRecorder;
  readonly run: RunTracker;
  emit(event: ProtocolEvent): void;
}

export class SessionChecklists {
  /** The message_user call whose yield the audit refused: its batch must not terminate. */
  blockedCall: string | undefined;

  constructor(
    private readonly host: ChecklistHost,
    private readonly policy: AuditPolicy | undefined,
  ) {}

  /** Workflow skills active now that have a compiled checklist. */
  active(): Array<{ name: string; steps: readonly ChecklistStep[] }> {
    return this.host.owner.state.activeSkills.flatMap((active) => {
      const steps = this.host.skills.get(active.name)?.steps;
      return active.type === "workflow" && steps !== undefined ? [{ name: active.name, steps }] : [];
    });
  }

  /** One `checklist_progress` event per active checklist (only those named in `only`, when given). */
  emitProgress(toolCallId: string, only?: readonly string[]): void {
    const { tasks } = this.host.owner.state;
    for (const { name, steps } of this.active()) {
      if (only !== undefined && !only.includes(name)) continue;
      this.host.emit({ type: "checklist_progress", taskRevision: tasks.revision, toolCallId, ...checklistProgress(name, steps, tasks.items) });
    }
  }

  deviations(): Deviation[] {
    const { items } = this.host.owner.state.tasks;
    return this.active().flatMap(({ name, steps }) => checklistProgress(name, steps, items).deviations);
  }

  /** A task's `step` must name a step of a workflow skill's checklist: the problem, or undefined. */
  checkStep(reference: string): string | undefined {
    const parsed = parseStepReference(reference);
    const skill = parsed === undefined ? undefined : this.host.skills.get(parsed.skill);
    if (parsed === undefined || skill?.steps === undefined) {
      const known = this.active().map((active) => active.name);
      return `expected a workflow skill with a checklist${known.length === 0 ? "" : ` (active: ${known.join(", ")})`}`;
    }
    if (!skill.steps.some((step) => step.number === parsed.number)) return `expected a step number of ${parsed.skill} (1 to ${skill.steps.length})`;
    // A step of a workflow the session has not loaded would be tracked against a checklist no one follows. A
    // reference the list holds already stays writable (its workflow may have left with a change of build).
    const active = this.active().map((workflow) => workflow.name);
    if (!active.includes(parsed.skill) && !this.host.owner.state.tasks.items.some((item) => item.step === reference)) {
      return `expected a step of an active workflow (${active.length === 0 ? "none is active" : `active: ${active.join(", ")}`}): load ${parsed.skill} with the skill tool first`;
    }
    return undefined;
  }

  /**
   * The completion audit at a yield: the report for the yield about to be
   * recorded (undefined when off or no workflow is active); under `block` a
   * failed audit with steps the model can still finish throws the tool error
   * naming them, at most `maxBlocks` times per turn.
   */
  auditYield(toolCallId: string): AuditReport | undefined {
    const audited = this.audit();
    if (audited === undefined) return undefined;
    const { report, blocks } = audited;
    if (blocks) {
      this.blockedCall = toolCallId;
      this.block(report, toolCallId);
      throw new MessageUserError(auditBlockMessage(report));
    }
    return report;
  }

  /**
   * A run about to end in plain text, without a yield: under `block`, a failed
   * audit does not let the turn pass to the user that way any more than a
   * yield; the report to send the model (it continues), at most `maxBlocks`
   * times per turn, counted with the yields refused. Undefined lets the run
   * end (no workflow, the audit passes or is not blocking, or the bound is met).
   */
  auditUnyieldedEnd(): AuditReport | undefined {
    const audited = this.audit();
    if (audited === undefined || !audited.blocks) return undefined;
    this.block(audited.report, "");
    return audited.report;
  }

  /** The audit now, and whether the policy refuses it; undefined when off or no workflow is active. */
  private audit(): { report: AuditReport; blocks: boolean } | undefined {
    const { recorder, run } = this.host;
    const workflows = this.active().map((active) => active.name);
    if (workflows.length === 0 && !recorder.hasUnmetRequirements) return undefined;
    const mode = resolveAuditMode(this.policy, this.host.variant, workflows);
    if (mode === "off") return undefined;
    const report = recorder.audit(recorder.nextPosition);
    const maxBlocks = this.policy?.maxBlocks ?? DEFAULT_MAX_BLOCKS;
    // Only what the model can still fix refuses the yield: a finding about a past call stays in the report.
    const fixable = report.outcome === "fail" && actionableFindings(report).length > 0;
    return { report, blocks: mode === "block" && fixable && run.auditBlocks < maxBlocks };
  }

  private block(report: AuditReport, toolCallId: string): void {
    this.host.run.auditBlocks += 1;
    this.host.recorder.logAudit(report, "blocked");
    this.host.emit({ type: "audit", report, action: "blocked", toolCallId });
  }
}
