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
import type { GammaCustomMessage } from "../messages.js";
import { WakeTurnFailedError } from "../yield.js";

/** Queue a trusted custom message to enter before the agent's next model call. */
export function steerAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.steer(message);
}

/** Queue a trusted custom message for when the agent's run would otherwise stop. */
export function followUpAgent(agent: Agent, message: GammaCustomMessage): void {
  agent.followUp(message);
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
