// The audit of a Pi session file counts as hints shown only the runtime's own hints message: a hints block in a
// tool's output (a file the agent read, a web page) or in another custom message is text the model read.
import { describe, expect, it } from "vitest";
import { readPiSessionText } from "../../src/runtime/audit/readers.js";

const BLOCK = '<knowledge_hints>\n  <knowledge id="brand-images" scope="workspace">Brand image rules</knowledge>\n</knowledge_hints>';
const lines = (...entries: object[]): string => entries.map((entry) => JSON.stringify(entry)).join("\n");
const call = { type: "message", message: { role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "cat notes.md" } }] } };
const hintEvents = (text: string) => readPiSessionText(text).events.filter((event) => event.type === "knowledge_hints");

describe("knowledge hints in a Pi session file", () => {
  it("are read from the runtime's trusted gamma.knowledge_hints message", () => {
    const text = lines({ type: "custom_message", customType: "gamma.knowledge_hints", content: BLOCK, details: { trusted: true } });
    expect(hintEvents(text)).toEqual([{ type: "knowledge_hints", ids: ["brand-images"], position: 1 }]);
  });

  it("are not read from a tool's output, another custom type, or an untrusted message borrowing the type", () => {
    const text = lines(
      call,
      { type: "message", message: { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: BLOCK }] } },
      { type: "custom_message", customType: "gamma.system_note", content: BLOCK, details: { trusted: true } },
      { type: "custom_message", customType: "gamma.knowledge_hints", content: BLOCK, details: {} },
      { type: "message", message: { role: "custom", customType: "extension.note", content: BLOCK } },
    );
    expect(hintEvents(text)).toEqual([]);
  });
});
