/**
 * SessionProtocolController: the one owner of a session's persistent
 * execution state (active skills, tasks, pending injections, current
 * artifacts) and of the runtime tools that change it. Pi-free; the adapter
 * wires it to a Pi Agent or AgentSession.
 */
import { randomUUID } from "node:crypto";
import type { VariantName } from "../protocol/manifest.js";
import { renderAnchor } from "./anchor.js";
import { InjectionDesk, type RouteUpdateResult } from "./injections/desk.js";
import type { LoadedArtifacts } from "./artifacts.js";
import { ANCHOR_CUSTOM_TYPE, createTrustedMessage, isAnchorMessage, type GammaCustomMessage, type ImagePart, type RuntimeUserMessage } from "./messages.js";
import { activationResultText, planActivation } from "./skills.js";
import { MemoryStateStore, STATE_VERSION, type ArtifactReference, type ExecutionState, type JsonValue, type PendingInjection, type PiQueue, type StateStore, type TaskSnapshot } from "./state.js";
import { parseTaskList, renderTaskList } from "./tasks.js";
import type { RuntimeToolName, ToolExecutor, ToolOutcome } from "./tools.js";
import { batchRequestsYield, parseMessageUser, RunTracker, SHARED_BATCH_NOTE, type ProtocolEvent, type ToolCallSummary, type YieldRecord } from "./yield.js";

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
}

export interface TurnInput {
  text?: string;
  images?: ImagePart[];
  /** Ready-made user messages, sent before `text`. */
  messages?: RuntimeUserMessage[];
}

/** How Pi delivers an injection right now; the adapter provides one per Agent or AgentSession. */
export interface InjectionTransport {
  isRunning(): boolean;
  steer(message: GammaCustomMessage): void;
  followUp(message: GammaCustomMessage): void;
  /** Starts a turn on an idle session with these messages. */
  startTurn(messages: GammaCustomMessage[]): Promise<void>;
  /** Ids of the injections still waiting in Pi's steering and follow-up queues; undefined when unknown. */
  queuedInjectionIds?(): ReadonlySet<string> | undefined;
}

export type TurnMessage = RuntimeUserMessage | GammaCustomMessage;

export class SessionProtocolController {
  readonly artifacts: LoadedArtifacts;
  readonly variant: VariantName;
  readonly run = new RunTracker();
  transport: InjectionTransport | undefined;
  /** Routing and delivery of runtime injections (src/runtime/injections). */
  readonly injections: InjectionDesk;
  private readonly store: StateStore;
  private readonly emit: (event: ProtocolEvent) => void;
  private readonly now: () => number;
  private current: ExecutionState;

  constructor(options: ControllerOptions) {
    if (!Object.hasOwn(options.artifacts.variants, options.variant)) throw new UnknownVariantError(options.variant, Object.keys(options.artifacts.variants));
    this.artifacts = options.artifacts;
    this.variant = options.variant;
    this.store = options.store ?? new MemoryStateStore();
    this.emit = options.onProtocolEvent ?? (() => {});
    this.now = options.now ?? Date.now;
    const restored = this.store.load();
    if (restored !== undefined) {
      if (restored.variant !== options.variant) {
        throw new Error(`Unexpected stored state for variant "${restored.variant}", expected "${options.variant}"`);
      }
      // Pi's queues do not survive a restart: what was queued waits for the next turn.
      for (const injection of restored.pendingInjections) delete injection.queuedAs;
      this.current = restored;
      if (typeof restored.sessionKey !== "string") {
        // Saved before sessions had a key: mint it now, once.
        this.current.sessionKey = randomUUID();
        this.commit();
      }
    } else {
      this.current = this.initialState();
      this.commit();
    }
    this.injections = new InjectionDesk(this);
  }

  /** The live state; change it only through the controller's methods. */
  get state(): Readonly<ExecutionState> {
    return this.current;
  }

  /** A random id minted with the session and kept in its store (the default prompt cache key derives from it). */
  get sessionKey(): string {
    return this.current.sessionKey ?? "";
  }

  /** The exact system prompt: the chosen variant's bytes. */
  get systemPrompt(): string {
    return this.artifacts.variants[this.variant] ?? "";
  }

  // ---- skills ---------------------------------------------------------------

  activateSkill(name: string, toolCallId = ""): ToolOutcome {
    const plan = planActivation({ name, skills: this.artifacts.skills, active: this.current.activeSkills, source: "tool" });
    const text = activationResultText(plan, this.artifacts.skills, this.current.activeSkills);
    if (!plan.alreadyActive) {
      this.current.activeSkills.push(...plan.newlyActive);
      this.commit();
      this.emit({ type: "skills_activated", names: plan.newlyActive.map((skill) => skill.name), toolCallId });
    }
    return {
      content: text.map((part) => ({ type: "text", text: part })),
      details: { skill: name, alreadyActive: plan.alreadyActive, activated: plan.newlyActive },
    };
  }

  // ---- tasks ----------------------------------------------------------------

  updateTasks(tasks: unknown, toolCallId = ""): ToolOutcome {
    const items = parseTaskList(tasks);
    const snapshot: TaskSnapshot = { revision: this.current.tasks.revision + 1, items };
    this.current.tasks = snapshot;
    this.commit();
    this.emit({ type: "tasks_updated", revision: snapshot.revision, toolCallId });
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
    const sharedBatch = this.run.currentBatch.length > 1;
    const record: YieldRecord = { message: parsed.message, toolCallId, sharedBatch };
    this.run.recordYield(record);
    this.emit({ type: "yield", message: parsed.message, toolCallId, sharedBatch, ...(parsed.reason === undefined ? {} : { reason: parsed.reason }) });
    const text = "Message shown to the user. The turn now passes to the user; wait for their reply.";
    return {
      content: [{ type: "text", text: sharedBatch ? `${text}\n\n${SHARED_BATCH_NOTE}` : text }],
      details: { blockOnUser: true, message: parsed.message, sharedBatch },
      terminate: true,
    };
  }

