/**
 * SessionProtocolController: the one owner of a session's persistent
 * execution state (active skills, tasks, pending injections, current
 * artifacts) and of the runtime tools that change it. Pi-free; the adapter
 * wires it to a Pi Agent or AgentSession.
 */
import { randomUUID } from "node:crypto";
import type { ToolSchemaArtifact, VariantName } from "../protocol/dist-manifest.js";
import { renderAnchor } from "./anchor.js";
import { InjectionDispatcher, type InjectionTransport, type RouteUpdateResult } from "./injections/dispatcher.js";
import { InjectionQueue, type QueueRecord } from "./injections/queue.js";
import { createTrustedInjectionMessage } from "./injections/transport.js";
import { instantOf } from "./injections/order.js";
import type { PolicyContext } from "./injections/policy.js";
import type { LoadedArtifacts } from "./artifacts.js";
import { SessionKnowledge, type KnowledgeOptions } from "./knowledge/session-knowledge.js";
import { applyChange, seenIdsOf, type StateChange, type StateCore } from "./journal.js";
import { ANCHOR_CUSTOM_TYPE, HOST_SKILL_CUSTOM_TYPE, createTrustedMessage, isAnchorMessage, type GammaCustomMessage, type ImagePart, type RuntimeUserMessage } from "./messages.js";
import { activationResultText, planActivation } from "./skills.js";
import type { ArtifactReference, ExecutionState, TaskSnapshot } from "./execution-state.js";
import { MemoryStateStore, STATE_VERSION, type StateStore } from "./state.js";
import { parseTaskList, renderTaskList } from "./tasks.js";
import type { RuntimeToolName, ToolExecutor, ToolOutcome } from "./tools.js";
import { batchRequestsYield, MessageUserError, parseMessageUser, RunTracker, SHARED_BATCH_NOTE, type ProtocolEvent, type ToolCallSummary, type YieldRecord } from "./yield.js";
import { auditBlockMessage, type AuditReport } from "./audit/audit.js";
import { DEFAULT_MAX_BLOCKS, resolveAuditMode, type AuditPolicy } from "./audit/policy.js";
import { AuditRecorder, type SessionLog } from "./audit/recorder.js";
import { checklistProgress, type Deviation } from "./checklist/progress.js";
import { parseStepReference, type ChecklistStep } from "../protocol/checklist.js";
import { InvocationEnforcer, type InvocationPolicy, type RequirementScope } from "./invocation/required-skills.js";
import type { LoadedNamespace, NamespaceLoadSource } from "./execution-state.js";
import { LOAD_NAMESPACE_TOOL, loadedNamespacesText, NamespaceToolError, sessionCatalog, unknownNamespaceMessage, type SessionNamespace } from "./namespaces.js";
import {
  checkConnector,
  checkConnectorExecutors,
  ConnectorRejectedError,
  ConnectorsNotAnnouncedError,
  droppedSummary,
  registeredSummary,
  removedSummary,
  runtimeToolOwners,
  UnknownConnectorError,
  type ConnectorChange,
  type ConnectorDefinition,
  type ConnectorProblem,
  type ConnectorRegistration,
} from "./connectors.js";
import type { HostExecutors } from "./tools.js";

/**
 * How the adapter puts a namespace's tools in front of the model (Pi's tool
 * list on an Agent or an AgentSession). The controller decides what is
 * loaded; the loader only applies it.
 */
export interface ToolLoader {
  /** Why the namespace cannot load in this session (e.g. the host supplies no executors for it); undefined when it can. */
  refusal(namespace: SessionNamespace): string | undefined;
  load(namespace: SessionNamespace): void;
  /** Serves a connector's tools (not in the tool list until it loads). */
  serve(connector: ConnectorDefinition, executors: HostExecutors): void;
  /** Takes a connector's tools out of the tool list at once and stops serving them. */
  withdraw(connector: ConnectorDefinition): void;
  /** Whether a connector joins the tool list as it registers (the "start" policy, or no load_tool_namespace in the session). */
  readonly loadsConnectorsAtOnce: boolean;
}

/** A variant name the manifest does not list; the message names the ones it does. */
export class UnknownVariantError extends Error {
  override readonly name = "UnknownVariantError";
  constructor(
    readonly variant: string,
    readonly knownVariants: readonly string[],
  ) {
    super(`Unexpected variant ${JSON.stringify(variant)}, expected one of the variants dist/manifest.json lists: ${knownVariants.join(", ")}`);
  }
}

/**
 * routeUpdate on artifacts compiled without prompts/injections.yaml: the
 * static prefix never told the model what an injection means, so none is sent.
 */
export class InjectionsNotDefinedError extends Error {
  override readonly name = "InjectionsNotDefinedError";
  constructor() {
    super("Unexpected runtime injection for a project without injection kinds, expected prompts/injections.yaml in the project (the static prefix defines no injection the model could read)");
  }
}

