/**
 * SessionProtocolController: the session protocol's facade. Each concern has
 * one owner and the controller composes them: the state owner (the execution
 * state and its store), the injections (routing and delivery), the knowledge,
 * the tool namespaces and connectors, the checklists and completion audit, and
 * invocation enforcement. Pi-free; the adapter wires it to a Pi Agent or
 * AgentSession.
 */
import { randomUUID } from "node:crypto";
import type { ToolSchemaArtifact, VariantName } from "../protocol/dist-manifest.js";
import type { LoadedArtifacts } from "./artifacts.js";
import { auditBlockMessage } from "./audit/audit.js";
import { AuditRecorder, type SessionLog } from "./audit/recorder.js";
import { checkAuditPolicy, type AuditPolicy } from "./audit/policy.js";
import { SessionChecklists } from "./checklist/session-checklists.js";
import type { ConnectorChange, ConnectorDefinition, ConnectorProblem, ConnectorRegistration } from "./connectors.js";
import type { ActiveSkill, ArtifactReference, ExecutionState, LoadedNamespace, PendingInjection, TaskSnapshot } from "./execution-state.js";
import { InjectionDispatcher, type InjectionTransport, type RouteUpdateResult } from "./injections/dispatcher.js";
import { instantOf } from "./injections/order.js";
import type { PolicyContext } from "./injections/policy.js";
import type { InjectionQueue } from "./injections/queue.js";
import { createTrustedInjectionMessage } from "./injections/transport.js";
import { InvocationEnforcer, type InvocationPolicy, type RequirementScope } from "./invocation/required-skills.js";
import { SessionKnowledge, type KnowledgeOptions } from "./knowledge/session-knowledge.js";
import { HOST_SKILL_CUSTOM_TYPE, createTrustedMessage, kindOf, type GammaCustomMessage } from "./messages.js";
import type { SessionNamespace } from "./namespaces.js";
import { activationResultText, hostActivationContent, planActivation } from "./skills.js";
import { SessionDisposedError, StateStoreError, type StateWriteFailedError } from "./state/errors.js";
import { initialState, loadAtOnce, storeLocation } from "./state/opening.js";
import { stateProblem } from "./state/state-shape.js";
import { expectFunction, expectObject, expectString, expectStringArray } from "../protocol/arguments.js";
import { artifactProblem, checkedArtifacts } from "./current-artifacts.js";
import { buildChangeUpdate, reconcileBuild, type BuildReconciliation } from "./state/build-change.js";
import { SessionStateOwner } from "./state/owner.js";
import { MemoryStateStore, type StateStore } from "./state/store.js";
import { parseTaskList, renderTaskList } from "./tasks.js";
import { SessionToolNamespaces, type ToolLoader } from "./tool-namespaces.js";
import type { RuntimeToolName, ToolExecutor, ToolOutcome } from "./tools.js";
import { LOAD_NAMESPACE_TOOL } from "./namespaces.js";
import { SessionContext, type TurnInput, type TurnMessage } from "./session-context.js";
import { SessionYield } from "./session-yield.js";
import { HintsNotMadeError, RunTracker, SHARED_BATCH_NOTE, type ProtocolEvent, type RuntimeErrorPhase, type ToolCallSummary, type YieldRecord } from "./yield.js";
import { messageOf } from "../protocol/error-message.js";
import { isThenable, swallowRejection } from "../protocol/hook-answers.js";

export type { ToolLoader, TurnInput, TurnMessage };

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
 * A stored session opened with another variant than the one it runs on,
 * while the build still defines that one: a session keeps its variant (its
 * prompt, preloaded and required skills), so the open is refused before
 * anything is taken; open it with `storedVariant`. A session whose variant
 * the build no longer defines opens on the variant named instead, and the
 * host is told (`build_changed`, `variant`).
 */
