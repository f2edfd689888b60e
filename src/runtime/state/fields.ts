/**
 * The durable fields of the execution state besides its bookkeeping (format
 * version, revision, variant) and the pending injections: the one list of
 * them. The owner copies, snapshots and restores a state through this list,
 * and a replay through it too; a new field is declared in ExecutionState, here,
 * and by the journal change that sets it (journal.ts), and rendered by the
 * anchor (anchor.ts) when the model must see it again after compaction.
 */
import type { ExecutionState } from "../execution-state.js";

export const CORE_FIELDS = ["sessionKey", "cacheKey", "activeSkills", "tasks", "currentArtifacts", "knowledge", "requiredSkills", "loadedNamespaces", "connectors"] as const;

export type CoreField = (typeof CORE_FIELDS)[number];

/** The parts of the state outside the pending set. */
export type StateCore = Pick<ExecutionState, CoreField>;

/** The core fields a state holds (absent optional ones stay absent). Journal changes replace values, never change them in place, so sharing them is safe. */
export function coreOf(state: Readonly<StateCore>): StateCore {
  const core: Partial<Record<CoreField, unknown>> = {};
  for (const field of CORE_FIELDS) if (state[field] !== undefined) core[field] = state[field];
  return core as StateCore;
}