export interface ControllerOptions {
  artifacts: LoadedArtifacts;
  variant: VariantName;
  /** Where the state lives; defaults to memory. A stored state is restored exactly. */
  store?: StateStore;
  onProtocolEvent?: (event: ProtocolEvent) => void;
  /** Timestamp source for created messages (tests pin it). */
  now?: () => number;
  /** The completion audit at each yield while a workflow is active (default: report). */
  audit?: AuditPolicy;
  /** The runtime's session log: transcript events and audits, one JSON object per line (`FileSessionLog`). */
  sessionLog?: SessionLog;
  /** Candidate selection and large-note paths for scoped knowledge. */
  knowledge?: KnowledgeOptions;
  /** Invocation enforcement: skills every session, or a variant's sessions, require, and the refusals' bound. */
  invocation?: InvocationPolicy;
}

export interface TurnInput {
  text?: string;
  images?: ImagePart[];
  /** Ready-made user messages, sent before `text`. */
  messages?: RuntimeUserMessage[];
  /** Skills this turn requires (the interface knows the request, e.g. "new deck"): see `requireSkills`. */
  requiredSkills?: readonly string[];
}

export type TurnMessage = RuntimeUserMessage | GammaCustomMessage;

export class SessionProtocolController {
  readonly artifacts: LoadedArtifacts;
  readonly variant: VariantName;
  readonly run = new RunTracker({ onBegin: () => this.enforcer.beginRun(), onEnd: () => this.enforcer.endRun() });
  transport: InjectionTransport | undefined;
  /** Set by the adapter: applies namespace loads to Pi's tool list. */
  toolLoader: ToolLoader | undefined;
  /** Routing and delivery of runtime injections (src/runtime/injections). */
  readonly injections: InjectionDispatcher;
  /** The pending injections: the one owner of that part of the durable state. */
  readonly pending: InjectionQueue;
  /** Scoped knowledge: notes, hints and read_workspace_rule (src/runtime/knowledge). */
  readonly knowledge: SessionKnowledge;
  private readonly store: StateStore;
  private readonly emit: (event: ProtocolEvent) => void;
  private readonly now: () => number;
  private readonly core: StateCore;
  private revision: number;
  /** The completion audit's record of this session (src/runtime/audit). */
  readonly recorder: AuditRecorder;
  private readonly auditPolicy: AuditPolicy | undefined;
  /** The message_user call whose yield the audit refused: its batch must not terminate. */
  private auditBlockedCall: string | undefined;
  /** The message_user call whose yield the invocation enforcement refused: its batch must not terminate either. */
  private refusedYieldCall: string | undefined;
  /** Invocation enforcement: required skills and the refusals (src/runtime/invocation). */
  private readonly enforcer: InvocationEnforcer;

  constructor(options: ControllerOptions) {
    if (!Object.hasOwn(options.artifacts.variants, options.variant)) throw new UnknownVariantError(options.variant, Object.keys(options.artifacts.variants));
    this.artifacts = options.artifacts;
    this.variant = options.variant;
    this.store = options.store ?? new MemoryStateStore();
    this.emit = options.onProtocolEvent ?? (() => {});
    this.now = options.now ?? Date.now;
    const restored = this.store.load();
    if (restored !== undefined && restored.variant !== options.variant) {
      throw new Error(`Unexpected stored state for variant "${restored.variant}", expected "${options.variant}"`);
    }
    const initial = restored ?? this.initialState();
    this.core = {
      ...(initial.sessionKey === undefined ? {} : { sessionKey: initial.sessionKey }),
      activeSkills: initial.activeSkills,
      tasks: initial.tasks,
      currentArtifacts: initial.currentArtifacts,
      ...(initial.knowledge === undefined ? {} : { knowledge: initial.knowledge }),
      ...(initial.requiredSkills === undefined ? {} : { requiredSkills: initial.requiredSkills }),
      ...(initial.loadedNamespaces === undefined ? {} : { loadedNamespaces: initial.loadedNamespaces }),
      ...(initial.connectors === undefined ? {} : { connectors: initial.connectors }),
    };
    this.revision = initial.revision;
    const kinds = this.artifacts.injectionKinds;
    // Pi's queues and contexts do not survive a restart: restored entries are unsent again.
    this.pending = new InjectionQueue(
      { pending: initial.pendingInjections.map(({ queuedAs: _queued, ...entry }) => entry), seenIds: seenIdsOf(initial) },
      {
        // A message's timestamp is its event's instant, so a restored message is byte-identical.
        render: (injection) => createTrustedInjectionMessage(injection, kinds, { timestamp: instantOf(injection) }),
        journal: (record: QueueRecord, apply) => this.record(record, apply),
      },
    );
    if (restored === undefined) this.store.save(this.state);
    // Saved before sessions had a key: mint it now, once.
    else if (typeof restored.sessionKey !== "string") this.change({ op: "sessionKey", sessionKey: randomUUID() });
    this.injections = new InjectionDispatcher(this);
    this.auditPolicy = options.audit;
    const preloadedSkills = [...(this.artifacts.manifest.variants[this.variant]?.preloadedSkills ?? [])];
    this.recorder = new AuditRecorder(this.artifacts.skills, options.sessionLog, {
      variant: this.variant,
      preloadedSkills,
      cacheKey: this.artifacts.manifest.staticPrefix.cacheKey,
      ...(restored === undefined ? {} : { restored: { activeSkills: restored.activeSkills.map((skill) => skill.name), tasks: restored.tasks.items } }),
    });
    const controller = this;
    this.enforcer = new InvocationEnforcer(
      {
        skills: this.artifacts.skills,
        activeSkills: () => controller.core.activeSkills,
        stored: () => controller.core.requiredSkills ?? [],
        save: (skills) => controller.change({ op: "required", skills }),
        record: (event) => controller.recorder.record(event),
        emit: (event) => controller.emit(event),
      },
      this.variant,
      options.invocation,
      this.artifacts.manifest.variants[this.variant]?.requiredSkills,
    );
    this.knowledge = new SessionKnowledge(
      {
        get state() {
          return controller.state;
        },
        saveKnowledge: (knowledge) => controller.change({ op: "knowledge", knowledge }),
        emit: (event) => controller.emit(event),
        now: () => controller.now(),
      },
      this.artifacts.knowledge,
      options.knowledge,
    );
  }

