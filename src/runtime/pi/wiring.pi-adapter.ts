/**
 * What both paths attach to a Pi Agent (an AgentSession's included): the run
 * tracking, delivery bookkeeping and yield contract (`bindController`), the
 * guard that keeps a model call from going out before the state it carries is
 * durable (`guardModelCalls`), the compiled cache plan on every request
 * (`applyCachePlan`), and the runtime's tools as Pi's.
 */
import type { Agent, AgentMessage, AgentTool, AgentToolResult, FinishTurn } from "@earendil-works/pi-agent-core";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { systemBlocks } from "../cache-plan.js";
import type { SessionProtocolController } from "../controller.js";
import type { InjectionTransport } from "../injections/dispatcher.js";
import { isGammaCustomMessage, KNOWLEDGE_HINTS_CUSTOM_TYPE } from "../messages.js";
import { acceptsPromptCacheKey, checkPromptCacheOptions, promptCacheKeys, shapeProviderPayload, type PromptCacheOptions } from "../prompt-cache.js";
import type { RuntimeTool, ToolOutcome } from "../tools.js";
import type { ToolCallSummary } from "../yield.js";
import { toolCallsRan } from "../audit/transcript.js";

/**
 * Run tracking, delivery bookkeeping and the yield contract. Pi ends a run on
 * `terminate` only when every result of the batch sets it, and queued steering
 * still triggers another model call; so a yielding batch terminates as a whole
 * and the agent's `finishTurn` answers `{ action: "end" }`, which ends the run
 * before any queue is polled (it runs before `turn_end`). On a session it
 * wraps the session's own `finishTurn`.
 *
 * The run's end waits until every change is durable; once the store refused a
 * write, the listener touches no state and the run's end throws
 * StateWriteFailedError, which is what prompt() rejects with.
 */
export function bindController(agent: Agent, controller: SessionProtocolController, transport: InjectionTransport, turns: TurnEnd): () => void {
  const previousAfter = agent.afterToolCall;
  agent.afterToolCall = async (context, signal) => {
    const result = previousAfter === undefined ? undefined : await previousAfter(context, signal);
    if (!controller.terminateForBatch(toolCallsOf(context.assistantMessage))) return result;
    return { ...result, terminate: true };
  };
  const previousFinish = agent.finishTurn;
  const finishTurn: FinishTurn = async (turn, signal) => {
    if (controller.shouldStopAfterTurn()) return { action: "end" };
    // Made here, where the run can still end before its next model call: a call without the hints it needs is not made.
    if (!controller.steerHintsAfterBatch()) return { action: "end" };
    // A reply in plain text would end the run without a yield: under a blocking audit policy, the audit's problems go back to the model.
    if (turn.message.stopReason === "stop" && toolCallsOf(turn.message).length === 0) {
      const reminder = controller.unyieldedEndReminder();
      if (reminder !== undefined) {
        await transport.followUp(reminder);
        return { action: "continue" };
      }
    }
    return (await previousFinish?.(turn, signal)) ?? undefined;
  };
  agent.finishTurn = finishTurn;
  controller.attachPi({ transport, toolResultsInContext: toolCallIdsProbe(agent) });
  return agent.subscribe(async (event, signal) => {
    const failure = controller.failure;
    if (failure !== undefined) {
      if (event.type === "agent_end") throw failure;
      return;
    }
    // Listeners are awaited before Pi polls its steering queue: due injections enter after the whole batch.
    if (event.type === "turn_end") controller.atBatchEnd();
    if (event.type === "agent_start") controller.beginRun();
    else if (event.type === "agent_end") {
      const last = event.messages.at(-1);
      controller.endRun({ aborted: signal.aborted || (last?.role === "assistant" && last.stopReason === "aborted"), endsTurn: turns === "with-each-run" });
      // An aborted run ends without waiting for a write that does not answer (the write's failure, if it comes, is still told).
      await controller.waitForStore(signal).catch((error: unknown) => {
        if (!signal.aborted || controller.failure !== undefined || controller.disposed) throw error;
      });
      // The runtime ended the run before a model call that would have said less: its prompt() rejects with why.
      const stopped = controller.runStoppedBy;
      if (stopped !== undefined) throw stopped;
    } else if (event.type === "message_end") {
      const message = event.message;
      // Only the runtime's own hints message shows hints: a hints block in a tool's output is text the model read.
      if (isGammaCustomMessage(message) && message.customType === KNOWLEDGE_HINTS_CUSTOM_TYPE) controller.noteKnowledgeHints(contentText(message.content));
      if (message.role === "assistant") controller.noteToolBatch(toolCallsRan(message.stopReason) ? toolCallsOf(message) : []);
      else if (isGammaCustomMessage(message) && message.details.injectionId !== undefined) controller.noteInContext(message.details.injectionId);
    }
  });
}

