// A session log that cannot be written (a full disk, a file made read-only)
// stops the session as a refused state write does: the host is told (prompt()
// rejects with StateWriteFailedError naming the session log, one
// state_write_failed event), no model call goes out after it, every tool call
// has its result, and nothing more is appended to that log. The file log
// never keeps a torn line in its middle: a torn last line left by a process
// that died mid-write is cut away before the next append.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSessionLogText } from "../../src/runtime/audit/readers.js";
import { FileSessionLog, type SessionLogEntry } from "../../src/runtime/audit/recorder.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { StateWriteFailedError } from "../../src/runtime/state/errors.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

const noSpace = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

/** A file log on a disk that fills up at the first record `fillsAt` matches: that append and every later one throw. */
class FillingLog extends FileSessionLog {
  full = false;
  attempts = 0;
  constructor(
    path: string,
    private readonly fillsAt: (entry: SessionLogEntry) => boolean,
  ) {
    super(path);
  }
  override append(entry: SessionLogEntry): void {
    if (this.full || this.fillsAt(entry)) {
      this.full = true;
      this.attempts += 1;
      throw noSpace();
    }
    super.append(entry);
  }
}

const TASKS = [{ id: "t1", title: "Outline the deck", status: "in_progress" }];
const isTodoCall = (entry: SessionLogEntry) => entry.type === "tool_call" && entry.name === "todo";

/** Every line of the log is a whole record the audit reads. */
function expectWholeLines(path: string): string[] {
  const text = readFileSync(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  expect(readSessionLogText(text).unreadable).toEqual([]);
  return text.trimEnd().split("\n");
}

describe.each(["agent", "session"] as const)("a session log that cannot be written, on the %s path", (path) => {
  it("stops the session: the prompt rejects naming the session log, the host is told once, no model call goes out after it, and the log is not written again", async () => {
    const file = join(tempDir("gamma-log-"), "session.jsonl");
    const log = new FillingLog(file, isTodoCall);
    const events: ProtocolEvent[] = [];
    const seen: SeenContext[] = [];
    const responses = [seeing(seen, toolUse(fauxToolCall("todo", { tasks: TASKS }))), seeing(seen, fauxAssistantMessage("Done."))];
    const common = { artifacts, variant: "base" as const, executors: recordingExecutors(), sessionLog: log, onProtocolEvent: (e: ProtocolEvent) => events.push(e), ...NO_KNOWLEDGE_HINTS };
    let prompt: () => Promise<void>;
    let controller;
    if (path === "agent") {
      const gamma = createGammaAgent({ ...common, model: pi.faux().getModel() });
      pi.disposeAfterTest(gamma);
      controller = gamma.controller;
      prompt = () => gamma.agent.prompt("Outline a deck");
    } else {
      const gamma = await createGammaSession({ ...common, ...(await fauxSessionSetup(pi.faux())) });
      pi.disposeAfterTest(gamma);
      controller = gamma.controller;
      prompt = () => gamma.session.prompt("Outline a deck");
    }
    pi.faux().setResponses(responses);
    const failure = await prompt().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StateWriteFailedError);
    expect((failure as StateWriteFailedError).failedWrite).toBe("the session log");
    expect(((failure as StateWriteFailedError).cause as NodeJS.ErrnoException).code).toBe("ENOSPC");
    expect((failure as Error).message).toBe("The write of the session log failed (ENOSPC: no space left on device, write); the session stopped: dispose it and reopen it from the store");
    expect(controller.failure).toBe(failure);
    expect(events.filter((event) => event.type === "state_write_failed")).toEqual([{ type: "state_write_failed", error: failure }]);
    // The call whose record failed got its answer (the failure), and the model was not called again.
    expect(seen).toHaveLength(1);
    expect(controller.state.tasks.items).toEqual([]);
    // One refused append: nothing more was tried on that log, and what it holds is whole.
    expect(log.attempts).toBe(1);
    const lines = expectWholeLines(file);
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(["session"]);
    // A later turn is refused the same way, before any model call.
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("Again."))]);
    await expect(prompt()).rejects.toBe(failure);
    expect(seen).toHaveLength(1);
    expect(log.attempts).toBe(1);
  });
});

describe("the file session log", () => {
  it("at a folder's path, refuses the session with an error that names the log, its path and what it takes", () => {
    const folder = tempDir("gamma-log-folder-");
    expect(() => createGammaAgent({ artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), sessionLog: new FileSessionLog(folder), ...NO_KNOWLEDGE_HINTS })).toThrow(
      `Unexpected folder at the session log's path ${folder}, expected a readable JSONL file or no file yet (FileSessionLog path)`,
    );
  });


  it("cuts a torn last line left by a process that died mid-write before it appends, so the log reads whole and the audit positions stay the line numbers", async () => {
    const file = join(tempDir("gamma-log-"), "session.jsonl");
    const first = createGammaAgent({ artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), sessionLog: new FileSessionLog(file), ...NO_KNOWLEDGE_HINTS });
    pi.faux().setResponses([toolUse(fauxToolCall("todo", { tasks: TASKS })), fauxAssistantMessage("Done.")]);
    await first.agent.prompt("Outline a deck");
    first.dispose();
    const before = readFileSync(file, "utf8");
    // The process died in the middle of its next record.
    appendFileSync(file, '{"type":"tool_call","id":"c9","name":"to');
    const reopened = new FileSessionLog(file);
    expect(reopened.read()).toBe(before);
    const second = createGammaAgent({ artifacts, variant: "base", model: pi.faux().getModel(), executors: recordingExecutors(), sessionLog: reopened, ...NO_KNOWLEDGE_HINTS });
    pi.disposeAfterTest(second);
    pi.faux().setResponses([toolUse(fauxToolCall("todo", { tasks: [{ ...TASKS[0], status: "completed" }] })), fauxAssistantMessage("Done.")]);
    await second.agent.prompt("Finish it");
    const lines = expectWholeLines(file);
    expect(lines.slice(0, before.trimEnd().split("\n").length).join("\n")).toBe(before.trimEnd());
    expect(lines.join("\n")).not.toContain('"id":"c9"');
    expect(lines.length).toBeGreaterThan(before.trimEnd().split("\n").length);
  });
});
