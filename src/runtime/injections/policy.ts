/**
 * The delivery policy: which pending events reach the model at which moment.
 *
 * Moments, mapped onto Pi:
 * - "batch_end": a run is active and a tool batch (or an assistant message)
 *   just finished. `steer` events go to agent.steer, so they enter before the
 *   next model call without interrupting the batch; `follow_up` events go to
 *   agent.followUp, so they enter only when the run would otherwise stop.
 * - "user_turn": the user sends a prompt. Everything pending goes with it.
 * - "triggered_turn": an idle session wakes for a decision (see shouldWake).
 *   `steer` and `follow_up` events go; `next_turn` events keep waiting for
 *   the user.
 */
import type { InjectionDelivery, InjectionKindArtifact, RuntimeInjection } from "./types.js";

export type DeliveryMoment = "batch_end" | "user_turn" | "triggered_turn";

export interface ArtifactMatch {
  ref?: string;
  path?: string;
}

export interface PolicyContext {
  /** The artifacts the active task works on; their updates are steered so the agent re-reads them first. */
  currentArtifacts?: readonly ArtifactMatch[];
  /** Whether an unfinished task exists (a decision can only be needed for one). */
  hasActiveTask?: boolean;
}

/**
 * The delivery dist/injections.json gives a kind (the design's delivery
 * table), for producers filling in an envelope's `delivery`.
 */
export function defaultDelivery(kind: RuntimeInjection["kind"], kinds: readonly InjectionKindArtifact[]): InjectionDelivery {
  const entry = kinds.find((candidate) => candidate.kind === kind);
  if (!entry) throw new Error(`Unexpected injection kind "${kind}", expected one that dist/injections.json defines`);
  return entry.delivery;
}

/** The Pi path an event takes, after the current-artifact rule. */
export function effectiveDelivery(injection: RuntimeInjection, context: PolicyContext = {}): InjectionDelivery {
  if (injection.kind === "artifact_update" && isCurrentArtifact(injection, context.currentArtifacts ?? [])) return "steer";
  return injection.delivery;
}

export function isDueAt(moment: DeliveryMoment, injection: RuntimeInjection, context: PolicyContext = {}): boolean {
  const delivery = effectiveDelivery(injection, context);
  switch (moment) {
    case "user_turn":
      return true;
    case "triggered_turn":
      return delivery !== "next_turn";
    case "batch_end":
      return delivery !== "next_turn";
  }
}

/**
 * An idle session starts a turn only for a steering event that needs a
 * decision about an active task; passive events wait for the user.
 */
export function shouldWake(pending: readonly RuntimeInjection[], context: PolicyContext = {}): boolean {
  if (context.hasActiveTask !== true) return false;
  return pending.some((injection) => injection.requiresDecision && effectiveDelivery(injection, context) === "steer");
}

function isCurrentArtifact(injection: RuntimeInjection, artifacts: readonly ArtifactMatch[]): boolean {
  const subject = injection.subject;
  if (!subject) return false;
  return artifacts.some(
    (artifact) =>
      (artifact.ref !== undefined && artifact.ref === subject.ref) ||
      (artifact.path !== undefined && artifact.path === subject.path),
  );
}
