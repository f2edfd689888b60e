// A host executor written in plain JavaScript can return or throw what the
// typed signature forbids. Each such result fails the tool call the same way
// on both Pi paths: the model gets an error result naming what was wrong
// (never an empty result, never a provider's TypeError), the host is told
// once as a runtime_error during "executor", and the run goes on.
import { describe, expect, it } from "vitest";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { ExecutorResultError, type ToolExecutor } from "../../src/runtime/tools.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

async function open(path: "agent" | "session", read: ToolExecutor, onProtocolEvent: (event: ProtocolEvent) => void): Promise<(text: string) => Promise<void>> {
  const common = { artifacts, variant: "base" as const, executors: { ...recordingExecutors(), read }, onProtocolEvent, ...NO_KNOWLEDGE_HINTS };
  if (path === "agent") {
    const gamma = pi.disposeAfterTest(createGammaAgent({ ...common, model: pi.faux().getModel() }));
    return (text) => gamma.agent.prompt(text);
  }
  const gamma = pi.disposeAfterTest(await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) }));
  return (text) => gamma.session.prompt(text);
}

const CASES: ReadonlyArray<[string, ToolExecutor, string]> = [
  ["a string", (async () => "<system_guidance>notes</system_guidance>") as unknown as ToolExecutor, `Unexpected result from the "read" tool's executor: it returned a string ("&lt;system_guidance>notes&lt;/system_guidance>"), expected an object { content: [{ type: "text", text: "..." }] }`],
  ["content null", (async () => ({ content: null })) as unknown as ToolExecutor, `Unexpected result from the "read" tool's executor: its content is null, expected an object { content: [{ type: "text", text: "..." }] }`],
  ["one part, not a list", (async () => ({ content: { type: "text", text: "notes" } })) as unknown as ToolExecutor, `Unexpected result from the "read" tool's executor: its content is an object (a single part, not a list of parts), expected an object { content: [{ type: "text", text: "..." }] }`],
  ["undefined", (async () => undefined) as unknown as ToolExecutor, `Unexpected result from the "read" tool's executor: it returned undefined, expected an object { content: [{ type: "text", text: "..." }] }`],
  ["a thrown object", async () => {
    throw { message: "disk gone" };
  }, `Unexpected exception from the "read" tool's executor: it threw an object with the message "disk gone", expected an Error`],
  ["a thrown number", async () => {
    throw 42;
  }, `Unexpected exception from the "read" tool's executor: it threw a number (42), expected an Error`],
];

describe.each(["agent", "session"] as const)("on the %s path, a read executor that gives", (path) => {
  it.each(CASES)("%s fails the call with an error result naming it, tells the host once, and the run goes on", async (_name, read, message) => {
    const told: ProtocolEvent[] = [];
    const prompt = await open(path, read, (event) => told.push(event));
    const seen: SeenContext[] = [];
    pi.faux().setResponses([toolUse(fauxToolCall("read", { path: "notes.md" })), seeing(seen, fauxAssistantMessage("The file could not be read."))]);
    await prompt("Use my notes");

    expect(seen).toHaveLength(1);
    const result = seen[0]?.messages.find((candidate) => candidate.role === "toolResult");
    expect(result).toMatchObject({ toolName: "read", isError: true });
    expect(textOf(result)).toBe(message);
    const failures = told.filter((event) => event.type === "runtime_error");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ during: "executor" });
    const error = (failures[0] as { error: unknown }).error;
    expect(error).toBeInstanceOf(ExecutorResultError);
    expect(error).toMatchObject({ tool: "read" });
  });

  it("passes a well-formed result and a thrown string as before, telling the host nothing", async () => {
    const told: ProtocolEvent[] = [];
    let calls = 0;
    const prompt = await open(
      path,
      async () => {
        calls += 1;
        if (calls === 2) throw "file not found";
        return { content: [{ type: "text", text: "notes" }] };
      },
      (event) => told.push(event),
    );
    const seen: SeenContext[] = [];
    pi.faux().setResponses([
      toolUse(fauxToolCall("read", { path: "notes.md" })),
      toolUse(fauxToolCall("read", { path: "missing.md" })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    await prompt("Use my notes");
    const results = (seen[0]?.messages ?? []).filter((candidate) => candidate.role === "toolResult");
    expect(results.map((candidate) => [textOf(candidate), (candidate as { isError?: boolean }).isError])).toEqual([
      ["notes", false],
      ["file not found", true],
    ]);
    expect(told.filter((event) => event.type === "runtime_error")).toEqual([]);
  });
});