  /** A snapshot of the durable state (built on each read; the controller's methods change it), with where each pending injection waits. */
  get state(): Readonly<ExecutionState> {
    const state = this.snapshot();
    const waiting = new Map(this.pending.all().map((entry) => [entry.id, entry.queuedAs]));
    state.pendingInjections = state.pendingInjections.map((entry) => {
      const queuedAs = waiting.get(entry.id);
      return queuedAs === undefined ? entry : { ...entry, queuedAs };
    });
    return state;
  }

  /** The state in its durable form: what a store writes as a snapshot. */
  private snapshot(): ExecutionState {
    const { pending, seenIds } = this.pending.snapshot();
    return {
      stateVersion: STATE_VERSION,
      revision: this.revision,
      variant: this.variant,
      ...(this.core.sessionKey === undefined ? {} : { sessionKey: this.core.sessionKey }),
      activeSkills: this.core.activeSkills,
      tasks: this.core.tasks,
      pendingInjections: pending,
      currentArtifacts: this.core.currentArtifacts,
      injectionLog: { seenIds },
      ...(this.core.knowledge === undefined ? {} : { knowledge: this.core.knowledge }),
      ...(this.core.requiredSkills === undefined ? {} : { requiredSkills: this.core.requiredSkills }),
      ...(this.core.loadedNamespaces === undefined ? {} : { loadedNamespaces: this.core.loadedNamespaces }),
      ...(this.core.connectors === undefined ? {} : { connectors: this.core.connectors }),
    };
  }

  /** A random id minted with the session and kept in its store (the default prompt cache key derives from it). */
  get sessionKey(): string {
    return this.core.sessionKey ?? "";
  }

  /** The exact system prompt: the chosen variant's bytes. */
  get systemPrompt(): string {
    return this.artifacts.variants[this.variant] ?? "";
  }

  // ---- skills ---------------------------------------------------------------

  activateSkill(name: string, toolCallId = ""): ToolOutcome {
    const plan = planActivation({ name, skills: this.artifacts.skills, active: this.core.activeSkills, source: "tool" });
    const text = activationResultText(plan, this.artifacts.skills, this.core.activeSkills);
    if (!plan.alreadyActive) {
      this.change({ op: "skills", add: plan.newlyActive });
      const names = plan.newlyActive.map((skill) => skill.name);
      this.recorder.record({ type: "skills_loaded", names });
      this.emit({ type: "skills_activated", names, toolCallId });
      this.emitChecklistProgress(toolCallId, names);
      const loaded = this.loadSkillNamespaces(plan.newlyActive.map((skill) => skill.name), toolCallId);
      if (loaded !== undefined) text.push(loaded);
    }
    return {
      content: text.map((part) => ({ type: "text", text: part })),
      details: { skill: name, alreadyActive: plan.alreadyActive, activated: plan.newlyActive },
    };
  }

