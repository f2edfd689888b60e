/**
 * Pi's packages, loaded once for the adapter. Pi is an optional peer: a
 * static import of a missing package fails while Node links the module
 * graph, before any code runs, with a resolution error that names neither
 * the peers nor their version; so the packages are checked first and loaded
 * here, and importing the runtime without them throws one PiNotInstalledError
 * (code GAMMA_PROMPT_PI_NOT_INSTALLED). pi-coding-agent takes close to a
 * second to import, so it is loaded only when a session is created (session.ts).
 */
import { requirePiPackages } from "../../protocol/pi-requirement.js";

requirePiPackages((specifier) => import.meta.resolve(specifier));

export const { Agent: PiAgent } = await import("@earendil-works/pi-agent-core");
export const { createInitialSystemMessage, getCurrentSystemPrompt, getCurrentTools, getInitialSystemMessage, toToolDeclaration } = await import("@earendil-works/pi-ai");
