/**
 * What a model call carries, on both paths: reserved tags neutralised in every
 * untrusted channel, one anchor (the newest), custom messages as user
 * messages, and the variant's exact bytes as the prompt. Pi 1.x carries the
 * system prompt and the tool declarations in the transcript: a leading
 * `role: "system"` message, and later system messages that add instructions,
 * patch named sections or change tools. These functions are pure: they never
 * write state and never throw on a transcript, so a hook can make the whole
 * transcript before it records anything.
 */
import type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message, SystemMessage, Tool } from "@earendil-works/pi-ai";
import type { SessionProtocolController } from "../controller.js";
import { prepareMessagesForModel } from "../injections/transport.js";
import { ANCHOR_CUSTOM_TYPE, HOST_SKILL_CUSTOM_TYPE, dropStaleAnchors } from "../messages.js";
import { isSkillBodyResult } from "../skill-result.js";
import { createInitialSystemMessage, getCurrentTools, getInitialSystemMessage, getToolStateChanges, toToolDeclaration } from "./packages.pi-adapter.js";

const RUNTIME_CUSTOM_TYPES: ReadonlySet<string> = new Set([ANCHOR_CUSTOM_TYPE, HOST_SKILL_CUSTOM_TYPE]);

/**
 * Reserved tags in any untrusted channel (user text, host tool results,
 * summaries, custom messages the runtime did not write) cannot pose as the platform's.
 */
export function neutraliseUntrusted(messages: AgentMessage[]): AgentMessage[] {
  return prepareMessagesForModel(messages, { trustedCustomTypes: RUNTIME_CUSTOM_TYPES, isTrustedToolResult: isSkillBodyResult });
}

/**
 * The low-level converter: system messages (the prompt and tool changes),
 * user, assistant and tool results pass; a custom message becomes a user
 * message (Pi's default would drop it); only the newest state anchor is
 * kept; anything else is not for the model.
 */
export function convertGammaMessages(messages: AgentMessage[]): Message[] {
  return dropStaleAnchors(neutraliseUntrusted(messages)).flatMap((message): Message[] => {
    switch (message.role) {
      case "system":
      case "user":
      case "assistant":
      case "toolResult":
        return [message];
      case "custom":
        return [
          {
            role: "user",
            content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
            timestamp: message.timestamp,
          },
        ];
      default:
        return [];
    }
  });
}

/** The session path's transcript for a model call (pi-coding-agent converts the messages afterwards). */
export function sessionModelTranscript(messages: AgentMessage[], systemPrompt: string, headTools?: readonly Tool[]): AgentMessage[] {
  return pinVariantTranscript(dropStaleAnchors(neutraliseUntrusted(messages)), systemPrompt, headTools) as AgentMessage[];
}

/**
 * The transcript a model call sends, with the variant's exact bytes as its
 * prompt: the leading system message becomes `{ content: systemPrompt }`
 * declaring `headTools` in their order (the tools a new session on this build
 * starts with: `tools.json`'s start tools), or the tools it declared when none
 * are given. Pi's named sections, such as pi-coding-agent's working
 * directory, are what the variant replaces. Every later system message stays
 * where it is, added instructions included, minus section patches to the
 * prompt it replaced; its tool changes are those of the stored transcript
 * restated against the pinned head: a tool is declared as it is declared
 * last, so a change that only redeclared a tool the head already declares
 * that way (the difference Pi records when a session moves to another build)
 * changes nothing, and one left empty goes. The tools the transcript ends on
 * are the ones it ended on before, and a session stored by another build
 * sends the same leading message, tools in the same order, as a new session
 * on this build. Deterministic: the same transcript gives the same request,
 * which Anthropic's message threads and every prefix cache need.
 */