  /**
   * The host activates a skill explicitly (a slash command, a button, a
   * product rule), including one with `disable-model-invocation: true` that
   * the model is never offered. The skill and its missing requirements become
   * active as with the tool; the returned trusted message carries their
   * bodies. Send it with the next prompt
   * (`agent.prompt([...controller.buildTurnMessages({ text }), message])`) or
   * steer it into a running turn. Throws SkillToolError for an unknown or
   * conflicting skill; an already active skill gives a short confirmation.
   */
  activateSkillForHost(name: string): GammaCustomMessage {
    const plan = planActivation({ name, skills: this.artifacts.skills, active: this.core.activeSkills, source: "host" });
    const parts = activationResultText(plan, this.artifacts.skills, this.core.activeSkills);
    if (!plan.alreadyActive) {
      this.change({ op: "skills", add: plan.newlyActive });
      this.emit({ type: "skills_activated", names: plan.newlyActive.map((skill) => skill.name), toolCallId: "" });
    }
    const contract =
      plan.requested.type === "workflow"
        ? "This workflow skill is active because the current task matches it. Follow every required step and complete its verification."
        : "This reference skill is lookup material. Apply only the parts relevant to the task; it creates no checklist unless it declares one.";
    const opening = `<skill name="${plan.requested.name}" type="${plan.requested.type}" activated_by="host">`;
    const content = plan.alreadyActive ? parts.join("\n\n") : `${opening}\n${contract}\n\n${parts.join("\n\n").replace(/\n$/, "")}\n</skill>`;
    return createTrustedMessage({
      kind: HOST_SKILL_CUSTOM_TYPE.slice("gamma.".length),
      content,
      details: { hostActivation: { skill: name, alreadyActive: plan.alreadyActive, activated: plan.newlyActive.map((skill) => skill.name) } },
      timestamp: this.now(),
    });
  }

  // ---- invocation enforcement ------------------------------------------------

  /**
   * The host requires skills for this request: for the current turn (until
   * the run answering it ends) or the whole session. Until each is active,
   * task actions and yields are refused with a tool error naming the skills
   * to load, at most `invocation.maxRefusals` times per run (default 2);
   * then the call goes ahead and the violation is recorded for the audit
   * (`audit/required-skill`). Durable: it survives compaction and a reload.
   * Throws RequiredSkillError for an unknown skill or one the model cannot load.
   */
  requireSkills(names: readonly string[], scope: RequirementScope = "turn"): void {
    this.enforcer.require(names, scope);
  }

  /** Required skills (the policy's and the host's) not active now. */
  get missingRequiredSkills(): string[] {
    return this.enforcer.missing();
  }

  /** The hook every tool call passes before its executor: throws the refusal as the tool's error. */
  checkToolCall(tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string): void {
    try {
      this.enforcer.checkToolCall(tool, params, toolCallId);
    } catch (error) {
      // A refused yield did not happen: the run goes on so the model can load the skill.
      if (tool === "message_user") this.refusedYieldCall = toolCallId;
      throw error;
    }
  }

  // ---- tasks ----------------------------------------------------------------

  updateTasks(tasks: unknown, toolCallId = ""): ToolOutcome {
    const items = parseTaskList(tasks, (reference) => this.checkStep(reference));
    const snapshot: TaskSnapshot = { revision: this.core.tasks.revision + 1, items };
    this.change({ op: "tasks", tasks: snapshot });
    this.recorder.record({ type: "tasks", revision: snapshot.revision, tasks: items });
    this.emit({ type: "tasks_updated", revision: snapshot.revision, toolCallId });
    this.emitChecklistProgress(toolCallId);
    return { content: [{ type: "text", text: renderTaskList(snapshot) }], details: { tasks: snapshot } };
  }

  // ---- yield ----------------------------------------------------------------

  messageUser(params: Record<string, unknown>, toolCallId: string): ToolOutcome {
    const parsed = parseMessageUser(params);
    if (!parsed.blockOnUser) {
      this.emit({ type: "progress", message: parsed.message, toolCallId });
      return {
        content: [{ type: "text", text: "Progress message shown to the user. Continue with the task." }],
        details: { blockOnUser: false, message: parsed.message },
      };
    }
    const audit = this.auditYield(toolCallId);
    const sharedBatch = this.run.currentBatch.length > 1;
    const record: YieldRecord = { message: parsed.message, toolCallId, sharedBatch };
    this.run.recordYield(record);
    this.recorder.record({ type: "yield", message: parsed.message, toolCallId });
    if (audit !== undefined) {
      this.recorder.logAudit(audit, "reported");
      this.emit({ type: "audit", report: audit, action: "reported", toolCallId });
    }
    const deviations = this.deviations();
    this.emit({
      type: "yield",
      message: parsed.message,
      toolCallId,
      sharedBatch,
      ...(parsed.reason === undefined ? {} : { reason: parsed.reason }),
      ...(audit === undefined ? {} : { audit }),
      ...(deviations.length === 0 ? {} : { deviations }),
    });
    const text = "Message shown to the user. The turn now passes to the user; wait for their reply.";
    return {
      content: [{ type: "text", text: sharedBatch ? `${text}\n\n${SHARED_BATCH_NOTE}` : text }],
      details: { blockOnUser: true, message: parsed.message, sharedBatch },
      terminate: true,
    };
  }

  /** Decides Pi's `terminate` for one finished call: a batch that yields terminates as a whole. */
  terminateForBatch(calls: readonly ToolCallSummary[]): boolean {
    const refused = [this.auditBlockedCall, this.refusedYieldCall];
    if (calls.some((call) => refused.includes(call.id))) return false;
    return batchRequestsYield(calls);
  }

