/**
 * The session's execution state as data: active skills, tasks, current
 * artifacts, pending injections and knowledge. The store (src/runtime/state.ts)
 * keeps it, the journal (src/runtime/journal.ts) changes it, and the modules
 * that read it import only these types.
 */
import type { InjectionDelivery, ToolSchemaArtifact, VariantName } from "../protocol/dist-manifest.js";
import type { SkillType } from "./artifacts.js";
import type { KnowledgeSessionState } from "./knowledge/types.js";
import type { GammaCustomMessage } from "./messages.js";
import type { STATE_VERSION } from "./state/errors.js";


export type TaskStatus = "pending" | "in_progress" | "complete" | "blocked";

export interface Task {
  id: string;
  title: string;
  status: TaskStatus;
  note?: string;
  /** The workflow checklist step the task covers, e.g. `deck-generation#7`. */
  step?: string;
  /** The step failed with an unrecoverable error: the task is `blocked` and `note` gives the cause. */
  deviation?: boolean;
}

export interface TaskSnapshot {
  /** Increments on every accepted `todo` update. */
  revision: number;
  items: Task[];
}

/**
 * How a skill became active: preloaded by the variant, loaded by the `skill`
 * tool, required by another, or by the host (activateSkillForHost, or
 * preloaded by a variant the session moved off, its body in the anchor).
 */
export type SkillActivationSource = "preload" | "tool" | "requires" | "host";

export interface ActiveSkill {
  name: string;
  type: SkillType;
  activatedBy: SkillActivationSource;
  /** The skill whose `requiresSkills` pulled this one in (activatedBy "requires"). */
  requiredBy?: string;
  /**
   * The sha256 of the body it was activated with (the manifest's): a reopen on
   * a build whose body differs tells the host and the model. Absent in a state
   * saved before it was kept.
   */
  sha256?: string;
}

export interface ArtifactReference {
  /** Stable reference, e.g. `file:gamma-agent/session/brief.xml` or `gamma:file:g_1:d_2`. */
  ref: string;
  path?: string;
  revision?: string;
  title?: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Where a pending injection handed to Pi waits until a model call uses it:
 * Pi's steering or follow-up queue, the next prompt, a state anchor, or the
 * agent's context. None of them survives a restart.
 */
export type PiQueue = "steer" | "follow_up" | "next_turn" | "anchor" | "context";

/**
 * A runtime injection no model call has used yet. The injection queue
 * (src/runtime/injections/queue.ts) owns the pending set; the state's
 * journal makes it durable.
 */
export interface PendingInjection {
  id: string;
  kind: string;
  occurredAt: string;
  delivery: InjectionDelivery;
  /** The trusted custom message the model receives. */
  message: GammaCustomMessage;
  /** Set while the message is handed to Pi (never stored: a restored entry is unsent). */
  queuedAs?: PiQueue;
  /** The accepted envelope; JSON only. */
  data?: JsonValue;
}

/** `turn`: until the run that answers the next (or current) user turn ends; `session`: for the whole session. */
export type RequirementScope = "turn" | "session";

/** One skill the host requires before task actions (src/runtime/invocation). */
export interface RequiredSkill {
  name: string;
  scope: RequirementScope;
}

/** How a tool namespace came into the session's tool list. */
export type NamespaceLoadSource = "skill" | "tool" | "host";

/** One tool namespace whose tools are in the session's tool list (src/runtime/namespaces.ts). */
export interface LoadedNamespace {
  name: string;
  loadedBy: NamespaceLoadSource;
  /** The workflow skill whose activation loaded it (loadedBy "skill"). */
  skill?: string;
}

/** A connector a host registered on the session: a namespace known only at run time (src/runtime/connectors.ts). */
export interface ConnectorDefinition {
  /** A namespace name: lowercase words joined by underscores, at most 32 characters; its tools are named `<name>_…`. */
  name: string;
  /** When to load it, as a trigger ("Use for …"): the model reads it in the announcement and the anchor. */
  description: string;
  /** Its tools, each in the form of schemas/tool.schema.json. */
  tools: ToolSchemaArtifact[];
}

export interface ExecutionState {
  stateVersion: typeof STATE_VERSION;
  /** Increments on every saved change. */
  revision: number;
  variant: VariantName;
  /** Minted once per session; the prompt cache key derives from it, so it survives a restore. */
  sessionKey?: string;
  /** The static prefix cache key of the build (dist/) that last opened the session; absent in a state saved before it was kept. */
  cacheKey?: string;
  activeSkills: ActiveSkill[];
  tasks: TaskSnapshot;
  pendingInjections: PendingInjection[];
  currentArtifacts: ArtifactReference[];
  /** The processed-id window, `{seenIds}` (idempotency across restarts); JSON only. */
  injectionLog?: JsonValue;
  /** Loaded knowledge notes and pending change reports (src/runtime/knowledge). */
  knowledge?: KnowledgeSessionState;
  /** Skills the host requires for the current turn or the session (src/runtime/invocation); absent when none ever was. */
  requiredSkills?: RequiredSkill[];
  /** Tool namespaces loaded during the session, in load order (absent when none ever was). */
  loadedNamespaces?: LoadedNamespace[];
  /** Connectors the host registered, in registration order (absent when none ever was). */
  connectors?: ConnectorDefinition[];
}