/**
 * Where a turn ends: with each run (the Agent path: a run is what the host's
 * prompt() asked for, and nothing retries it), or when the session settles
 * (an AgentSession retries a failed call, recovers from an overflow and runs
 * queued continuations within one prompt(): `endTurn` is called then).
 */
export type TurnEnd = "with-each-run" | "when-settled";

/**
 * No model call goes out before every change it carries (and every change
 * made before it) is durable: the agent's converter, the last step before
 * the stream function, awaits the state owner. Once the store refused a
 * write it throws, so the run ends with StateWriteFailedError and nothing
 * is sent. On the session path it runs after the extension's context hook.
 * A disposed session sends nothing (SessionDisposedError), nor does an
 * aborted run; dispose and abort end the wait for a write that never answers.
 * A refused call puts back what the context hook (which runs before it,
 * and starts the call's account) took out of the pending set.
 */
export function guardModelCalls(agent: Agent, controller: SessionProtocolController): void {
  const convert = agent.convertToLlm;
  agent.convertToLlm = async (messages) => {
    controller.refuseModelCallWhenDisposed();
    try {
      const converted = await convert(messages);
      await controller.waitForStore(agent.signal);
      controller.refuseModelCallWhenDisposed();
      agent.signal?.throwIfAborted();
      controller.modelCallGoes();
      return converted;
    } catch (error) {
      // What the extension's context hook took out of the pending set for this call is pending again.
      controller.modelCallRefused();
      throw error;
    }
  };
}

/**
 * Every model call, on both paths, carries the compiled cache plan. The plan
 * is applied through the agent's `onPayload` (pi-ai's hook on the final
 * provider payload), after any hook already there (an extension's
 * before_provider_request), so the cache layout is what reaches the wire. Pi
 * passes the same options to its cache-warming requests, which are shaped
 * alike.
 */
export function applyCachePlan(agent: Agent, controller: SessionProtocolController, cache: PromptCacheOptions): void {
  checkPromptCacheOptions(cache);
  const systemPrompt = controller.systemPrompt;
  const blocks = systemBlocks(controller.artifacts.cachePlan, controller.variant, systemPrompt);
  const stableTools = controller.artifacts.tools.map((tool) => tool.name);
  const promptCacheKey = (cache.promptCacheKey ?? promptCacheKeys.perSession)({
    variant: controller.variant,
    sessionKey: controller.sessionKey,
    prefixCacheKey: controller.artifacts.manifest.staticPrefix.cacheKey,
  });
  const previous = agent.onPayload;
  agent.onPayload = async (payload, payloadModel) => {
    const earlier = await previous?.(payload, payloadModel);
    const compat = payloadModel.compat as { supportsExplicitPromptCacheMode?: boolean; promptCacheKeyMode?: string } | undefined;
    const explicitPromptCacheMode = compat?.supportsExplicitPromptCacheMode === true;
    const keyAccepted = acceptsPromptCacheKey(compat?.promptCacheKeyMode);
    return shapeProviderPayload(earlier ?? payload, { api: payloadModel.api, modelId: payloadModel.id, explicitPromptCacheMode, systemPrompt, blocks, stableTools, promptCacheKey: keyAccepted ? promptCacheKey : undefined, options: cache });
  };
}

export function toAgentTool(tool: RuntimeTool): AgentTool {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    execute: async (toolCallId, params, signal) => toAgentResult(await tool.execute(toolCallId, params as Record<string, unknown>, signal)),
  };
}

export function piToolDefinition(tool: RuntimeTool, active: boolean): Parameters<ExtensionAPI["registerTool"]>[0] {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(active ? {} : { defaultActive: false }),
    execute: async (toolCallId, params, signal) => toAgentResult(await tool.execute(toolCallId, params as Record<string, unknown>, signal)),
  };
}

function toAgentResult(outcome: ToolOutcome): AgentToolResult<unknown> {
  const result: AgentToolResult<unknown> = { content: outcome.content, details: outcome.details ?? {} };
  if (outcome.terminate === true) result.terminate = true;
  return result;
}

/**
 * The tool call ids whose results are in the agent's context. Pi appends to
 * one messages array, so only new messages are read; a replaced array (a
 * restored or compacted context) is read again from the start.
 */
function toolCallIdsProbe(agent: Agent): () => ReadonlySet<string> {
  let seenArray: readonly AgentMessage[] | undefined;
  let read = 0;
  let ids = new Set<string>();
  return () => {
    const messages = agent.state.messages;
    if (messages !== seenArray || messages.length < read) {
      seenArray = messages;
      read = 0;
      ids = new Set();
    }
    for (; read < messages.length; read++) {
      const message = messages[read];
      if (message?.role === "toolResult") ids.add(message.toolCallId);
    }
    return ids;
  };
}

function contentText(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("\n");
}

function toolCallsOf(message: AgentMessage): ToolCallSummary[] {
  if (message.role !== "assistant") return [];
  return message.content.flatMap((part) => (part.type === "toolCall" ? [{ id: part.id, name: part.name, arguments: part.arguments }] : []));
}