  /** The model's tool calls of one assistant message, before they run (the adapter calls this). */
  noteToolBatch(calls: readonly ToolCallSummary[]): void {
    this.run.noteBatch(calls);
    for (const call of calls) this.recorder.record({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  }

  /** Text that entered the model's context (custom messages, tool results): the audit looks for knowledge hints. */
  noteContextText(text: string): void {
    this.recorder.noteContextText(text);
  }

  // ---- checklists and the completion audit --------------------------------------

  /** Workflow skills active now that have a compiled checklist. */
  private activeChecklists(): Array<{ name: string; steps: readonly ChecklistStep[] }> {
    return this.core.activeSkills.flatMap((active) => {
      const steps = this.artifacts.skills.get(active.name)?.steps;
      return active.type === "workflow" && steps !== undefined ? [{ name: active.name, steps }] : [];
    });
  }

  private emitChecklistProgress(toolCallId: string, only?: readonly string[]): void {
    for (const { name, steps } of this.activeChecklists()) {
      if (only !== undefined && !only.includes(name)) continue;
      this.emit({ type: "checklist_progress", taskRevision: this.core.tasks.revision, toolCallId, ...checklistProgress(name, steps, this.core.tasks.items) });
    }
  }

  private deviations(): Deviation[] {
    return this.activeChecklists().flatMap(({ name, steps }) => checklistProgress(name, steps, this.core.tasks.items).deviations);
  }

  /** A task's `step` must name a step of a workflow skill's checklist. */
  private checkStep(reference: string): string | undefined {
    const parsed = parseStepReference(reference);
    const skill = parsed === undefined ? undefined : this.artifacts.skills.get(parsed.skill);
    if (parsed === undefined || skill?.steps === undefined) {
      const known = this.activeChecklists().map((active) => active.name);
      return `expected a workflow skill with a checklist${known.length === 0 ? "" : ` (active: ${known.join(", ")})`}`;
    }
    if (!skill.steps.some((step) => step.number === parsed.number)) return `expected a step number of ${parsed.skill} (1 to ${skill.steps.length})`;
    return undefined;
  }

  /**
   * The completion audit at a yield: returns the report for the yield about
   * to be recorded (undefined when off or no workflow is active); under
   * `block` a failed audit throws the tool error naming the missing steps, at
   * most `maxBlocks` times per run.
   */
  private auditYield(toolCallId: string): AuditReport | undefined {
    const workflows = this.activeChecklists().map((active) => active.name);
    if (workflows.length === 0 && !this.recorder.hasUnmetRequirements) return undefined;
    const mode = resolveAuditMode(this.auditPolicy, this.variant, workflows);
    if (mode === "off") return undefined;
    const report = this.recorder.audit(this.recorder.nextPosition);
    const maxBlocks = this.auditPolicy?.maxBlocks ?? DEFAULT_MAX_BLOCKS;
    if (mode === "block" && report.outcome === "fail" && this.run.auditBlocks < maxBlocks) {
      this.run.auditBlocks += 1;
      this.auditBlockedCall = toolCallId;
      this.recorder.logAudit(report, "blocked");
      this.emit({ type: "audit", report, action: "blocked", toolCallId });
      throw new MessageUserError(auditBlockMessage(report));
    }
    return report;
  }

  /** The delivery policy's inputs: the current artifacts and whether a task is unfinished. */
  policyContext(): PolicyContext {
    return {
      currentArtifacts: this.core.currentArtifacts,
      hasActiveTask: this.core.tasks.items.some((task) => task.status !== "complete"),
    };
  }

  /** Whether the loop must stop before another model call (a yield happened in this run). */
  shouldStopAfterTurn(): boolean {
    return this.run.yielded !== undefined;
  }

  /**
   * The tools a session of this variant starts with: tools.json's, then the
   * tools of each namespace the variant sends from the start, in the
   * manifest's order (the order of the cache plan's blocks).
   */
  startToolSchemas(): ToolSchemaArtifact[] {
    const catalog = this.namespaceCatalog;
    const toolsOf = (name: string): readonly ToolSchemaArtifact[] => catalog.find((namespace) => namespace.name === name)?.tools ?? [];
    // A restored session starts with what it had loaded, in load order, so its tool list is the one its transcript declares.
    const names = [...this.startNamespaceNames(), ...this.loadedNamespaces.map((namespace) => namespace.name)];
    return [...this.artifacts.tools, ...names.flatMap(toolsOf)];
  }

  // ---- tool namespaces -----------------------------------------------------------

  /** Every namespace this session can load: the compiled ones by name, then the registered connectors in registration order. */
  get namespaceCatalog(): SessionNamespace[] {
    return [...sessionCatalog(this.artifacts.namespaces), ...this.connectors];
  }

  /** The namespaces loaded during the session, in load order (the variant's start namespaces are not listed). */
  get loadedNamespaces(): readonly LoadedNamespace[] {
    return this.core.loadedNamespaces ?? [];
  }

  /** Whether the namespace's tools are in the tool list: sent from the start, or loaded since. */
  isNamespaceLoaded(name: string): boolean {
    return this.startNamespaceNames().includes(name) || this.loadedNamespaces.some((namespace) => namespace.name === name);
  }

  /**
   * The host loads namespaces (e.g. every one at session start on a model
   * that re-sends the tool list for each change). Idempotent; throws
   * NamespaceToolError for a name the catalog does not hold or one that cannot load.
   */
  loadNamespacesForHost(names: readonly string[]): SessionNamespace[] {
    const catalog = this.namespaceCatalog;
    const wanted = names.map((name) => {
      const found = catalog.find((namespace) => namespace.name === name);
      if (found === undefined) throw new NamespaceToolError(unknownNamespaceMessage(name, catalog));
      return found;
    });
    return this.loadNamespaces(wanted, { loadedBy: "host" }, "");
  }

  /** `load_tool_namespace({ name })`: exact name from the catalog; a loaded one is confirmed, not loaded twice. */
  loadNamespaceTool(params: Readonly<Record<string, unknown>>, toolCallId: string): ToolOutcome {
    const name = typeof params["name"] === "string" ? params["name"] : "";
    const catalog = this.namespaceCatalog;
    const namespace = catalog.find((candidate) => candidate.name === name);
    if (namespace === undefined) throw new NamespaceToolError(unknownNamespaceMessage(name, catalog));
    if (this.isNamespaceLoaded(name)) {
      return { content: [{ type: "text", text: `Tool namespace "${name}" is already in your tool list: ${namespace.tools.map((tool) => tool.name).join(", ")}.` }], details: { namespace: name, alreadyLoaded: true } };
    }
    const refusal = this.toolLoader?.refusal(namespace);
    if (refusal !== undefined) throw new NamespaceToolError(`Tool namespace "${name}" cannot load in this session: ${refusal}.`);
    this.loadNamespaces([namespace], { loadedBy: "tool" }, toolCallId);
    return { content: [{ type: "text", text: loadedNamespacesText([namespace], "by name") }], details: { namespace: name, alreadyLoaded: false } };
  }

  /** The namespaces newly active workflow skills declare, loaded in declaration order; the text for the skill tool's result. */
  private loadSkillNamespaces(skillNames: readonly string[], toolCallId: string): string | undefined {
    const catalog = this.namespaceCatalog;
    const lines: string[] = [];
    for (const skillName of skillNames) {
      const skill = this.artifacts.skills.get(skillName);
      if (skill?.type !== "workflow") continue;
      for (const name of skill.toolNamespaces) {
        const namespace = catalog.find((candidate) => candidate.name === name);
        if (namespace === undefined || this.isNamespaceLoaded(name)) continue;
        const refusal = this.toolLoader?.refusal(namespace);
        if (refusal !== undefined) {
          lines.push(`Tool namespace "${name}" that ${skillName} needs could not load: ${refusal}. Tell the user which step cannot run.`);
          continue;
        }
        this.loadNamespaces([namespace], { loadedBy: "skill", skill: skillName }, toolCallId);
        lines.push(loadedNamespacesText([namespace], `for ${skillName}`));
      }
    }
    return lines.length === 0 ? undefined : lines.join("\n");
  }

  private loadNamespaces(namespaces: readonly SessionNamespace[], how: { loadedBy: NamespaceLoadSource; skill?: string }, toolCallId: string): SessionNamespace[] {
    const fresh = namespaces.filter((namespace, index) => !this.isNamespaceLoaded(namespace.name) && namespaces.indexOf(namespace) === index);
    if (fresh.length === 0) return [];
    for (const namespace of fresh) {
      const refusal = this.toolLoader?.refusal(namespace);
      if (refusal !== undefined) throw new NamespaceToolError(`Tool namespace "${namespace.name}" cannot load in this session: ${refusal}.`);
    }
    // Durable first: a refused write loads nothing.
    this.change({ op: "namespaces", add: fresh.map((namespace) => ({ name: namespace.name, ...how })) });
    for (const namespace of fresh) this.toolLoader?.load(namespace);
    this.emit({ type: "namespaces_loaded", names: fresh.map((namespace) => namespace.name), loadedBy: how.loadedBy, toolCallId });
    return fresh;
  }

  // ---- connectors ----------------------------------------------------------------

  /** The connectors registered on this session, in registration order. */
  get connectors(): readonly ConnectorDefinition[] {
    return this.core.connectors ?? [];
  }

  /** The connector a tool belongs to, if any. */
  connectorOfTool(tool: string): ConnectorDefinition | undefined {
    return this.connectors.find((connector) => connector.tools.some((candidate) => candidate.name === tool));
  }

  /**
   * The boundary check of a connector against this session: the compiler's
   * tool and namespace rules, and the names the catalog and the tool list
   * hold (`except` leaves one registered connector out, for a restore).
   */
  checkConnector(value: unknown, except?: string): { definition?: ConnectorDefinition; problems: ConnectorProblem[] } {
    const namespaces = new Map<string, string>();
    const tools = new Map<string, string>([...runtimeToolOwners(), ...this.artifacts.tools.map((tool): [string, string] => [tool.name, "the stable tool set"])]);
    for (const namespace of this.namespaceCatalog) {
      if (namespace.name === except) continue;
      const compiled = this.artifacts.namespaces.has(namespace.name);
      namespaces.set(namespace.name, compiled ? "a compiled namespace" : "a registered connector");
      for (const tool of namespace.tools) if (!tools.has(tool.name)) tools.set(tool.name, `${compiled ? "namespace" : "connector"} \`${namespace.name}\``);
    }
    return checkConnector(value, { namespaces, tools });
  }

  /**
   * The host registers a connector on the live session. It is checked at the
   * boundary (ConnectorRejectedError with every finding, nothing registered;
   * ToolSetupError for executors that do not match its tools), kept durable,
   * joins the catalog and, when the loader says so, the tool list at once;
   * the model learns of it through a workspace_update injection.
   */
  registerConnector(registration: ConnectorRegistration): ConnectorChange {
    if (!this.announcesConnectors()) throw new ConnectorsNotAnnouncedError();
    const { executors, ...data } = registration;
    const { definition, problems } = this.checkConnector(data);
    if (definition === undefined) throw new ConnectorRejectedError(typeof data.name === "string" ? data.name : "", problems);
    checkConnectorExecutors(definition, executors);
    this.change({ op: "connectorAdded", connector: definition });
    this.toolLoader?.serve(definition, executors);
    const loads = this.toolLoader?.loadsConnectorsAtOnce ?? false;
    if (loads) this.loadNamespaces([definition], { loadedBy: "host" }, "");
    this.emit({ type: "connector_registered", connector: definition.name, loaded: loads });
    const injectionId = this.announce(definition, "connector_registered", registeredSummary(definition, loads, LOAD_NAMESPACE_TOOL));
    return { connector: definition.name, loaded: loads, warnings: problems, injectionId };
  }

  /**
   * The host removes a connector: its tools leave the tool list at once (a
   * call the model still makes to one is a tool error), the removal is
   * durable and announced like the registration. UnknownConnectorError for a
   * name not registered.
   */
  removeConnector(name: string): ConnectorChange {
    const definition = this.connectors.find((connector) => connector.name === name);
    if (definition === undefined) throw new UnknownConnectorError(name, this.connectors.map((connector) => connector.name));
    this.change({ op: "connectorRemoved", name });
    this.toolLoader?.withdraw(definition);
    this.emit({ type: "connector_removed", connector: name });
    const injectionId = this.announce(definition, "connector_removed", removedSummary(definition));
    return { connector: name, loaded: false, warnings: [], injectionId };
  }

  /** A stored connector a restart cannot bring back leaves the session, and the model is told. */
  dropConnector(name: string): void {
    const definition = this.connectors.find((connector) => connector.name === name);
    if (definition === undefined) return;
    this.change({ op: "connectorRemoved", name });
    this.emit({ type: "connector_removed", connector: name });
    if (this.announcesConnectors()) this.announce(definition, "connector_unavailable", droppedSummary(definition));
  }

  private announcesConnectors(): boolean {
    return this.artifacts.injectionKinds.some((kind) => kind.kind === "workspace_update");
  }

  /** "Available resources changed": a workspace_update through the session's injections, whose subject is the connector. */
  private announce(connector: ConnectorDefinition, change: string, summary: string): string {
    const id = `connector.${connector.name}.${this.revision}`;
    const delivery = this.artifacts.injectionKinds.find((kind) => kind.kind === "workspace_update")?.delivery ?? "steer";
    this.routeUpdate({
      id,
      kind: "workspace_update",
      occurredAt: new Date(this.now()).toISOString(),
      source: "workspace",
      delivery,
      requiresDecision: false,
      summary,
      subject: { ref: `connector:${connector.name}` },
      details: { change },
    });
    return id;
  }

  private startNamespaceNames(): readonly string[] {
    return this.artifacts.manifest.variants[this.variant]?.namespaces ?? [];
  }

  runtimeExecutors(): Record<RuntimeToolName, ToolExecutor> {
    return {
      [LOAD_NAMESPACE_TOOL]: async (id, params) => this.loadNamespaceTool(params, id),
      skill: async (id, params) => this.activateSkill(String(params["name"]), id),
      todo: async (id, params) => this.updateTasks(params["tasks"], id),
      message_user: async (id, params) => this.messageUser(params, id),
      read_workspace_rule: async (id, params) => this.knowledge.read(params["knowledgeId"], id),
    };
  }

  // ---- runtime injections -----------------------------------------------------

  /**
   * The design's entry point for platform events: validates the envelope
   * (throws InjectionRejectedError naming the field), queues it with
   * coalescing and idempotency, and delivers it per the policy.
   */
  routeUpdate(update: unknown): RouteUpdateResult {
    if (this.artifacts.manifest.injections === undefined) throw new InjectionsNotDefinedError();
    return this.injections.route(update);
  }

  // ---- artifacts --------------------------------------------------------------

  /**
   * The design's `currentArtifact`: the artifacts the active task works on
   * (a task can hold a brief and a deck at once, so it is a list). It
   * replaces the previous list; `[]` clears it. An `artifact_update` whose
   * subject matches one of them (by `ref`, or by `path`) is steered into the
   * running task, even when its producer asked for the next turn, so the
   * agent re-reads the artifact before its next step. The list is durable
   * and travels in the anchor after compaction.
   */
  setCurrentArtifacts(artifacts: readonly ArtifactReference[]): void {
    this.change({ op: "artifacts", artifacts: artifacts.map((artifact) => ({ ...artifact })) });
  }

  // ---- context ------------------------------------------------------------------

  /**
   * The messages for the next `Agent.prompt(messages)`: the user's message,
   * then every pending injection not already handed to Pi, oldest first. They
   * stay pending until a model call used the context that carries them.
   */
  buildTurnMessages(input: TurnInput): TurnMessage[] {
    if (input.requiredSkills !== undefined) this.requireSkills(input.requiredSkills, "turn");
    const messages: TurnMessage[] = [...(input.messages ?? [])];
    if (input.text !== undefined || (input.images?.length ?? 0) > 0) {
      messages.push({
        role: "user",
        content: [...(input.text === undefined ? [] : [{ type: "text" as const, text: input.text }]), ...(input.images ?? [])],
        timestamp: this.now(),
      });
    }
    if (messages.length > 0) {
      // Knowledge hints ride with the user's turn, right after the user's own words.
      const hints = this.knowledge.hintsForTurn(turnText(messages));
      if (hints !== undefined) messages.push(hints);
    }
    for (const entry of this.pending.select((candidate) => candidate.queuedAs === undefined)) messages.push(entry.message);
    return messages;
  }

  /**
   * The anchor for the current state. It carries every pending injection not
   * waiting in a Pi queue; they stay pending, marked as riding with this
   * anchor, until a model call used a context holding it, so restoring the
   * context again before that (or a restart) loses none of them.
   */
  anchorMessage(): GammaCustomMessage {
    const carried = this.pending.select((entry) => entry.queuedAs === undefined || entry.queuedAs === "anchor" || entry.queuedAs === "context");
    const ids = carried.map((entry) => entry.id);
    this.pending.markQueued(ids, "anchor");
    return createTrustedMessage({
      kind: ANCHOR_CUSTOM_TYPE.slice("gamma.".length),
      content: renderAnchor({ state: this.state, skills: this.artifacts.skills, injections: carried, missingRequired: this.enforcer.missing() }),
      details: { anchor: true, stateRevision: this.revision, injectionIds: ids },
      timestamp: this.now(),
    });
  }

  /**
   * After a server-side compaction or a reload on the low-level path: drop
   * every older anchor and append a fresh one, so the context holds exactly one.
   */
  restoreContext<M>(messages: readonly M[]): (M | GammaCustomMessage)[] {
    return [...messages.filter((message) => !isAnchorMessage(message)), this.anchorMessage()];
  }

  /** Releases the store's open files (the adapter's dispose calls it). */
  close(): void {
    this.store.close?.();
  }

  // ---- persistence -------------------------------------------------------------

  private initialState(): ExecutionState {
    const variant = this.artifacts.manifest.variants[this.variant];
    const preloaded = variant?.preloadedSkills ?? [];
    return {
      stateVersion: STATE_VERSION,
      revision: 0,
      variant: this.variant,
      sessionKey: randomUUID(),
      activeSkills: preloaded.map((name) => {
        const skill = this.artifacts.skills.get(name);
        if (skill === undefined) throw new Error(`Unexpected preloaded skill "${name}" absent from dist/skills, expected it listed`);
        return { name, type: skill.type, activatedBy: "preload" as const };
      }),
      tasks: { revision: 0, items: [] },
      pendingInjections: [],
      currentArtifacts: [],
    };
  }

  private change(change: Exclude<StateChange, QueueRecord>): void {
    this.record(change, () => applyChange(this.core, this.pending, change));
  }

  /**
   * One durable change: written to the store first (a refused write, e.g. a
   * second writer, changes nothing), then applied, with the next revision.
   * A store without `append` is given the whole state after the change.
   */
  private record(change: StateChange, apply: () => void): void {
    const revision = this.revision + 1;
    if (this.store.append !== undefined) {
      this.store.append({ ...change, revision }, () => this.snapshot());
      apply();
      this.revision = revision;
      return;
    }
    apply();
    this.revision = revision;
    this.store.save(this.snapshot());
  }
}

/** The text of a turn's user messages, for candidate selection. */
function turnText(messages: readonly TurnMessage[]): string {
  return messages
    .flatMap((message) => (message.role !== "user" ? [] : typeof message.content === "string" ? [message.content] : message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))))
    .join("\n");
}

export type { ProtocolEvent, YieldRecord };
export { SHARED_BATCH_NOTE };
