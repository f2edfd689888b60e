/**
 * The injection router: the boundary check, the queue and the delivery
 * policy behind one object, producing the trusted Pi messages for each
 * delivery moment. It holds no Pi object; the controller decides where the
 * messages go (agent.steer, agent.followUp, or the next prompt).
 */
import type { InjectionKindArtifact } from "../../protocol/manifest.js";
import { type DeliveryMoment, effectiveDelivery, isDueAt, type PolicyContext, shouldWake } from "./policy.js";
import { type AddOutcome, InjectionQueue, type InjectionQueueState } from "./queue.js";
import { createTrustedInjectionMessage } from "./transport.js";
import type { InjectionDelivery, RuntimeInjection, TrustedInjectionMessage } from "./types.js";
import { acceptInjection } from "./validate.js";

export interface InjectionRouterOptions {
  /** The kinds of dist/injections.json: the tags and meanings the prefix defines. */
  kinds: readonly InjectionKindArtifact[];
  /** Restored pending state (from the controller's persisted state). */
  state?: InjectionQueueState;
  /** Clock for message timestamps. */
  now?: () => number;
}

export interface RouteResult {
  injection: RuntimeInjection;
  outcome: AddOutcome;
}

export interface DeliveryContext extends PolicyContext {
  /** Tool call ids whose results are in the active context (for duplicate suppression). */
  toolCallIdsInContext?: ReadonlySet<string>;
}

export interface Delivery {
  injection: RuntimeInjection;
  /** The Pi path for this moment: "steer", "follow_up" or "next_turn" (with the prompt). */
  path: InjectionDelivery;
  message: TrustedInjectionMessage;
}

export interface DeliveryBatch {
  deliveries: Delivery[];
  /** Dropped because a tool result in context already reports the change. */
  suppressed: RuntimeInjection[];
}

export class InjectionRouter {
  private readonly kinds: readonly InjectionKindArtifact[];
  private readonly queue: InjectionQueue;
  private readonly now: () => number;

  constructor(options: InjectionRouterOptions) {
    this.kinds = options.kinds;
    this.queue = new InjectionQueue(options.state);
    this.now = options.now ?? Date.now;
  }

  /** Validates and queues one untrusted event; throws InjectionRejectedError when it is invalid. */
  route(raw: unknown): RouteResult {
    const injection = acceptInjection(raw, { kinds: this.kinds });
    return { injection, outcome: this.queue.add(injection) };
  }

  pending(): RuntimeInjection[] {
    return this.queue.pending();
  }

  /** Removes the events due at this moment and returns them as trusted messages, in order. */
  take(moment: DeliveryMoment, context: DeliveryContext = {}): DeliveryBatch {
    const drained = this.queue.drain({
      select: (injection) => isDueAt(moment, injection, context),
      ...(context.toolCallIdsInContext ? { toolCallIdsInContext: context.toolCallIdsInContext } : {}),
    });
    const timestamp = this.now();
    const deliveries = drained.deliver.map((injection) => ({
      injection,
      path: moment === "batch_end" ? effectiveDelivery(injection, context) : ("next_turn" as const),
      message: createTrustedInjectionMessage(injection, this.kinds, { timestamp }),
    }));
    return { deliveries, suppressed: drained.suppressed };
  }

  /** Whether an idle session should start a turn for what is pending. */
  shouldWake(context: PolicyContext = {}): boolean {
    return shouldWake(this.queue.pending(), context);
  }

  /** The trusted message for one event (what the model will read). */
  messageFor(injection: RuntimeInjection): TrustedInjectionMessage {
    return createTrustedInjectionMessage(injection, this.kinds, { timestamp: this.now() });
  }

  /** Puts back an event handed to Pi that never reached the model. */
  requeue(injection: RuntimeInjection): AddOutcome {
    return this.queue.requeue(injection);
  }

  /** Drops pending events another path delivered. */
  forget(ids: Iterable<string>): void {
    this.queue.forget(ids);
  }

  snapshot(): InjectionQueueState {
    return this.queue.snapshot();
  }
}
