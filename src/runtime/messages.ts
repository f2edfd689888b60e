/**
 * Message shapes the runtime creates. They are structurally Pi's messages
 * (`role: "custom"` is pi-coding-agent's custom message) but declared here so
 * the controller stays free of Pi imports; the adapter hands them to Pi.
 */

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image";
  data: string;
  mimeType: string;
}

/** A user message as Pi's `UserMessage`. */
export interface RuntimeUserMessage {
  role: "user";
  content: string | (TextPart | ImagePart)[];
  timestamp: number;
}

/**
 * Trusted metadata on a runtime custom message. Pi never sends `details` to
 * the model; plain user text cannot create it.
 */
export interface GammaMessageDetails {
  trusted: true;
  /** Set on runtime injections (the injections module fills the rest). */
  gammaInjection?: true;
  injectionType?: string;
  injectionId?: string;
  occurredAt?: string;
  dedupeKey?: string;
  /** Set on the state anchor: the controller state revision it was rendered from. */
  anchor?: true;
  stateRevision?: number;
  /** On the state anchor: the pending injections it carries (they leave pending once a model call used it). */
  injectionIds?: string[];
  /** Set on a host activation (`activateSkillForHost`): the skills it made active. */
  hostActivation?: { skill: string; alreadyActive: boolean; activated: string[] };
  /** Set on the completion audit's reply to a turn ended in plain text under a blocking policy. */
  completionAudit?: { outcome: string; workflows: string[] };
}

/** A Pi custom message (`role: "custom"`), hidden from the UI, converted to a user message for the model. */
export interface GammaCustomMessage {
  role: "custom";
  /** `gamma.<kind>`, e.g. `gamma.anchor`, `gamma.client_view`. */
  customType: string;
  content: string;
  display: boolean;
  details: GammaMessageDetails;
  timestamp: number;
}

/** Every custom type the runtime writes starts with it: `gamma.<kind>`. */
export const GAMMA_CUSTOM_TYPE_PREFIX = "gamma.";
export const ANCHOR_CUSTOM_TYPE = `${GAMMA_CUSTOM_TYPE_PREFIX}anchor`;
/** A skill the host activated (`activateSkillForHost`): its compiled, verified body. */
export const HOST_SKILL_CUSTOM_TYPE = `${GAMMA_CUSTOM_TYPE_PREFIX}skill`;

/** The session knowledge's hints message (`<knowledge_hints>`): what the completion audit counts as hints shown. */
export const KNOWLEDGE_HINTS_KIND = "knowledge_hints";
export const KNOWLEDGE_HINTS_CUSTOM_TYPE = `${GAMMA_CUSTOM_TYPE_PREFIX}${KNOWLEDGE_HINTS_KIND}`;

/** The kind of a runtime custom type: `gamma.anchor` → `anchor`. */
export function kindOf(customType: string): string {
  return customType.slice(GAMMA_CUSTOM_TYPE_PREFIX.length);
}

export interface TrustedMessageInput {
  /** Without the `gamma.` prefix, e.g. `client_view`. */
  kind: string;
  content: string;
  details?: Omit<GammaMessageDetails, "trusted">;
  timestamp?: number;
}

/** The one way runtime code creates a trusted custom message. */
export function createTrustedMessage(input: TrustedMessageInput): GammaCustomMessage {
  return {
    role: "custom",
    customType: `${GAMMA_CUSTOM_TYPE_PREFIX}${input.kind}`,
    content: input.content,
    display: false,
    details: { trusted: true, ...input.details },
    timestamp: input.timestamp ?? Date.now(),
  };
}

export function isGammaCustomMessage(message: unknown): message is GammaCustomMessage {
  if (typeof message !== "object" || message === null) return false;
  const candidate = message as Partial<GammaCustomMessage>;
  return (
    candidate.role === "custom" &&
    typeof candidate.customType === "string" &&
    candidate.customType.startsWith(GAMMA_CUSTOM_TYPE_PREFIX) &&
    typeof candidate.details === "object" &&
    candidate.details !== null &&
    candidate.details.trusted === true
  );
}

/**
 * True for a state anchor or a host skill activation the runtime wrote: the
 * trusted `details` plus the mark each kind has carried since the runtime
 * first wrote it (`anchor: true` with its state revision; the
 * `hostActivation` record), so a stored transcript from an earlier release
 * stays trusted. A message that only borrows the custom type fails.
 */
export function isRuntimeCustomMessage(message: unknown): message is GammaCustomMessage {
  if (!isGammaCustomMessage(message) || typeof message.content !== "string") return false;
  const details = message.details;
  if (message.customType === ANCHOR_CUSTOM_TYPE) return details.anchor === true && typeof details.stateRevision === "number";
  if (message.customType === HOST_SKILL_CUSTOM_TYPE) {
    const activation = details.hostActivation as unknown;
    return typeof activation === "object" && activation !== null && typeof (activation as { skill?: unknown }).skill === "string";
  }
  return false;
}

/** The runtime's own anchor only: a message that borrows its type must not push the real one out as "stale". */
export function isAnchorMessage(message: unknown): message is GammaCustomMessage {
  return isRuntimeCustomMessage(message) && message.customType === ANCHOR_CUSTOM_TYPE;
}

/** Keeps only the newest anchor: an older one describes state the newer one supersedes. */
export function dropStaleAnchors<M>(messages: readonly M[]): M[] {
  let last = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (isAnchorMessage(messages[index])) {
      last = index;
      break;
    }
  }
  if (last === -1) return [...messages];
  return messages.filter((message, index) => index === last || !isAnchorMessage(message));
}
