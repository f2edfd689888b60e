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
export { acceptInjection, checkInjection, InjectionRejectedError, type AcceptInjectionOptions } from "./validate.js";
export { escapeXml } from "./escape.js";
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
export { coalescingKey, InjectionQueue, type AddOutcome, type InjectionQueueState } from "./queue.js";
export { defaultDelivery, effectiveDelivery, isDueAt, shouldWake, type ArtifactMatch, type DeliveryMoment, type PolicyContext } from "./policy.js";
export {
  createTrustedInjectionMessage,
  INJECTION_CUSTOM_TYPE_PREFIX,
  isTrustedInjectionMessage,
  prepareMessagesForModel,
  type PrepareOptions,
} from "./transport.js";
export {
  InjectionRouter,
  type Delivery,
  type DeliveryBatch,
  type DeliveryContext,
  type InjectionRouterOptions,
  type RouteResult,
} from "./router.js";
export { InjectionDesk, type InjectionHost, type RouteUpdateResult } from "./desk.js";
