import type { AgentTool } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createTrustedMessage } from "../../src/runtime/messages.js";
import { createGammaSession } from "../../src/runtime/pi-adapter.js";
import { SHARED_BATCH_NOTE, type ProtocolEvent } from "../../src/runtime/yield.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxAgentRecording, fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });

const setup = () => fauxAgentRecording(pi.faux(), artifacts);

describe("message_user and the yield contract", () => {
  it("blockOnUser false is a progress event and the run goes on to the next model call", async () => {
    const { agent, faux, events } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("message_user", { message: "Researching now.", blockOnUser: false })),
      seeing(seen, fauxAssistantMessage("done")),
    ]);
    await agent.prompt("Build a deck");
    expect(faux.state.callCount).toBe(2);
    expect(events).toEqual([{ type: "progress", message: "Researching now.", toolCallId: expect.any(String) }]);
    expect(seen[0]?.messages.at(-1)).toMatchObject({ role: "toolResult", toolName: "message_user", isError: false });
  });

  it("blockOnUser true alone ends the run after the tool and emits one structured yield event", async () => {
    const { agent, faux, events } = setup();
    faux.setResponses([
      toolUse(fauxToolCall("message_user", { message: "The deck is ready.", blockOnUser: true })),
      fauxAssistantMessage("must never be requested"),
    ]);
    await agent.prompt("Build a deck");
    expect(faux.state.callCount).toBe(1);
    expect(faux.getPendingResponseCount()).toBe(1);
    expect(events).toEqual([{ type: "yield", message: "The deck is ready.", toolCallId: expect.any(String), sharedBatch: false }]);
    // Pi 1.x's transcript leads with the system message that carries the prompt and the tools.
    expect(agent.state.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "toolResult"]);
  });

  it("a yield that shares its batch still ends the run, and the model is told to call it alone", async () => {
    const { agent, faux, events, hostCalls } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(
        fauxToolCall("read", { path: "brief.xml" }),
        fauxToolCall("message_user", { message: "Which theme do you want?", blockOnUser: true }),
        fauxToolCall("bash", { command: "gml validate" }),
      ),
      fauxAssistantMessage("must never be requested"),
    ]);
    const terminates: unknown[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end") terminates.push((event.result as { terminate?: boolean }).terminate);
    });
    await agent.prompt("Build a deck");
    expect(faux.state.callCount).toBe(1);
    expect(terminates).toEqual([true, true, true]);
    expect(hostCalls.sort()).toEqual(["bash", "read"]);
    expect(events).toEqual([{ type: "yield", message: "Which theme do you want?", toolCallId: expect.any(String), sharedBatch: true }]);

    // The next user turn: the model sees the note in the message_user result.
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await agent.prompt("Dark theme");
    const result = seen[0]?.messages.find((message) => message.role === "toolResult" && message.toolName === "message_user");
    expect(textOf(result)).toContain(SHARED_BATCH_NOTE);
    expect(SHARED_BATCH_NOTE).toContain("Call message_user alone when blockOnUser is true.");
  });

  it("a yield beside a call Pi rejects before running it still ends the run", async () => {
    const { agent, faux } = setup();
    faux.setResponses([
      toolUse(fauxToolCall("message_user", { message: "Done.", blockOnUser: true }), fauxToolCall("no_such_tool", {})),
      fauxAssistantMessage("must never be requested"),
    ]);
    await agent.prompt("Build a deck");
    expect(faux.state.callCount).toBe(1);
  });

  it("steering queued during the yielding batch does not wake the model; it arrives with the next user turn", async () => {
    const { agent, faux } = setup();
    const note = createTrustedMessage({
      kind: "system_note",
      content: "<system_note>The export finished.</system_note>",
      details: { gammaInjection: true, injectionType: "system_note", injectionId: "evt_9", occurredAt: "2026-01-01T00:00:00Z" },
      timestamp: 1,
    });
    const slowRead = async () => {
      agent.steer(note);
      return { content: [{ type: "text" as const, text: "read ok" }], details: {} };
    };
    agent.state.tools = agent.state.tools.map((tool): AgentTool => (tool.name === "read" ? { ...tool, execute: slowRead } : tool));
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("read", { path: "a" }), fauxToolCall("message_user", { message: "Done.", blockOnUser: true })),
      fauxAssistantMessage("must never be requested"),
    ]);
    await agent.prompt("Build a deck");
    expect(faux.state.callCount).toBe(1);

    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await agent.prompt("thanks");
    const texts = seen[0]?.messages.map(textOf) ?? [];
    expect(texts.slice(-2)).toEqual(["thanks", "<system_note>The export finished.</system_note>"]);
  });

  it("the yield is never inferred from text: a final-sounding message without the tool emits nothing", async () => {
    const { agent, faux, events } = setup();
    faux.setResponses([fauxAssistantMessage("The deck is complete. Let me know what you think!")]);
    await agent.prompt("Build a deck");
    expect(events).toEqual([]);
  });

  it("an invalid message_user call is an error result and no yield", async () => {
    const { agent, faux, events } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([toolUse(fauxToolCall("message_user", { message: "   ", blockOnUser: true })), seeing(seen, fauxAssistantMessage("retry"))]);
    await agent.prompt("Build a deck");
    expect(events).toEqual([]);
    expect(seen[0]?.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
  });
});

describe("the yield contract on an AgentSession", () => {
  it("a shared-batch yield ends the session's run too, and the user's next prompt continues", async () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const gamma = await createGammaSession({
      artifacts,
      variant: "base",
      executors: recordingExecutors(),
      onProtocolEvent: (event) => events.push(event),
      ...(await fauxSessionSetup(faux)),
      ...NO_KNOWLEDGE_HINTS,
    });
    try {
      faux.setResponses([
        toolUse(fauxToolCall("message_user", { message: "Pick a theme?", blockOnUser: true }), fauxToolCall("read", { path: "brief.xml" })),
        fauxAssistantMessage("must never be requested"),
      ]);
      await gamma.session.prompt("Build a deck");
      expect(faux.state.callCount).toBe(1);
      expect(events).toEqual([{ type: "yield", message: "Pick a theme?", toolCallId: expect.any(String), sharedBatch: true }]);
      const seen: SeenContext[] = [];
      faux.setResponses([seeing(seen, fauxAssistantMessage("Dark it is."))]);
      await gamma.session.prompt("Dark");
      expect(textOf(seen[0]?.messages.at(-1))).toBe("Dark");
    } finally {
      gamma.dispose();
    }
  });
});
