/**
 * The session's persistent execution state and where it is kept. The
 * controller is the only writer; a store only loads and saves snapshots.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { InjectionDelivery, VariantName } from "../protocol/manifest.js";
import type { SkillType } from "./artifacts.js";
import type { GammaCustomMessage } from "./messages.js";

export const STATE_VERSION = 1;

export type TaskStatus = "pending" | "in_progress" | "complete" | "blocked";

export interface Task {
  id: string;
  title: string;
  status: TaskStatus;
  note?: string;
}

export interface TaskSnapshot {
  /** Increments on every accepted `todo` update. */
  revision: number;
  items: Task[];
}

/** How a skill became active: preloaded by the variant, loaded by the `skill` tool, or required by another. */
export type SkillActivationSource = "preload" | "tool" | "requires";

export interface ActiveSkill {
  name: string;
  type: SkillType;
  activatedBy: SkillActivationSource;
  /** The skill whose `requiresSkills` pulled this one in (activatedBy "requires"). */
  requiredBy?: string;
}

export interface ArtifactReference {
  /** Stable reference, e.g. `file:gamma-agent/session/brief.xml` or `gamma:file:g_1:d_2`. */
  ref: string;
  path?: string;
  revision?: string;
  title?: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The Pi queues a pending injection can wait in; all are lost on restart. */
export type PiQueue = "steer" | "follow_up" | "next_turn";

/**
 * A runtime injection not yet seen by the model. The injections module owns
 * its policy; the controller keeps it durable and delivers it.
 */
export interface PendingInjection {
  id: string;
  kind: string;
  occurredAt: string;
  delivery: InjectionDelivery;
  /** The trusted custom message the model receives. */
  message: GammaCustomMessage;
  /** Set while the message sits in a Pi queue: steering, follow-up, or AgentSession's next-turn list. */
  queuedAs?: PiQueue;
  /** Data owned by the injections module (e.g. its envelope); JSON only. */
  data?: JsonValue;
}

export interface ExecutionState {
  stateVersion: typeof STATE_VERSION;
  /** Increments on every saved change. */
  revision: number;
  variant: VariantName;
  /** Minted once per session; the prompt cache key derives from it, so it survives a restore. */
  sessionKey?: string;
  activeSkills: ActiveSkill[];
  tasks: TaskSnapshot;
  pendingInjections: PendingInjection[];
  currentArtifacts: ArtifactReference[];
  /** The injections module's processed-id log (idempotency across restarts); JSON only. */
  injectionLog?: JsonValue;
}

/** Durable home of one session's execution state. `save` must be atomic. */
export interface StateStore {
  load(): ExecutionState | undefined;
  save(state: ExecutionState): void;
}

export class StateStoreError extends Error {
  constructor(
    readonly location: string,
    message: string,
  ) {
    super(`${location}: ${message}`);
    this.name = "StateStoreError";
  }
}

/** Keeps the state in memory only (tests, short-lived sessions). Stores copies, never live objects. */
export class MemoryStateStore implements StateStore {
  private snapshot: string | undefined;

  load(): ExecutionState | undefined {
    return this.snapshot === undefined ? undefined : (JSON.parse(this.snapshot) as ExecutionState);
  }

  save(state: ExecutionState): void {
    this.snapshot = JSON.stringify(state);
  }
}

/**
 * One JSON file per session, replaced atomically (write a temp file in the
 * same folder, then rename), so a crash leaves either the old or the new state.
 */
export class FileStateStore implements StateStore {
  private readonly tempPrefix: string;
  private counter = 0;

  constructor(readonly path: string) {
    this.tempPrefix = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  }

  load(): ExecutionState | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateStoreError(this.path, `Unexpected read failure (${(error as Error).message}), expected a readable file`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StateStoreError(this.path, "Unexpected text that is not JSON, expected a saved execution state");
    }
    return checkState(parsed, this.path);
  }

  save(state: ExecutionState): void {
    const temp = `${this.tempPrefix}.${this.counter++}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(state)}\n`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temp, `${JSON.stringify(state)}\n`);
    }
    try {
      renameSync(temp, this.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

function checkState(value: unknown, location: string): ExecutionState {
  const fail = (what: string): never => {
    throw new StateStoreError(location, `Unexpected ${what}, expected a saved execution state (stateVersion ${STATE_VERSION})`);
  };
  if (typeof value !== "object" || value === null) return fail("non-object value");
  const state = value as Partial<ExecutionState>;
  if (state.stateVersion !== STATE_VERSION) fail(`stateVersion ${JSON.stringify(state.stateVersion)}`);
  if (typeof state.revision !== "number") fail("missing revision");
  if (typeof state.variant !== "string") fail("missing variant");
  if (!Array.isArray(state.activeSkills)) fail("missing activeSkills");
  if (typeof state.tasks !== "object" || state.tasks === null || !Array.isArray(state.tasks.items)) fail("missing tasks");
  if (!Array.isArray(state.pendingInjections)) fail("missing pendingInjections");
  if (!Array.isArray(state.currentArtifacts)) fail("missing currentArtifacts");
  return state as ExecutionState;
}
