/** A real Gamma agent (pi-agent-core Agent + controller) on the faux provider, for injection tests. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { loadArtifacts } from "../../../src/runtime/artifacts.js";
import type { SessionProtocolController } from "../../../src/runtime/controller.js";
import { createGammaAgent } from "../../../src/runtime/pi-adapter.js";
import type { StateStore } from "../../../src/runtime/state.js";
import type { HostExecutors, ToolExecutor } from "../../../src/runtime/tools.js";
import { prepareDist } from "../../runtime/helpers/dist.js";
import { registerFauxProvider, type Faux } from "../../runtime/helpers/pi.js";
import { NO_KNOWLEDGE_HINTS } from "../../runtime/helpers/session.js";

export const artifacts = loadArtifacts({ distDir: prepareDist() });

const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];

export interface GammaHarness {
  faux: Faux;
  agent: ReturnType<typeof createGammaAgent>["agent"];
  controller: SessionProtocolController;
  dispose(): void;
  /** Prompts with the user's text plus every pending next-turn injection, as the host server does. */
  promptUser(text: string): Promise<void>;
}

export function createHarness(options: { executors?: Partial<Record<string, ToolExecutor>>; store?: StateStore } = {}): GammaHarness {
  const faux = registerFauxProvider();
  const plain = (name: string): ToolExecutor => async (_id, params) => ({ content: [{ type: "text", text: `${name} ok ${JSON.stringify(params)}` }] });
  const executors: HostExecutors = Object.fromEntries(HOST_TOOLS.map((name) => [name, options.executors?.[name] ?? plain(name)]));
  const gamma = createGammaAgent({
    artifacts,
    variant: "base",
    model: faux.getModel(),
    executors,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...NO_KNOWLEDGE_HINTS,
  });
  return {
    faux,
    agent: gamma.agent,
    controller: gamma.controller,
    dispose: () => {
      gamma.dispose();
      faux.unregister();
    },
    promptUser: (text) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]),
  };
}

/** A promise with its resolver, to hold a tool open while an event arrives. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