  /** Decides Pi's `terminate` for one finished call: a batch that yields terminates as a whole. */
  terminateForBatch(calls: readonly ToolCallSummary[]): boolean {
    return batchRequestsYield(calls);
  }

  /** Whether the loop must stop before another model call (a yield happened in this run). */
  shouldStopAfterTurn(): boolean {
    return this.run.yielded !== undefined;
  }

  runtimeExecutors(): Record<RuntimeToolName, ToolExecutor> {
    return {
      skill: async (id, params) => this.activateSkill(String(params["name"]), id),
      todo: async (id, params) => this.updateTasks(params["tasks"], id),
      message_user: async (id, params) => this.messageUser(params, id),
    };
  }

  // ---- pending injections (filled by the injections module) ------------------

  /**
   * The design's entry point for platform events: validates the envelope
   * (throws InjectionRejectedError naming the field), queues it with
   * coalescing and idempotency, and delivers it per the policy.
   */
  routeUpdate(update: unknown): RouteUpdateResult {
    if (this.artifacts.manifest.injections === undefined) throw new InjectionsNotDefinedError();
    return this.injections.route(update);
  }

  saveInjectionLog(log: JsonValue): void {
    this.current.injectionLog = log;
    this.commit();
  }

  addPendingInjection(injection: PendingInjection): void {
    if (this.current.pendingInjections.some((existing) => existing.id === injection.id)) return;
    this.current.pendingInjections.push(injection);
    this.commit();
  }

  removePendingInjections(ids: readonly string[]): void {
    const drop = new Set(ids);
    const before = this.current.pendingInjections.length;
    this.current.pendingInjections = this.current.pendingInjections.filter((injection) => !drop.has(injection.id));
    if (this.current.pendingInjections.length !== before) this.commit();
  }

  /** Removes and returns the pending injections that match, ordered by occurredAt then id. */
  takePendingInjections(match: (injection: PendingInjection) => boolean): PendingInjection[] {
    const taken = this.current.pendingInjections.filter(match);
    if (taken.length === 0) return [];
    this.removePendingInjections(taken.map((injection) => injection.id));
    return taken.sort(byOccurrence);
  }

  markInjectionQueued(id: string, via: PiQueue): void {
    const injection = this.current.pendingInjections.find((candidate) => candidate.id === id);
    if (injection === undefined) return;
    injection.queuedAs = via;
    this.commit();
  }

  releaseQueuedInjections(ids: readonly string[]): void {
    const release = new Set(ids);
    let changed = false;
    for (const injection of this.current.pendingInjections) {
      if (injection.queuedAs === undefined || !release.has(injection.id)) continue;
      delete injection.queuedAs;
      changed = true;
    }
    if (changed) this.commit();
  }

  /**
   * The unqueued pending injections, oldest first, marked as riding with the
   * next user prompt (AgentSession's next-turn list). They stay pending until
   * Pi reports them in the context, so a restart before that keeps them.
   */
  queuePendingForNextTurn(): PendingInjection[] {
    const due = this.current.pendingInjections.filter((candidate) => candidate.queuedAs === undefined).sort(byOccurrence);
    if (due.length === 0) return [];
    for (const injection of due) injection.queuedAs = "next_turn";
    this.commit();
    return due;
  }

  /** Pi put the message into the context: it is no longer pending. */
  markInjectionDelivered(id: string): void {
    this.removePendingInjections([id]);
  }

  // ---- artifacts --------------------------------------------------------------

  setCurrentArtifacts(artifacts: readonly ArtifactReference[]): void {
    this.current.currentArtifacts = artifacts.map((artifact) => ({ ...artifact }));
    this.commit();
  }

  // ---- context ------------------------------------------------------------------

  /**
   * The messages for the next `Agent.prompt(messages)`: the user's message,
   * then every pending injection not already queued in Pi (they wait for the
   * next user turn), oldest first.
   */
  buildTurnMessages(input: TurnInput): TurnMessage[] {
    const messages: TurnMessage[] = [...(input.messages ?? [])];
    if (input.text !== undefined || (input.images?.length ?? 0) > 0) {
      messages.push({
        role: "user",
        content: [...(input.text === undefined ? [] : [{ type: "text" as const, text: input.text }]), ...(input.images ?? [])],
        timestamp: this.now(),
      });
    }
    for (const injection of this.takePendingInjections((candidate) => candidate.queuedAs === undefined)) {
      messages.push(injection.message);
    }
    return messages;
  }

  /** The anchor for the current state; it also delivers (and clears) the unqueued pending injections. */
  anchorMessage(): GammaCustomMessage {
    const injections = this.takePendingInjections((candidate) => candidate.queuedAs === undefined);
    return createTrustedMessage({
      kind: ANCHOR_CUSTOM_TYPE.slice("gamma.".length),
      content: renderAnchor({ state: this.current, skills: this.artifacts.skills, injections }),
      details: { anchor: true, stateRevision: this.current.revision },
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

  /** Saves the state with the next revision. Called after every change. */
  commit(): void {
    this.current.revision += 1;
    this.store.save(this.current);
  }
}

function byOccurrence(a: PendingInjection, b: PendingInjection): number {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export type { ProtocolEvent, YieldRecord };
export { SHARED_BATCH_NOTE };