export function pinVariantTranscript<M extends { role: string }>(messages: readonly M[], systemPrompt: string, headTools?: readonly Tool[]): (M | SystemMessage)[] {
  const head = getInitialSystemMessage(messages);
  // Each tool as the transcript declares it last: what the model may call now.
  const latest = new Map(getCurrentTools(messages as never).map((tool) => [tool.name, tool]));
  const current = (tool: Tool): Tool => latest.get(tool.name) ?? tool;
  let stored = new Map((head?.toolsAdded ?? []).map((tool) => [tool.name, current(tool)]));
  // The new session's tools, then those the stored head declared beyond them that the session still has
  // (a namespace the host loaded as the session opened), as the stored head ordered them.
  const named = new Set((headTools ?? []).map((tool) => tool.name));
  const declared = headTools === undefined ? (head?.toolsAdded ?? []) : [...headTools, ...[...stored.values()].filter((tool) => !named.has(tool.name) && latest.has(tool.name))];
  const pinned: SystemMessage = {
    role: "system",
    content: systemPrompt,
    ...(declared.length > 0 ? { toolsAdded: [...declared] } : {}),
    timestamp: head?.timestamp ?? 0,
  };
  let sent = new Map(declared.map((tool) => [tool.name, tool]));
  const rest = (head === undefined ? messages : messages.slice(1)).flatMap((message): (M | SystemMessage)[] => {
    if (message.role !== "system") return [message];
    if (headTools === undefined) {
      // The head keeps the tools it declared: every later change stays as it is.
      const { sections: _replaced, ...kept } = message as unknown as SystemMessage;
      const hasContent = typeof kept.content === "string" ? kept.content !== "" : kept.content.length > 0;
      return hasContent || (kept.toolsAdded?.length ?? 0) > 0 || (kept.toolsRemoved?.length ?? 0) > 0 ? [kept] : [];
    }
    const { sections: _replaced, toolsAdded, toolsRemoved, ...update } = message as unknown as SystemMessage;
    const next = new Map(stored);
    for (const tool of toolsRemoved ?? []) next.delete(tool.name);
    for (const tool of toolsAdded ?? []) next.set(tool.name, current(tool));
    const change = getToolStateChanges([...stored.values()], [...next.values()]);
    stored = next;
    const after = new Map(sent);
    for (const tool of change.toolsRemoved) after.delete(tool.name);
    for (const tool of change.toolsAdded) after.set(tool.name, tool);
    const { toolsAdded: added, toolsRemoved: removed } = getToolStateChanges([...sent.values()], [...after.values()]);
    sent = after;
    const hasContent = typeof update.content === "string" ? update.content !== "" : update.content.length > 0;
    if (!hasContent && added.length === 0 && removed.length === 0) return [];
    return [{ ...update, ...(added.length > 0 ? { toolsAdded: added } : {}), ...(removed.length > 0 ? { toolsRemoved: removed } : {}) }];
  });
  return [pinned, ...rest];
}

/**
 * After a server-side compaction or a reload on the low-level path. With
 * `messages` (what a compaction kept) the agent's context becomes those
 * messages minus older anchors, plus one fresh anchor. Without them it is a
 * reload of the agent's current transcript: an anchor it holds stays where it
 * is and none is added, so the request's prefix stays the same, unless a
 * pending event is in no context and no Pi queue yet; then a fresh anchor
 * replaces the older ones (the rule a resumed AgentSession follows). A
 * transcript without its leading system message (a host's stored
 * conversation) gets the agent's, so the prompt and tools stay declared at
 * the head. The agent must be idle.
 */
export function restoreAgentContext(agent: Agent, controller: SessionProtocolController, messages?: AgentMessage[]): void {
  if (agent.state.isStreaming) throw new Error("Unexpected restore during a run, expected an idle agent");
  const restored = messages === undefined ? controller.reloadContext(agent.state.messages) : controller.restoreContext(messages);
  const head =
    getInitialSystemMessage(agent.state.messages) ?? createInitialSystemMessage(controller.systemPrompt, agent.state.tools.map((tool) => toToolDeclaration(tool)));
  agent.state.messages = restored[0]?.role === "system" || head === undefined ? restored : [head, ...restored];
}
