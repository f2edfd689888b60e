/**
 * The Pi adapter (`@earendil-works/pi-*` 1.x): the one interface through
 * which the runtime talks to Pi, split by concern under ./pi/:
 * - agent.ts: the low-level `Agent` path (`createGammaAgent`, `openGammaAgent`);
 * - session.ts: the pi-coding-agent `AgentSession` path and its extension;
 * - transcript.ts: what a model call carries (the variant pinned, untrusted
 *   text neutralised, one anchor);
 * - delivery.ts: messages into Pi's steering, follow-up and next-turn queues;
 * - tool-loading.ts: when namespaces join the tool list, per model;
 * - transcript-feed.ts: what Pi wrote to a session's transcript, for a store beside the state's;
 * - wiring.ts: run tracking, the yield contract, the durability guard before
 *   each model call, the cache plan on every request, tools as Pi's.
 * Everything else in the runtime is Pi-free.
 */
export type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
export { createGammaAgent, defaultThinkingLevel, openGammaAgent, type GammaAgent, type GammaAgentOptions, type GammaStreamFn } from "./pi/agent.js";
export { createGammaSession, sessionManagerFromEntries, type GammaSession, type GammaSessionOptions } from "./pi/session.js";
export { convertGammaMessages, pinVariantTranscript, restoreAgentContext } from "./pi/transcript.js";
export { followUpAgent, sendSessionMessage, steerAgent, type SessionDelivery } from "./pi/delivery.js";
export { agentTranscriptFeed, sessionTranscriptFeed, type TranscriptFeed } from "./pi/transcript-feed.js";
export { toolAdditionsInPlace, type ToolLoadingPolicy } from "./pi/tool-loading.js";
export type { ConnectorRestorer, ControllerSource } from "./session-tools.js";
