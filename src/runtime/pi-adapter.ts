/**
 * The Pi adapter (`@earendil-works/pi-*` 1.x): the one interface through
 * which the runtime talks to Pi. It is split by concern into the modules
 * under ./pi/, each named `*.pi-adapter.ts` (only those import Pi):
 * - agent: the low-level `Agent` path (`createGammaAgent`, `openGammaAgent`);
 * - session: the pi-coding-agent `AgentSession` path and its extension;
 * - transcript: what a model call carries (the variant pinned, untrusted
 *   text neutralised, one anchor);
 * - delivery: messages into Pi's steering, follow-up and next-turn queues;
 * - transcript-feed: what Pi wrote to a session's transcript, for a store beside the state's;
 * - tool-loading: when namespaces join the tool list, per model;
 * - wiring: run tracking, the yield contract, the durability guard before
 *   each model call, the cache plan on every request, tools as Pi's;
 * - packages: Pi's packages, checked and loaded once.
 * Everything else in the runtime is Pi-free.
 */
export type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
export { createGammaAgent, defaultThinkingLevel, openGammaAgent, type GammaAgent, type GammaAgentOptions, type GammaStreamFn } from "./pi/agent.pi-adapter.js";
export { createGammaSession, sessionManagerFromEntries, type GammaSession, type GammaSessionOptions } from "./pi/session.pi-adapter.js";
export { convertGammaMessages, pinVariantTranscript, restoreAgentContext } from "./pi/transcript.pi-adapter.js";
export { followUpAgent, sendSessionMessage, steerAgent, type SessionDelivery } from "./pi/delivery.pi-adapter.js";
export { agentTranscriptFeed, sessionTranscriptFeed, type TranscriptFeed } from "./pi/transcript-feed.pi-adapter.js";
export { toolAdditionsInPlace, type ToolLoadingPolicy } from "./pi/tool-loading.pi-adapter.js";
export type { ConnectorRestorer, ControllerSource } from "./session-tools.js";
