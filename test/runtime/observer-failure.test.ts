// The host's onProtocolEvent is an observer: an exception from it (its
// websocket closed, say) must not leave the session's state and what the model
// received apart. A skill whose activation event the observer fails on is
// active, and its body and its namespace's tools reach the model, on both Pi
// paths; the exception is told to the host once as a runtime_error.
import { describe, expect, it } from "vitest";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { SessionProtocolController } from "../../src/runtime/controller.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();
const DRIVE_TOOLS = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const HOST_TOOLS = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const BODY_START = "Find the file the user means in their connected drive";

class WebSocketClosedError extends Error {
  override readonly name = "WebSocketClosedError";
}

async function open(path: "agent" | "session", onProtocolEvent: (event: ProtocolEvent) => void): Promise<{ controller: SessionProtocolController; prompt(text: string): Promise<void> }> {
  const common = { artifacts, variant: "base" as const, executors: recordingExecutors([], [...HOST_TOOLS, ...DRIVE_TOOLS]), onProtocolEvent, ...NO_KNOWLEDGE_HINTS };
  if (path === "agent") {
    const gamma = pi.disposeAfterTest(createGammaAgent({ ...common, model: pi.faux().getModel() }));
    return { controller: gamma.controller, prompt: (text) => gamma.agent.prompt(text) };
  }
  const gamma = pi.disposeAfterTest(await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) }));
  return { controller: gamma.controller, prompt: (text) => gamma.session.prompt(text) };
}

/** The user asks for a drive file: the model loads drive-files, searches, answers; what each call saw is returned. */
async function askForTheBoardDeck(opened: { prompt(text: string): Promise<void> }): Promise<SeenContext[]> {
  const seen: SeenContext[] = [];
  pi.faux().setResponses([
    seeing(seen, toolUse(fauxToolCall("skill", { name: "drive-files" }))),
    seeing(seen, toolUse(fauxToolCall("drive_search", { query: "board deck" }))),
    seeing(seen, fauxAssistantMessage("Found it.")),
  ]);
  await opened.prompt("Use the board deck from my Google Drive");
  return seen;
}

describe.each([
  ["agent", "skills_activated"],
  ["agent", "checklist_progress"],
  ["agent", "namespaces_loaded"],
  ["session", "skills_activated"],
  ["session", "checklist_progress"],
] as const)("on the %s path, an onProtocolEvent that throws on %s", (path, failingType) => {
  it("leaves the skill active with its body and its namespace's tools at the model, and tells the host once", async () => {
    const told: ProtocolEvent[] = [];
    let thrown = false;
    const opened = await open(path, (event) => {
      told.push(event);
      if (event.type === failingType && !thrown) {
        thrown = true;
        throw new WebSocketClosedError("websocket closed");
      }
    });
    const seen = await askForTheBoardDeck(opened);

    expect(thrown).toBe(true);
    expect(opened.controller.state.activeSkills.map((skill) => skill.name)).toContain("drive-files");
    expect(opened.controller.loadedNamespaces.map((namespace) => namespace.name)).toEqual(["drive"]);
    const skillResult = seen[1]?.messages.find((message) => message.role === "toolResult" && message.toolName === "skill");
    expect(skillResult).toMatchObject({ isError: false });
    expect(textOf(skillResult)).toContain(BODY_START);
    const declared = (seen[1]?.messages ?? []).flatMap((message) => (message.role === "system" ? (message.toolsAdded ?? []).map((tool) => tool.name) : []));
    expect(declared).toEqual(expect.arrayContaining(DRIVE_TOOLS));
    const driveResult = seen[2]?.messages.find((message) => message.role === "toolResult" && message.toolName === "drive_search");
    expect(driveResult).toMatchObject({ isError: false });

    // Every event of the activation was still told, and the exception once, naming the event it came from.
    expect(told.map((event) => event.type)).toEqual(expect.arrayContaining(["skills_activated", "checklist_progress", "namespaces_loaded"]));
    const failures = told.filter((event) => event.type === "runtime_error");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ during: "observer" });
    const error = (failures[0] as { error: Error }).error;
    expect(error.message).toContain(`on a ${failingType} event (websocket closed)`);
    expect(error.cause).toBeInstanceOf(WebSocketClosedError);
  });
});

// An asynchronous observer (a websocket send or a database insert awaited) is
// the same observer: its rejected promise is the exception arriving later. It
// is told once as a runtime_error during "observer" and the run goes on; it
// never becomes an unhandled rejection that ends the host's process.
describe.each(["agent", "session"] as const)("on the %s path, an async onProtocolEvent that rejects", (path) => {
  it("is told once as a runtime_error during observer, the run goes on, and nothing is left unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on("unhandledRejection", onUnhandled);
    try {
      const told: ProtocolEvent[] = [];
      let rejected = 0;
      const opened = await open(path, async (event) => {
        told.push(event);
        await null;
        if (event.type === "skills_activated") {
          rejected += 1;
          throw new WebSocketClosedError("observer database down");
        }
        if (event.type === "runtime_error") throw new WebSocketClosedError("still down");
      });
      const seen = await askForTheBoardDeck(opened);
      await new Promise((resolve) => setImmediate(resolve));

      expect(rejected).toBe(1);
      expect(seen).toHaveLength(3);
      expect(opened.controller.state.activeSkills.map((skill) => skill.name)).toContain("drive-files");
      const failures = told.filter((event) => event.type === "runtime_error");
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ during: "observer" });
      const error = (failures[0] as { error: Error }).error;
      expect(error.message).toContain("on a skills_activated event (observer database down)");
      expect(error.cause).toBeInstanceOf(WebSocketClosedError);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
