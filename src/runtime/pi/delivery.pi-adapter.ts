/**
 * Delivery into Pi: how a trusted message reaches an Agent's or an
 * AgentSession's steering and follow-up queues, the next turn, or a turn it
 * starts on an idle session. The injections module decides what goes when
 * (src/runtime/injections/dispatcher.ts); this only hands it to Pi.
 */
import type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { SessionProtocolController } from "../controller.js";
import type { InjectionTransport } from "../injections/dispatcher.js";
import { isGammaCustomMessage, type GammaCustomMessage } from "../messages.js";
import { WakeTurnFailedError } from "../yield.js";

/** Queue a trusted custom message to enter before the agent's next model call. */
export function steerAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.steer(message);
}

/** Queue a trusted custom message for when the agent's run would otherwise stop. */
export function followUpAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.followUp(message);
}

/**
 * Takes the runtime injections `take` picks out of the agent's steering and
 * follow-up queues and returns their ids, steering first; every other
 * message (a host's own) stays queued in its order. Pi shows one queue at a
 * time, steering first, and only as its drain mode allows: the modes are set
 * to "all" while the steering is set aside and the follow-ups are read, then
 * restored.
 */
export function withdrawAgentInjections(agent: Agent, take: (injectionId: string) => boolean): string[] {
  if (!agent.hasQueuedMessages()) return [];
  const modes = { steering: agent.steeringMode, followUp: agent.followUpMode };
  agent.steeringMode = "all";
  agent.followUpMode = "all";
  try {
    const shown = agent.peekQueuedMessages();
    agent.clearSteeringQueue();
    const followUps = agent.peekQueuedMessages();
    // With no steering queued, the first look showed these same follow-ups.
    const steering = sameMessages(shown, followUps) ? [] : shown;
    const picked = (message: AgentMessage): boolean => {
      const id = injectionIdOf(message);
      return id !== undefined && take(id);
    };
    const takenSteering = steering.filter(picked);
    const takenFollowUps = followUps.filter(picked);
    if (takenFollowUps.length > 0) {
      agent.clearFollowUpQueue();
      for (const message of followUps) if (!takenFollowUps.includes(message)) agent.followUp(message);
    }
    for (const message of steering) if (!takenSteering.includes(message)) agent.steer(message);
    return [...takenSteering, ...takenFollowUps].flatMap((message) => injectionIdOf(message) ?? []);
  } finally {
    agent.steeringMode = modes.steering;
    agent.followUpMode = modes.followUp;
  }
}

function injectionIdOf(message: AgentMessage): string | undefined {
  return isGammaCustomMessage(message) ? message.details.injectionId : undefined;
}

function sameMessages(a: readonly AgentMessage[], b: readonly AgentMessage[]): boolean {
  return a.length === b.length && a.every((message, index) => message === b[index]);
}

export type SessionDelivery = "steer" | "followUp" | "nextTurn";

/**
 * AgentSession.sendCustomMessage. A pending injection sent as `nextTurn` is
 * marked queued so the session's own next-turn delivery does not send it
 * again. (The prompt needs no pinning here: every model call of the session
 * goes through the extension's `context_with_system` hook.)
 */
export async function sendSessionMessage(
  session: AgentSession,
  controller: SessionProtocolController,
  message: GammaCustomMessage,
  options: { deliverAs?: SessionDelivery; triggerTurn?: boolean } = {},
): Promise<void> {
  const injectionId = message.details.injectionId;
  if (options.deliverAs === "nextTurn" && injectionId !== undefined) controller.injections.markQueued([injectionId], "next_turn");
  await session.sendCustomMessage(customPayload(message), {
    ...(options.deliverAs === undefined ? {} : { deliverAs: options.deliverAs }),
    ...(options.triggerTurn === undefined ? {} : { triggerTurn: options.triggerTurn }),
  });
}

/** The fields Pi's sendCustomMessage/sendMessage take; Pi stamps its own timestamp. */
export function customPayload(message: GammaCustomMessage): Pick<GammaCustomMessage, "customType" | "content" | "display" | "details"> {
  return { customType: message.customType, content: message.content, display: message.display, details: message.details };
}

export function agentTransport(agent: Agent): InjectionTransport {
  return {
    isRunning: () => agent.state.isStreaming,
    steer: (message) => steerAgent(agent, message),
    followUp: (message) => followUpAgent(agent, message),
    startTurn: async (messages) => {
      await agent.prompt(messages);
      throwIfModelCallFailed(agent.state.messages);
    },
    hasQueuedMessages: () => agent.hasQueuedMessages(),
    withdrawQueued: (take) => withdrawAgentInjections(agent, take),
  };
}

export function sessionTransport(session: AgentSession, controller: SessionProtocolController): InjectionTransport {
  return {
    isRunning: () => session.isStreaming,
    // Returned, not dropped: the dispatcher reports a message that never reached the queue and keeps it pending.
    steer: (message) => sendSessionMessage(session, controller, message, { deliverAs: "steer" }),
    followUp: (message) => sendSessionMessage(session, controller, message, { deliverAs: "followUp" }),
    // One run through the session (its run lifecycle, hooks and session file), the messages in their order:
    // Pi puts a triggering message first and the queued next-turn ones after it.
    startTurn: async (messages) => {
      const [first, ...rest] = messages;
      if (first === undefined) return;
      for (const message of rest) await session.sendCustomMessage(customPayload(message), { deliverAs: "nextTurn" });
      await session.sendCustomMessage(customPayload(first), { triggerTurn: true });
      throwIfModelCallFailed(session.agent.state.messages);
    },
    hasQueuedMessages: () => session.agent.hasQueuedMessages(),
    withdrawQueued: (take) => withdrawAgentInjections(session.agent, take),
  };
}

/**
 * Pi resolves a run whose model call failed (after its own retries) and
 * records the failure as the run's last message, an assistant message with
 * `stopReason: "error"`: a turn the runtime started must not read that as
 * the model's answer.
 */
function throwIfModelCallFailed(messages: readonly AgentMessage[]): void {
  const last = messages.at(-1);
  if (last?.role === "assistant" && last.stopReason === "error") throw new WakeTurnFailedError(last.errorMessage);
}
