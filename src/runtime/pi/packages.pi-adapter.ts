/**
 * Pi's packages, loaded once for the adapter. Pi is an optional peer: a
 * static import of a missing package fails while Node links the module
 * graph, before any code runs, with a resolution error that names neither
 * the peers nor their version; so the packages are imported here, and
 * importing the runtime without them throws one PiNotInstalledError (code
 * GAMMA_PROMPT_PI_NOT_INSTALLED). The imports themselves decide what is
 * missing, so a bundle that carries Pi loads wherever it is copied.
 * pi-coding-agent takes close to a second to import, so it is loaded only
 * when a session is created (session.ts).
 */
import { importPiPackages } from "../../protocol/pi-requirement.js";

const pi = await importPiPackages(
  {
    "@earendil-works/pi-agent-core": () => import("@earendil-works/pi-agent-core"),
    "@earendil-works/pi-ai": () => import("@earendil-works/pi-ai"),
  },
  (specifier) => import.meta.resolve(specifier),
);

export const { Agent: PiAgent } = pi["@earendil-works/pi-agent-core"];
export const { createInitialSystemMessage, getCurrentSystemPrompt, getCurrentTools, getInitialSystemMessage, getToolStateChanges, toToolDeclaration } = pi["@earendil-works/pi-ai"];