export class StoredVariantError extends Error {
  override readonly name = "StoredVariantError";
  constructor(
    readonly storedVariant: string,
    readonly variant: string,
  ) {
    super(
      `Unexpected stored state for variant ${JSON.stringify(storedVariant)}, expected ${JSON.stringify(variant)}: this build still defines ${JSON.stringify(storedVariant)}, and a session keeps its variant while the build has it; open the session with variant ${JSON.stringify(storedVariant)}`,
    );
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
  /**
   * Where the state lives; defaults to memory. A stored state is restored
   * exactly. A store whose `load` returns a promise needs an asynchronous
   * open: `SessionProtocolController.open`, `openGammaAgent` or `createGammaSession`.
   */
  store?: StateStore;
  /**
   * The host's observer of protocol events. It may be asynchronous: an
   * exception it throws or a promise it returns that rejects is caught and
   * told to it once as a `runtime_error` during "observer"; the session goes on.
   */
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

/** Refuses options a plain-JavaScript host got wrong, naming the option, before the store is read. */
function checkControllerOptions(options: ControllerOptions): void {
  expectObject(options, "session options", "an object such as { artifacts: loadArtifacts(), variant }");
  expectObject(options.artifacts, "artifacts", "the loaded artifacts, from loadArtifacts({ distDir })");
  expectObject(options.artifacts.variants, "artifacts.variants", "the loaded artifacts, from loadArtifacts({ distDir })");
  expectString(options.variant, "variant", `a variant name (${Object.keys(options.artifacts.variants).map((name) => JSON.stringify(name)).join(", ")})`);
  if (options.onProtocolEvent !== undefined) expectFunction(options.onProtocolEvent, "onProtocolEvent", "a function that takes each protocol event");
  if (options.now !== undefined) expectFunction(options.now, "now", "a function that returns the time in milliseconds");
  if (options.store !== undefined) {
    expectObject(options.store, "store", "a state store (MemoryStateStore, FileStateStore, or one of the host's)");
    for (const method of ["load", "save"] as const) {
      expectFunction(options.store[method], `store.${method}`, "a function: a state store has load() and save() (docs/reference/runtime-api.md, the store contract)");
    }
    for (const method of ["append", "appendMany", "close"] as const) {
      if (options.store[method] !== undefined) expectFunction(options.store[method], `store.${method}`);
    }
  }
}

/** What `open` read from the store, handed to the constructor. */
interface LoadedState {
  stored: ExecutionState | undefined;
}

export class SessionProtocolController {
  readonly artifacts: LoadedArtifacts;
  readonly variant: VariantName;
  readonly run = new RunTracker({ onTurnBegin: () => this.enforcer.beginTurn(), onTurnEnd: () => this.enforcer.endTurn() });
  transport: InjectionTransport | undefined;
  /** Routing and delivery of runtime injections (src/runtime/injections). */
  readonly injections: InjectionDispatcher;
  /** What the last model call took out of the pending set, until it is known whether the call went. */
  private confirmedForCall: PendingInjection[] = [];
  /** Scoped knowledge: notes, hints and read_workspace_rule (src/runtime/knowledge). */
  readonly knowledge: SessionKnowledge;
  /** The completion audit's record of this session (src/runtime/audit). */
  readonly recorder: AuditRecorder;
  /** The one owner of the execution state and of its writes to the store. */
  private readonly owner: SessionStateOwner;
  private readonly namespaces: SessionToolNamespaces;
  private readonly checklists: SessionChecklists;
  /** Invocation enforcement: required skills and the refusals (src/runtime/invocation). */
  private readonly enforcer: InvocationEnforcer;
  private readonly emit: (event: ProtocolEvent) => void;
  private readonly now: () => number;
  /** The turn's messages and the recovery anchor. */
  private readonly context: SessionContext;
  /** message_user and the yield contract. */
  private readonly yielding: SessionYield;
  /** Aborted by `close()`: ends the run's waits for the store (waitForStore). */
  private readonly disposal = new AbortController();

  /**
   * Opens a session on a store that may wait (a database): its state is
   * loaded, and a new session's first snapshot is durable, before it returns.
   */
  static async open(options: ControllerOptions): Promise<SessionProtocolController> {
    checkControllerOptions(options);
    const store = options.store ?? new MemoryStateStore();
    const controller = new SessionProtocolController({ ...options, store }, { stored: await store.load() });
    await controller.flush();
    return controller;
  }

  /** For a store that answers at once (memory, a file); `open` takes any store. */
  constructor(options: ControllerOptions, loaded?: LoadedState) {
    checkControllerOptions(options);
    if (!Object.hasOwn(options.artifacts.variants, options.variant)) throw new UnknownVariantError(options.variant, Object.keys(options.artifacts.variants));
    checkAuditPolicy(options.audit, { skills: options.artifacts.skills.keys(), variants: Object.keys(options.artifacts.variants) });
    this.artifacts = options.artifacts;
    this.variant = options.variant;
    const store = options.store ?? new MemoryStateStore();
    this.emit = options.onProtocolEvent === undefined ? () => {} : isolatedObserver(options.onProtocolEvent);
    this.now = options.now ?? Date.now;
    const restored = loaded === undefined ? loadAtOnce(store) : loaded.stored;
    // Every entry checked before the session acts on it: a store's contents may have been edited by hand or by another program.
    const problem = restored === undefined ? undefined : stateProblem(restored);
    if (problem !== undefined) throw new StateStoreError(storeLocation(store), `Unexpected ${problem}: the stored state is not one this runtime wrote; restore the store from a copy, or open the session anew`);
    // A session keeps its variant while the build defines it; one the build dropped goes on with the variant named.
    if (restored !== undefined && restored.variant !== options.variant && Object.hasOwn(options.artifacts.variants, restored.variant)) {
      throw new StoredVariantError(restored.variant, options.variant);
    }
    const kinds = this.artifacts.injectionKinds;
    this.owner = new SessionStateOwner(store, restored ?? initialState(this.artifacts, this.variant), restored === undefined, {
      // A message's timestamp is its event's instant, so a restored message is byte-identical.
      render: (injection) => createTrustedInjectionMessage(injection, kinds, { timestamp: instantOf(injection) }),
      onFailure: (failure) => this.emit({ type: "state_write_failed", error: failure }),
      onCloseFailure: (error) => this.emit({ type: "runtime_error", during: "close", error }),
      onChangeAfterClose: (error) => this.emit({ type: "runtime_error", during: "disposed", error }),
    });
    // Saved before sessions had a key: mint it now, once.
    if (restored !== undefined && typeof restored.sessionKey !== "string") this.owner.change({ op: "sessionKey", sessionKey: randomUUID() });
    // A stored entry the anchor cannot render (kept before entries were checked, or by a host's own store) leaves the list, and the host is told.
    if (restored !== undefined) this.dropMalformedArtifacts();
    // Reopened on another build: what it lacks leaves the state before anything reads it.
    const rebuilt =
      restored === undefined
        ? undefined
        : reconcileBuild(
            { ...this.owner.state, variant: this.owner.variant },
            {
              skills: this.artifacts.skills,
              cacheKey: this.artifacts.manifest.staticPrefix.cacheKey,
              variant: this.variant,
              preloaded: this.artifacts.manifest.variants[this.variant]?.preloadedSkills ?? [],
              sha256Of: (name) => this.artifacts.manifest.skills[name]?.sha256,
            },
          );
    if (rebuilt !== undefined) this.owner.change(rebuilt.change);
    this.injections = new InjectionDispatcher(this);
    const preloadedSkills = [...(this.artifacts.manifest.variants[this.variant]?.preloadedSkills ?? [])];
    this.recorder = new AuditRecorder(this.artifacts.skills, options.sessionLog, {
      variant: this.variant,
      preloadedSkills,
      cacheKey: this.artifacts.manifest.staticPrefix.cacheKey,
      ...(restored === undefined ? {} : { restored: { activeSkills: this.owner.state.activeSkills.map((skill) => skill.name), tasks: this.owner.state.tasks.items } }),
    }, (error) => {
      // A session log that cannot be written stops the session as a refused state write does: the host is told, no model call goes out.
      this.stopOnStoreFailure(error, "the session log");
    });
    const owner = this.owner;
    const emit = (event: ProtocolEvent): void => this.emit(event);
    this.enforcer = new InvocationEnforcer(
      {
        skills: this.artifacts.skills,
        activeSkills: () => owner.state.activeSkills,
        stored: () => owner.state.requiredSkills ?? [],
        save: (skills) => owner.change({ op: "required", skills }),
        record: (event) => this.recorder.record(event),
        emit,
      },
      this.variant,
      options.invocation,
      this.artifacts.manifest.variants[this.variant]?.requiredSkills,
      preloadedSkills,
    );
    this.namespaces = new SessionToolNamespaces({
      artifacts: this.artifacts,
      variant: this.variant,
      owner,
      emit,
      announce: (update) => {
        this.routeUpdate(update);
      },
      now: () => this.now(),
    });
    this.checklists = new SessionChecklists({ skills: this.artifacts.skills, variant: this.variant, owner, recorder: this.recorder, run: this.run, emit }, options.audit);
    this.knowledge = new SessionKnowledge(
      { state: owner.state, saveKnowledge: (knowledge) => owner.change({ op: "knowledge", knowledge }), emit, now: () => this.now() },
      this.artifacts.knowledge,
      options.knowledge,
    );
    this.context = new SessionContext({ owner, skills: this.artifacts.skills, preloaded: new Set(preloadedSkills), knowledge: this.knowledge, enforcer: this.enforcer, now: () => this.now() });
    // Bodies that left the system prompt with the variant, and active skills whose text this build changed,
    // reach the model in a fresh anchor with the next context made: the workspace_update says to follow the
    // current text, which the transcript holds only as it was (on every path, a resume's or a turn's).
    if (rebuilt !== undefined && (rebuilt.unpreloadedSkills.length > 0 || rebuilt.changedSkills.length > 0 || rebuilt.requiredNow.length > 0)) this.context.anchorDue();
    this.yielding = new SessionYield({ run: this.run, recorder: this.recorder, checklists: this.checklists, emit });
    if (rebuilt !== undefined) {
      this.recorder.recordBuildChange({ cacheKey: rebuilt.change.cacheKey, variant: this.variant }, this.owner.state.activeSkills.map((skill) => skill.name), this.owner.state.tasks);
      this.tellBuildChange(rebuilt);
    }
  }

  /**
   * Keeps the stored current artifacts the anchor can render: each one that
   * is not well formed leaves the list (a durable change) and is told as a
   * `runtime_error` during "restore", naming the field; the host sets the
   * list again with setCurrentArtifacts.
   */
  private dropMalformedArtifacts(): void {
    const stored: unknown = this.owner.state.currentArtifacts;
    const entries: unknown[] = Array.isArray(stored) ? stored : [];
    const problems = entries.map((entry, index) => artifactProblem(entry, index));
    if (Array.isArray(stored) && problems.every((problem) => problem === undefined)) return;
    const kept = entries.filter((_entry, index) => problems[index] === undefined) as ArtifactReference[];
    this.owner.change({ op: "artifacts", artifacts: kept.map((artifact) => ({ ...artifact })) });
    const told = Array.isArray(stored) ? problems.filter((problem) => problem !== undefined) : [`Unexpected stored currentArtifacts ${JSON.stringify(stored) ?? String(stored)}, expected an array`];
    for (const problem of told) {
      this.emit({ type: "runtime_error", during: "restore", error: new TypeError(`${problem}; the stored entry is dropped from the session's current artifacts (set them again with setCurrentArtifacts)`) });
    }
  }

  /**
   * The host is told of a reopen on another build (a state saved before the
   * build was kept is told only when something left it); the model is told
   * what left the state, through a workspace_update when the project defines it.
   */
  private tellBuildChange(rebuilt: BuildReconciliation): void {
    const { previousCacheKey, droppedSkills, clearedSteps, changedSkills, variant, unpreloadedSkills, preloadedSkills, requiredNow, blockedRequirements } = rebuilt;
    const lost =
      droppedSkills.length > 0 ||
      clearedSteps.length > 0 ||
      changedSkills.length > 0 ||
      variant !== undefined ||
      unpreloadedSkills.length > 0 ||
      preloadedSkills.length > 0 ||
      requiredNow.length > 0 ||
      blockedRequirements.length > 0;
    if (previousCacheKey === undefined && !lost) return;
    const cacheKey = rebuilt.change.cacheKey;
    this.emit({
      type: "build_changed",
      ...(previousCacheKey === undefined ? {} : { previousCacheKey }),
      cacheKey,
      droppedSkills,
      clearedSteps,
      ...(changedSkills.length === 0 ? {} : { changedSkills }),
      ...(requiredNow.length === 0 ? {} : { requiredNow }),
      ...(blockedRequirements.length === 0 ? {} : { blockedRequirements }),
      ...(variant === undefined ? {} : { variant }),
    });
    const kind = this.artifacts.injectionKinds.find((candidate) => candidate.kind === "workspace_update");
    if (lost && kind !== undefined && this.artifacts.manifest.injections !== undefined) this.routeUpdate(buildChangeUpdate(rebuilt, kind.delivery, this.owner.revision, this.now()));
  }

  // ---- state ------------------------------------------------------------------

  /** A snapshot of the durable state (built on each read), with where each pending injection waits. */
  get state(): Readonly<ExecutionState> {
    const state = this.owner.snapshot();
    const waiting = new Map(this.pending.all().map((entry) => [entry.id, entry.queuedAs]));
    state.pendingInjections = state.pendingInjections.map((entry) => {
      const queuedAs = waiting.get(entry.id);
      return queuedAs === undefined ? entry : { ...entry, queuedAs };
    });
    return state;
  }

  /** The pending injections: the state owner's queue. */
  get pending(): InjectionQueue {
    return this.owner.pending;
  }

  /**
   * Resolves once every change made so far is durable in the store; rejects
   * with StateWriteFailedError once a write was refused and the session
   * stopped. The adapter awaits it before every model call, before reporting a
   * tool result and at the end of a run; a host awaits it after a change of
   * its own (routeUpdate, registerConnector, setCurrentArtifacts) to know it is stored.
   */
  flush(): Promise<void> {
    return this.owner.flush();
  }

  /**
   * What a run waits for before a model call, before a tool's result and at
   * its end: `flush()`, ended early by `dispose()` (SessionDisposedError) or
   * by the run's abort signal (its reason), so a store write that never
   * answers does not hold the run. The write itself is still awaited by
   * `flush()`, and a failure it ends with is still told (state_write_failed).
   */
  waitForStore(signal?: AbortSignal): Promise<void> {
    if (!this.owner.busy) return this.owner.flush();
    const stops = signal === undefined ? [this.disposal.signal] : [this.disposal.signal, signal];
    return new Promise<void>((resolve, reject) => {
      const stop = (): void => {
        done();
        reject(this.owner.isClosed ? new SessionDisposedError("step of the run waiting for the store") : abortReason(signal));
      };
      const done = (): void => {
        for (const stopping of stops) stopping.removeEventListener("abort", stop);
      };
      this.owner.flush().then(
        () => {
          done();
          resolve();
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
      if (stops.some((stopping) => stopping.aborted)) return stop();
      for (const stopping of stops) stopping.addEventListener("abort", stop, { once: true });
    });
  }

  /**
   * A store beside the state's refused a write (the transcript a database
   * keeps, say; `failedWrite` names it for the error): the session stops
   * exactly as when the state's store refuses one, and the failure is
   * returned. Once stopped, it returns the first failure.
   */
  stopOnStoreFailure(cause: unknown, failedWrite = "a store beside the state"): StateWriteFailedError {
    return this.owner.failure ?? this.owner.stop(cause, failedWrite);
  }

  /** The refused write that stopped the session, if one did. */
  get failure(): StateWriteFailedError | undefined {
    return this.owner.failure;
  }

  /** A random id minted with the session and kept in its store (the default prompt cache key derives from it). */
  get sessionKey(): string {
    return this.owner.state.sessionKey ?? "";
  }

  /** The exact system prompt: the chosen variant's bytes. */
  get systemPrompt(): string {
    return this.artifacts.variants[this.variant] ?? "";
  }

  /** A failure no caller waits for (a woken turn, a message handed to Pi, a hook's bookkeeping): told as a `runtime_error` event. */
  reportError(during: RuntimeErrorPhase, error: unknown): void {
    this.emit({ type: "runtime_error", during, error });
  }

  /**
   * The session is disposed (the adapter's dispose calls it): every later
   * change is refused with SessionDisposedError (the host is told by a
   * `runtime_error` event, during "disposed") and no model call goes out; the
   * changes made before it are still written, and the store is released once
   * the last of them settled.
   */
  close(): void {
    this.owner.close();
    this.disposal.abort();
  }

  /** True once the session was disposed. */
  get disposed(): boolean {
    return this.owner.isClosed;
  }

  /** Throws SessionDisposedError once the session was disposed: the adapter calls it before every model call goes out. */
  refuseModelCallWhenDisposed(): void {
    if (this.owner.isClosed) throw new SessionDisposedError("model call");
  }

  // ---- skills ---------------------------------------------------------------

  /** The `skill` tool: the skill and its missing requirements become active, the result carries their bodies. */
  activateSkill(name: string, toolCallId = ""): ToolOutcome {
    const { plan, parts } = this.activate(name, "tool", toolCallId);
    return {
      content: parts.map((part) => ({ type: "text", text: part })),
      details: { skill: name, alreadyActive: plan.alreadyActive, activated: plan.newlyActive },
    };
  }

  /**
   * The host activates a skill explicitly (a slash command, a button, a
   * product rule), including one with `disable-model-invocation: true` that
   * the model is never offered. It becomes active exactly as with the `skill`
   * tool (its requirements, the audit's record, checklist progress, the
   * namespaces its workflow needs); the returned trusted message carries the
   * bodies. Send it with the next prompt
   * (`agent.prompt([...controller.buildTurnMessages({ text }), message])`) or
   * steer it into a running turn. Throws SkillToolError for an unknown or
   * conflicting skill; an already active skill gives a short confirmation.
   */
  activateSkillForHost(name: string): GammaCustomMessage {
    const { plan, parts } = this.activate(name, "host", "");
    return createTrustedMessage({
      kind: kindOf(HOST_SKILL_CUSTOM_TYPE),
      content: hostActivationContent(plan, parts),
      details: { hostActivation: { skill: name, alreadyActive: plan.alreadyActive, activated: plan.newlyActive.map((skill) => skill.name) } },
      timestamp: this.now(),
    });
  }

  private activate(name: string, source: "tool" | "host", toolCallId: string) {
    const active = this.owner.state.activeSkills;
    const plan = planActivation({ name, skills: this.artifacts.skills, active, source });
    const parts = activationResultText(plan, this.artifacts.skills, active);
    if (!plan.alreadyActive) {
      // Each with the body it was activated with, so a reopen on a build whose body differs is told.
      this.owner.change({ op: "skills", add: plan.newlyActive.map((skill) => withSkillSha256(skill, this.artifacts.manifest.skills[skill.name]?.sha256)) });
      const names = plan.newlyActive.map((skill) => skill.name);
      this.recorder.record({ type: "skills_loaded", names });
      this.emit({ type: "skills_activated", names, toolCallId });
      this.checklists.emitProgress(toolCallId, names);
      const loaded = this.namespaces.loadForSkills(names, toolCallId);
      if (loaded !== undefined) parts.push(loaded);
    }
    return { plan, parts };
  }

  // ---- invocation enforcement ------------------------------------------------

  /**
   * The host requires skills for this request: for the current turn (until
   * it ends: its run on the Agent path, the session settling on an
   * AgentSession, after Pi's retries) or the whole session. Until each is active,
   * task actions and yields are refused with a tool error naming the skills
   * to load, at most `invocation.maxRefusals` times per turn (default 2);
   * then the call goes ahead and the violation is recorded for the audit
   * (`audit/required-skill`). Durable: it survives compaction and a reload.
   * Throws RequiredSkillError for an unknown skill, one the model cannot load,
   * or a set that can never all be active (skills that conflict with each
   * other or with an active skill).
   */
  requireSkills(names: readonly string[], scope: RequirementScope = "turn"): void {
    this.enforcer.require(names, scope);
  }

  /** Required skills (the policy's and the host's) not active now. */
  get missingRequiredSkills(): string[] {
    return this.enforcer.missing();
  }

  /**
   * The hook every tool call passes before its executor: throws the refusal
   * as the tool's error (a required skill missing), or the store's failure
   * once the session stopped (no tool runs after that).
   */
  checkToolCall(tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string): void {
    const failure = this.owner.failure;
    if (failure !== undefined) throw failure;
    try {
      this.enforcer.checkToolCall(tool, params, toolCallId);
    } catch (error) {
      // A refused yield did not happen: the run goes on so the model can load the skill.
      if (tool === "message_user") this.yielding.refused(toolCallId);
      throw error;
    }
  }

  // ---- tasks ----------------------------------------------------------------

  updateTasks(tasks: unknown, toolCallId = ""): ToolOutcome {
    const items = parseTaskList(tasks, (reference) => this.checklists.checkStep(reference));
    const snapshot: TaskSnapshot = { revision: this.owner.state.tasks.revision + 1, items };
    this.owner.change({ op: "tasks", tasks: snapshot });
    this.recorder.record({ type: "tasks", revision: snapshot.revision, tasks: items });
    this.emit({ type: "tasks_updated", revision: snapshot.revision, toolCallId });
    this.checklists.emitProgress(toolCallId);
    return { content: [{ type: "text", text: renderTaskList(snapshot) }], details: { tasks: snapshot } };
  }

  // ---- yield (src/runtime/session-yield.ts) ----------------------------------------

  messageUser(params: Record<string, unknown>, toolCallId: string): ToolOutcome {
    return this.yielding.messageUser(params, toolCallId);
  }

  /** Decides Pi's `terminate` for one finished call: a batch that yields terminates as a whole. */
  terminateForBatch(calls: readonly ToolCallSummary[]): boolean {
    return this.yielding.terminateForBatch(calls);
  }

  /** The model's tool calls of one assistant message, before they run (the adapter calls this). */
  noteToolBatch(calls: readonly ToolCallSummary[]): void {
    this.yielding.noteToolBatch(calls);
  }

  /** The runtime's knowledge hints message entered the model's context: the audit records the hinted ids. */
  noteKnowledgeHints(text: string): void {
    this.recorder.noteKnowledgeHints(text);
  }

  /** The delivery policy's inputs: the current artifacts and whether a task is unfinished. */
  policyContext(): PolicyContext {
    const { currentArtifacts, tasks } = this.owner.state;
    return { currentArtifacts, hasActiveTask: tasks.items.some((task) => task.status !== "complete") };
  }

  /** Whether the loop must stop before another model call (a yield happened in this run). */
  shouldStopAfterTurn(): boolean {
    return this.yielding.shouldStop();
  }

  // ---- tool namespaces and connectors (src/runtime/tool-namespaces.ts) ------------

  /** Set by the adapter: applies namespace loads to Pi's tool list. */
  get toolLoader(): ToolLoader | undefined {
    return this.namespaces.loader;
  }

  set toolLoader(loader: ToolLoader | undefined) {
    this.namespaces.loader = loader;
  }

  /** The tools a session of this variant starts with, in the cache plan's order (tools.json's, then the start and loaded namespaces'). */
  startToolSchemas(): ToolSchemaArtifact[] {
    return this.namespaces.startToolSchemas();
  }

  /**
   * The tools a new session of this variant on this build starts with, in
   * order: what the leading system message of every model call declares,
   * whichever build stored the transcript. Namespaces loaded since are
   * declared where they loaded.
   */
  newSessionToolSchemas(): ToolSchemaArtifact[] {
    return this.namespaces.newSessionToolSchemas();
  }

  /** Every namespace this session can load: the compiled ones by name, then the registered connectors in registration order. */
  get namespaceCatalog(): SessionNamespace[] {
    return this.namespaces.catalog;
  }

  /** The namespaces loaded during the session, in load order (the variant's start namespaces are not listed). */
  get loadedNamespaces(): readonly LoadedNamespace[] {
    return this.namespaces.loaded;
  }

  /** Whether the namespace's tools are in the tool list: sent from the start, or loaded since. */
  isNamespaceLoaded(name: string): boolean {
    return this.namespaces.isLoaded(name);
  }

  /**
   * The host loads namespaces (e.g. every one at session start on a model
   * that re-sends the tool list for each change). Idempotent; throws
   * NamespaceToolError for a name the catalog does not hold or one that cannot load.
   */
  loadNamespacesForHost(names: readonly string[]): SessionNamespace[] {
    expectStringArray(names, "namespace names", 'an array of namespace names, such as ["drive"]');
    return this.namespaces.loadForHost(names);
  }

  /** `load_tool_namespace({ name })`: exact name from the catalog; a loaded one is confirmed, not loaded twice. */
  loadNamespaceTool(params: Readonly<Record<string, unknown>>, toolCallId: string): ToolOutcome {
    return this.namespaces.loadTool(params, toolCallId);
  }

  /** The connectors registered on this session, in registration order. */
  get connectors(): readonly ConnectorDefinition[] {
    return this.namespaces.connectors;
  }

  /** The connector a tool belongs to, if any. */
  connectorOfTool(tool: string): ConnectorDefinition | undefined {
    return this.namespaces.connectorOfTool(tool);
  }

  /** The boundary check of a connector against this session (`except` leaves one registered connector out, for a restore). */
  checkConnector(value: unknown, except?: string): { definition?: ConnectorDefinition; problems: ConnectorProblem[] } {
    return this.namespaces.checkConnector(value, except);
  }

  /**
   * The host registers a connector on the live session. It is checked at the
   * boundary (ConnectorRejectedError with every finding, nothing registered;
   * ToolSetupError for executors that do not match its tools), kept durable,
   * joins the catalog and, when the loader says so, the tool list at once;
   * the model learns of it through a workspace_update injection.
   */
  registerConnector(registration: ConnectorRegistration): ConnectorChange {
    return this.namespaces.register(registration);
  }

  /**
   * The host removes a connector: its tools leave the tool list at once (a
   * call the model still makes to one is a tool error), the removal is
   * durable and announced like the registration. UnknownConnectorError for a
   * name not registered.
   */
  removeConnector(name: string): ConnectorChange {
    return this.namespaces.remove(name);
  }

  /** A stored connector a restart cannot bring back leaves the session, and the model is told. */
  dropConnector(name: string): void {
    this.namespaces.drop(name);
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
   * and travels in the anchor after compaction. Each entry is checked first
   * (`ref` a non-empty string; `path`, `revision`, `title` strings when
   * given): a TypeError names the bad field, and nothing is stored.
   */
  setCurrentArtifacts(artifacts: readonly ArtifactReference[]): void {
    this.owner.change({ op: "artifacts", artifacts: checkedArtifacts(artifacts) });
  }

  // ---- context (src/runtime/session-context.ts) --------------------------------------

  /**
   * The messages for the next `Agent.prompt(messages)`: the user's message,
   * then every pending injection not already handed to Pi, oldest first. They
   * stay pending until a model call used the context that carries them.
   */
  buildTurnMessages(input: TurnInput): TurnMessage[] {
    expectObject(input, "buildTurnMessages input", 'an object such as { text: "Make a deck about tide pools" }');
    if (input.text !== undefined) expectString(input.text, "text", "a string", true);
    return this.context.turnMessages(input);
  }

  /**
   * The anchor for the current state, carrying the pending injections not
   * waiting in a Pi queue (`carryInContext: false` leaves out those the
   * context holds: a session resumed on its whole transcript).
   */
  anchorMessage(options: { carryInContext?: boolean } = {}): GammaCustomMessage {
    return this.context.anchor(options);
  }

  /** The anchor a session resumed on `messages` (its stored transcript) needs: none when they hold one and every pending injection is queued. */
  resumeAnchor(messages: readonly unknown[]): GammaCustomMessage | undefined {
    return this.context.resumeAnchor(messages);
  }

  /**
   * After a server-side compaction on the low-level path (`messages` are what
   * the compaction kept): drop every older anchor and append a fresh one, so
   * the context holds exactly one.
   */
  restoreContext<M>(messages: readonly M[]): (M | GammaCustomMessage)[] {
    return this.context.restore(messages);
  }

  /**
   * A reload on the low-level path (`messages`: the stored context, not
   * compacted). The pending events they hold are in the context; an anchor
   * they hold stays where it is and none is added, unless a pending event is
   * in no context and no queue yet (the rule of {@link resumeAnchor}): then a
   * fresh anchor replaces the older ones.
   */
  reloadContext<M>(messages: readonly M[]): (M | GammaCustomMessage)[] {
    this.injections.noteTranscript(messages);
    return this.context.reload(messages);
  }

  // ---- the Pi adapter's interface: what a run tells the session, and what the session asks of Pi ----

  /** The adapter installs how Pi delivers messages and which tool results Pi's context holds. */
  attachPi(pi: { transport: InjectionTransport; toolResultsInContext: () => ReadonlySet<string> }): void {
    this.transport = pi.transport;
    this.injections.contextProbe = pi.toolResultsInContext;
  }

  /**
   * The model ended a turn in plain text, without `message_user`, and the
   * run is about to stop: under the `block` audit policy a failed completion
   * audit keeps it going as a refused yield does. The returned trusted
   * message (the audit's problems) goes to the model as a follow-up; undefined
   * lets the run end.
   */
  unyieldedEndReminder(): GammaCustomMessage | undefined {
    if (this.run.yielded !== undefined) return undefined;
    const report = this.checklists.auditUnyieldedEnd();
    if (report === undefined) return undefined;
    return createTrustedMessage({
      kind: "completion_audit",
      content: auditBlockMessage(report, "unyielded-end"),
      details: { completionAudit: { outcome: report.outcome, workflows: report.workflows } },
      timestamp: this.now(),
    });
  }

  /** A run starts (Pi's agent_start). */
  beginRun(): void {
    this.run.begin();
  }

  /** A tool batch ended (Pi's turn_end, before Pi polls its steering queue): the injections due now go to Pi's queues. */
  atBatchEnd(): void {
    this.injections.atBatchEnd();
  }

  /**
   * A tool batch is done (Pi's finishTurn, just before turn_end): when the
   * active skills, the artifacts or a note changed, knowledge hints are
   * steered in before the next model call. False when they could not be
   * made: the run is to end here, before a model call that would quietly say
   * less; the host is told (`runtime_error` during "hints") and the run's
   * prompt() rejects with the HintsNotMadeError (see `runStoppedBy`).
   */
  steerHintsAfterBatch(): boolean {
    if (this.shouldStopAfterTurn()) return true;
    let hints: GammaCustomMessage | undefined;
    try {
      hints = this.knowledge.atBatchEnd();
    } catch (error) {
      const stopped = new HintsNotMadeError(error);
      this.run.stop(stopped);
      this.reportError("hints", stopped);
      return false;
    }
    const handed = hints === undefined ? undefined : this.transport?.steer(hints);
    if (handed instanceof Promise) handed.catch((error: unknown) => this.reportError("steer", error));
    return true;
  }

  /** Why the runtime ended the current (or last) run before its next model call, if it did. */
  get runStoppedBy(): HintsNotMadeError | undefined {
    return this.run.stoppedBy;
  }

  /**
   * The run ended (Pi's agent_end): lost queue entries wait again (and, when
   * it was aborted or ends the turn, those still in Pi's steering queue), an
   * idle wake is considered. `endsTurn`: nothing retries this run (the Agent
   * path, where a turn is one run); a session's turn ends when it settles
   * ({@link endTurn}), after Pi's retries.
   */
  endRun(ended: { aborted?: boolean; endsTurn?: boolean } = {}): void {
    this.injections.afterRun({ withdrawSteering: ended.aborted === true || ended.endsTurn === true });
    this.run.end();
    if (ended.endsTurn === true) this.run.endTurn();
  }

  /**
   * The turn ended (a session settled: no retry, compaction or queued
   * continuation follows): steered events still in Pi's queue wait unsent
   * again, the turn's requirements end.
   */
  endTurn(): void {
    this.injections.afterRun({ withdrawSteering: true });
    this.run.endTurn();
  }

  /** A runtime injection's message entered Pi's context; a model call has not used it yet. */
  noteInContext(injectionId: string): void {
    this.injections.markInContext(injectionId);
  }

  /**
   * A model call is about to use these messages: the injections they carry leave the pending set. Until the
   * adapter says the call went ({@link modelCallGoes}) or was refused ({@link modelCallRefused}), what left is
   * kept, so a refused call returns it.
   */
  confirmModelContext(messages: readonly unknown[]): void {
    this.confirmedForCall = this.injections.confirmModelContext(messages);
  }

  /** A model call is being prepared: nothing is confirmed for it yet. */
  modelCallStarts(): void {
    this.confirmedForCall = [];
  }

  /** The model call confirmed last goes out. */
  modelCallGoes(): void {
    this.confirmedForCall = [];
  }

  /**
   * The model call confirmed last was refused before it went out (an abort, a dispose, a refused write): the
   * injections it took out of the pending set are pending again, unless the session stopped or was disposed,
   * whose state takes no change (a reopen finds them pending only if their removal was never written).
   */
  modelCallRefused(): void {
    const taken = this.confirmedForCall;
    this.confirmedForCall = [];
    if (taken.length === 0 || this.owner.isClosed || this.failure !== undefined) return;
    this.injections.returnUnsent(taken);
  }

  /** A session reopened on a stored transcript: pending injections it already holds are in the context. */
  noteTranscript(messages: readonly unknown[]): void {
    this.injections.noteTranscript(messages);
  }

  /** An AgentSession's next prompt: the messages its next-turn list carries after the user's (hints, unsent injections). */
  nextTurnMessages(text: string): GammaCustomMessage[] {
    return this.context.nextTurnMessages(text);
  }
}

/**
 * The host's observer, kept apart from the protocol: an event is told after
 * the step it reports is done (a skill active and its body in the tool
 * result, the tasks stored), so an observer that throws (its websocket
 * closed, say) must not undo half of that step or fail it. An asynchronous
 * observer's rejected promise is the same exception, arriving later: it is
 * caught too, never left unhandled. The exception is told to the observer
 * once as a `runtime_error` (during "observer") and the session goes on; when
 * that throws or rejects too, there is no one left to tell.
 */
function isolatedObserver(observer: (event: ProtocolEvent) => unknown): (event: ProtocolEvent) => void {
  const tell = (event: ProtocolEvent, error: unknown): void => {
    if (event.type === "runtime_error" && event.during === "observer") return;
    const reason = messageOf(error);
    const told = new Error(`Unexpected exception from onProtocolEvent on a ${event.type} event (${reason}), expected none: the session went on, its step done`, { cause: error });
    try {
      swallowRejection(observer({ type: "runtime_error", during: "observer", error: told }));
    } catch {
      // The observer fails on every event: nothing else can tell the host.
    }
  };
  return (event) => {
    let returned: unknown;
    try {
      returned = observer(event);
    } catch (error) {
      tell(event, error);
      return;
    }
    if (isThenable(returned)) {
      returned.then(undefined, (error: unknown) => tell(event, error));
    }
  };
}

export type { ProtocolEvent, YieldRecord };
export { SHARED_BATCH_NOTE };

/** What an aborted run's wait ends with: the signal's reason (Pi's abort gives an AbortError). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error("The run was aborted while it waited for the store");
}

/** An active skill with the sha256 of the body it is activated with, when the manifest gives one. */
function withSkillSha256(skill: ActiveSkill, sha256: string | undefined): ActiveSkill {
  return sha256 === undefined ? skill : { ...skill, sha256 };
}
