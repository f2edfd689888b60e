/**
 * The runtime injection envelope, as the design defines it. The kinds and
 * delivery paths are the public contract in src/protocol/manifest.ts, so the
 * compiler (which renders their meanings into the static prefix) and the
 * runtime (which routes them) name them from one place.
 */
import type { InjectionDelivery, InjectionKind } from "../../protocol/dist-manifest.js";

export type { InjectionDelivery, InjectionKind, InjectionKindArtifact } from "../../protocol/dist-manifest.js";

export type InjectionSource = "client" | "server" | "tool" | "workspace" | "background_job";

export type InjectionActor = "user" | "collaborator" | "agent" | "service";

export interface InjectionSubject {
  ref?: string;
  path?: string;
  revision?: string;
}

export interface InjectionOrigin {
  actor?: InjectionActor;
  interactionId?: string;
  toolCallId?: string;
}

export interface RuntimeInjection {
  id: string;
  kind: InjectionKind;
  occurredAt: string;
  source: InjectionSource;
  delivery: InjectionDelivery;
  requiresDecision: boolean;
  summary: string;
  dedupeKey?: string;
  subject?: InjectionSubject;
  origin?: InjectionOrigin;
  details?: Record<string, unknown>;
}

/**
 * Every type that may travel as a trusted injection: the kinds, and
 * `knowledge_hints`, which the session's knowledge sends with a user turn or
 * mid-run (src/runtime/knowledge).
 */
export type TrustedInjectionType = InjectionKind | "knowledge_hints";

/**
 * The private metadata on a trusted custom message. Pi never sends `details`
 * to the provider, so routing data placed here cannot reach the model.
 */
export interface TrustedInjectionDetails {
  trusted: true;
  gammaInjection: true;
  injectionType: TrustedInjectionType;
  injectionId: string;
  occurredAt: string;
  dedupeKey?: string;
}

/** A Pi custom message (role "custom") that carries one trusted injection. */
export interface TrustedInjectionMessage {
  role: "custom";
  customType: `gamma.${TrustedInjectionType}`;
  content: string;
  display: false;
  details: TrustedInjectionDetails;
  timestamp: number;
}

export { INJECTION_KINDS } from "../../protocol/dist-manifest.js";

export const INJECTION_SOURCES: readonly InjectionSource[] = ["client", "server", "tool", "workspace", "background_job"];
export const INJECTION_DELIVERIES: readonly InjectionDelivery[] = ["next_turn", "steer", "follow_up"];
export const INJECTION_ACTORS: readonly InjectionActor[] = ["user", "collaborator", "agent", "service"];
