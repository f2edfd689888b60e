export type {
  InjectionActor,
  InjectionDelivery,
  InjectionKind,
  InjectionKindArtifact,
  InjectionOrigin,
  InjectionSource,
  InjectionSubject,
  RuntimeInjection,
  TrustedInjectionDetails,
  TrustedInjectionMessage,
  TrustedInjectionType,
} from "./types.js";
export { INJECTION_KINDS } from "./types.js";
export { acceptInjection, checkInjection, InjectionRejectedError, type AcceptInjectionOptions } from "./envelope.js";
export { escapeXml } from "../../protocol/xml-escape.js";
export { renderInjection, RENDERED_ATTRIBUTES } from "./render.js";
export {
  containsReservedTag,
  createNeutraliser,
  NEUTRALISED_OPENER,
  neutraliseReservedTags,
  RESERVED_TAG_NAMES,
  type Neutraliser,
} from "./neutralise.js";
export { compareInjections } from "./order.js";
export {
  coalescingKey,
  InjectionQueue,
  type AddOutcome,
  type DrainOptions,
  type DrainResult,
  type InjectionQueueOptions,
  type InjectionQueueState,
  type QueueJournal,
  type QueueRecord,
} from "./queue.js";
export { defaultDelivery, effectiveDelivery, isDueAt, shouldWake, type ArtifactMatch, type DeliveryMoment, type PolicyContext } from "./policy.js";
export {
  createTrustedInjectionMessage,
  INJECTION_CUSTOM_TYPE_PREFIX,
  isTrustedInjectionMessage,
  prepareMessagesForModel,
  type PrepareOptions,
} from "./transport.js";
export { InjectionDispatcher, type Delivery, type InjectionHost, type InjectionTransport, type RouteUpdateResult } from "./dispatcher.js";
