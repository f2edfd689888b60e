// The session's state owner on stores that wait: one write in flight at a
// time, changes made meanwhile batched into the next write, durability awaited
// before a tool result and a model call, the stored state equal to the live one
// however the writes are delayed, and the store contract's three shapes
// (append, appendMany, save only) storing the same state.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent, openGammaAgent } from "../../src/runtime/pi-adapter.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import { StateConflictError, StateWriteFailedError } from "../../src/runtime/state/errors.js";
import { FileStateStore } from "../../src/runtime/state/file-store.js";
import type { StateRecord } from "../../src/runtime/state/journal.js";
import { MemoryStateStore, type StateStore } from "../../src/runtime/state/store.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { event } from "../injections/helpers/fixtures.js";
import { artifacts } from "../injections/helpers/gamma.js";
import { seededRandom } from "../helpers/random.js";
import { tempDir } from "./helpers/dist.js";
import { DatabaseUnavailableError, FlakyStore, refuseOnce } from "./helpers/flaky-store.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();

/** The durable form of a state: where each pending injection waits is not stored. */
function durable(state: Readonly<ExecutionState>): ExecutionState {
  return { ...state, pendingInjections: state.pendingInjections.map(({ queuedAs: _queued, ...entry }) => entry) };
}

/** A store that takes several records in one write and counts its calls (a database with a batch insert). */
class BatchingStore implements StateStore {
  readonly inner = new MemoryStateStore();
  readonly batches: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(private readonly delayMs: number) {}
  async load() {
    return this.inner.load();
  }
  async save(state: ExecutionState) {
    const copy = structuredClone(state);
    await this.wait();
    this.inner.save(copy);
  }
  async appendMany(records: readonly StateRecord[], current: () => ExecutionState) {
    this.batches.push(records.length);
    const base = structuredClone(current());
    await this.wait();
    // What `current` gave is what the store holds before these records.
    expect(base).toEqual(this.inner.load());
    for (const record of records) this.inner.append(record, () => base);
  }
  private async wait() {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    this.inFlight--;
  }
}

/** A store whose writes land only when the test lets them (`land()`), one by one, in the order they were made. */
class HeldStore implements StateStore {
  readonly inner = new MemoryStateStore();
  readonly held: Array<{ records: readonly StateRecord[]; done: () => void }> = [];
  async load() {
    return this.inner.load();
  }
  save(state: ExecutionState) {
    this.inner.save(structuredClone(state));
  }
  appendMany(records: readonly StateRecord[], current: () => ExecutionState): Promise<void> {
    const base = structuredClone(current());
    return new Promise((resolve) => {
      this.held.push({
        records: structuredClone(records),
        done: () => {
          for (const record of records) this.inner.append(record, () => base);
          resolve();
        },
      });
    });
  }
  /** Lets the oldest write land; resolves once the owner has reacted to it. */
  async land(): Promise<void> {
    this.held.shift()?.done();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("a store that waits", () => {
  it("gets one write at a time, the changes made meanwhile together in the next, and stores exactly the live state", async () => {
    const store = new BatchingStore(1);
    const controller = await SessionProtocolController.open({ artifacts, variant: "base", store, ...NO_KNOWLEDGE_HINTS });
    for (let index = 0; index < 500; index++) controller.routeUpdate(event({ kind: "client_view", summary: `The user opened card ${index}.` }));
    controller.setCurrentArtifacts([{ ref: "file:deck.gml" }]);
    controller.updateTasks([{ id: "t1", title: "Outline", status: "in_progress" }]);
    await controller.flush();
    expect(store.maxInFlight).toBe(1);
    // 502 changes, in a handful of writes: the first alone, the rest batched behind it.
    expect(store.batches.reduce((sum, size) => sum + size, 0)).toBe(502);
    expect(store.batches.length).toBeLessThanOrEqual(3);
    expect(store.inner.load()).toEqual(durable(controller.state));
  });

  it("lets a flush go on once the store holds its changes, while later changes keep the store busy", async () => {
    const store = new HeldStore();
    const controller = await SessionProtocolController.open({ artifacts, variant: "base", store, ...NO_KNOWLEDGE_HINTS });
    let flushed = false;
    controller.setCurrentArtifacts([{ ref: "file:first.gml" }]);
    const first = controller.flush().then(() => {
      flushed = true;
    });
    // Events from other services keep arriving: each write that lands finds a new one queued behind it.
    for (let index = 0; index < 3; index++) {
      controller.routeUpdate(event({ kind: "client_view", summary: `The user opened card ${index}.` }));
      await store.land();
      // The write holding the artifacts landed first: its flush does not wait for the writes queued behind it.
      expect(flushed).toBe(true);
    }
    await first;
    expect(store.held).toHaveLength(1);
    await store.land();
    await controller.flush();
    expect(store.inner.load()).toEqual(durable(controller.state));
  });

  it("keeps the same state whichever shape the store has: one record at a time, several, or whole snapshots", async () => {
    const append = new FlakyStore("async", { seed: 3 });
    const many = new BatchingStore(0);
    const saves: ExecutionState[] = [];
    const saveOnly: StateStore = {
      load: async () => undefined,
      save: async (state) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        saves.push(structuredClone(state));
      },
    };
    const states: ExecutionState[] = [];
    for (const store of [append, many, saveOnly]) {
      const controller = await SessionProtocolController.open({ artifacts, variant: "base", store, now: () => 0, ...NO_KNOWLEDGE_HINTS });
      controller.routeUpdate(event({ id: "same-note", occurredAt: "2026-03-01T10:00:00Z", kind: "system_note", summary: "Team plan." }));
      controller.activateSkill("gml-authoring");
      controller.updateTasks([{ id: "t1", title: "Outline", status: "in_progress" }]);
      await controller.flush();
      states.push({ ...durable(controller.state), sessionKey: "" });
    }
    expect(append.maxInFlight).toBe(1);
    expect(append.inner.load()?.revision).toBe(states[0]?.revision);
    expect(many.inner.load()?.revision).toBe(states[1]?.revision);
    expect({ ...saves.at(-1), sessionKey: "" }).toEqual(states[2]);
    expect(states[1]).toEqual(states[0]);
    expect(states[2]).toEqual(states[0]);
  });

  it("stops the session at the first refused write: later changes throw the store's error, flush rejects, the host is told once", async () => {
    const store = new FlakyStore("async", { seed: 5 });
    const events: ProtocolEvent[] = [];
    const controller = await SessionProtocolController.open({ artifacts, variant: "base", store, onProtocolEvent: (e) => events.push(e), ...NO_KNOWLEDGE_HINTS });
    refuseOnce(store, (write) => write.kind === "append" && write.record.op === "artifacts");
    controller.setCurrentArtifacts([{ ref: "file:deck.gml" }]);
    controller.routeUpdate(event({ kind: "system_note", summary: "Queued behind the refused write." }));
    const failure = await controller.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StateWriteFailedError);
    expect((failure as StateWriteFailedError).revision).toBe(1);
    expect(controller.failure).toBe(failure);
    expect(() => controller.updateTasks([])).toThrow(DatabaseUnavailableError);
    await expect(controller.flush()).rejects.toBe(failure);
    expect(events.filter((e) => e.type === "state_write_failed")).toEqual([{ type: "state_write_failed", error: failure }]);
    // Neither the refused change nor the one queued behind it reached the store.
    expect(store.inner.load()?.revision).toBe(0);
  });

  it("reports a tool's result only once the store holds the change the tool made (a runtime tool and a host tool alike)", async () => {
    const store = new FlakyStore("async", { seed: 13, maxDelayMs: 4 });
    const note = event({ kind: "system_note", summary: "Routed by the host tool." });
    const executors = {
      ...recordingExecutors(),
      read: async () => {
        gamma.controller.routeUpdate(note);
        return { content: [{ type: "text" as const, text: "read ok" }] };
      },
    };
    const gamma = pi.disposeAfterTest(await openGammaAgent({ artifacts, variant: "base", store, model: pi.faux().getModel(), executors, ...NO_KNOWLEDGE_HINTS }));
    const storedAtResult: Record<string, ExecutionState | undefined> = {};
    gamma.agent.subscribe((piEvent) => {
      if (piEvent.type === "message_end" && piEvent.message.role === "toolResult") storedAtResult[piEvent.message.toolName] = store.inner.load();
    });
    pi.faux().setResponses([
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Outline", status: "in_progress" }] }), fauxToolCall("read", { path: "a.xml" })),
      fauxAssistantMessage("done"),
    ]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Plan it" }) as AgentMessage[]);
    expect(storedAtResult["todo"]?.tasks.items.map((task) => task.id)).toEqual(["t1"]);
    expect(storedAtResult["read"]?.pendingInjections.map((entry) => entry.id)).toContain(note.id);
  });

  it("is refused by the synchronous entry points with a message naming the asynchronous ones", () => {
    const store = new FlakyStore("async");
    expect(() => new SessionProtocolController({ artifacts, variant: "base", store })).toThrow(/store whose load\(\) returns a promise.*SessionProtocolController\.open/);
    expect(() => createGammaAgent({ artifacts, variant: "base", store, model: pi.faux().getModel(), executors: recordingExecutors() })).toThrow(/openGammaAgent/);
  });

  it("is closed after its last write settled", async () => {
    const closed: number[] = [];
    const store = new FlakyStore("async", { seed: 9, maxDelayMs: 5 });
    const withClose = Object.assign(store, { close: () => void closed.push(store.inner.load()?.revision ?? -1) });
    const gamma = await openGammaAgent({ artifacts, variant: "base", store: withClose, model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS });
    gamma.controller.setCurrentArtifacts([{ ref: "file:a" }]);
    gamma.controller.setCurrentArtifacts([{ ref: "file:b" }]);
    gamma.dispose();
    expect(closed).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toEqual([2]);
  });
});

describe("another writer holds the session", () => {
  it("a second server on the same state file: its run ends with StateWriteFailedError marked as a conflict, nothing goes out", async () => {
    const path = `${tempDir("gamma-conflict-")}/state.json`;
    const first = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(path), model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    const second = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(path), model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    first.controller.routeUpdate(event({ kind: "system_note", summary: "Written by the first server." }));
    expect(() => second.controller.setCurrentArtifacts([{ ref: "file:deck.gml" }])).toThrow(StateConflictError);
    const seen: SeenContext[] = [];
    pi.faux().setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    const failure = await second.agent.prompt([{ role: "user", content: "Go on", timestamp: 0 }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StateWriteFailedError);
    expect((failure as StateWriteFailedError).conflict).toBe(true);
    expect((failure as StateWriteFailedError).cause).toBeInstanceOf(StateConflictError);
    expect(seen).toEqual([]);
  });

  it("a store that waits loses its lease mid-run: the run ends with the conflict, the write after it is never sent", async () => {
    const inner = new MemoryStateStore();
    let leaseHeld = true;
    const sent: number[] = [];
    const store: StateStore = {
      load: async () => inner.load(),
      save: async (state) => inner.save(structuredClone(state)),
      appendMany: async (records, current) => {
        const copies = structuredClone(records);
        sent.push(...copies.map((record) => record.revision));
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!leaseHeld) throw new StateConflictError("session:s1", "Unexpected fencing token 7, expected 8: another server holds the session's lease");
        for (const record of copies) inner.append(record, current);
      },
    };
    const gamma = pi.disposeAfterTest(await openGammaAgent({ artifacts, variant: "base", store, model: pi.faux().getModel(), executors: recordingExecutors(), ...NO_KNOWLEDGE_HINTS }));
    const seen: SeenContext[] = [];
    pi.faux().setResponses([
      toolUse(fauxToolCall("todo", { tasks: [{ id: "t1", title: "Outline", status: "in_progress" }] })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    gamma.agent.subscribe((piEvent) => {
      if (piEvent.type === "tool_execution_start") leaseHeld = false;
    });
    const failure = await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Plan the deck" }) as AgentMessage[]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ name: "StateWriteFailedError", conflict: true });
    expect(seen).toEqual([]);
    expect(() => gamma.controller.setCurrentArtifacts([])).toThrow(StateConflictError);
    // The refused write was the last one the store was sent.
    expect(sent.at(-1)).toBe((failure as StateWriteFailedError).revision);
  });
});

describe("parallel tool calls on a store whose writes are delayed at random", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("seed %i: the owner sends one write at a time and the stored state, replayed, equals the live one", async (seed) => {
    const store = new FlakyStore("async", { seed, maxDelayMs: 4 });
    const random = seededRandom(seed * 7919);
    const routed: string[] = [];
    const executors = {
      ...recordingExecutors(),
      // A host tool that, while the batch runs, hears of changes from elsewhere.
      read: async () => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 4)));
        const update = event({ kind: "artifact_update", delivery: "next_turn", summary: `Saved ${routed.length}.`, subject: { path: `file-${routed.length}.xml` } });
        routed.push(update.id);
        gamma.controller.routeUpdate(update);
        return { content: [{ type: "text" as const, text: "read ok" }] };
      },
    };
    const gamma = pi.disposeAfterTest(await openGammaAgent({ artifacts, variant: "base", store, model: pi.faux().getModel(), executors, ...NO_KNOWLEDGE_HINTS }));
    const seen: SeenContext[] = [];
    pi.faux().setResponses([
      toolUse(
        fauxToolCall("skill", { name: "deck-generation" }),
        fauxToolCall("skill", { name: "import" }),
        fauxToolCall("read", { path: "a.xml" }),
        fauxToolCall("todo", { tasks: [{ id: "t1", title: "Outline", status: "in_progress" }] }),
        fauxToolCall("read", { path: "b.xml" }),
        fauxToolCall("skill", { name: "gml-cli" }),
        fauxToolCall("read", { path: "c.xml" }),
      ),
      seeing(seen, fauxAssistantMessage("done")),
    ]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Make a deck from the brief" }) as AgentMessage[]);
    expect(seen).toHaveLength(1);
    expect(store.maxInFlight).toBe(1);
    const revisions = store.accepted.map((record) => record.revision);
    expect(revisions).toEqual(revisions.map((_, index) => (revisions[0] ?? 0) + index));
    expect(store.inner.load()).toEqual(durable(gamma.controller.state));
    expect(gamma.controller.state.activeSkills.map((skill) => skill.name).sort()).toEqual(expect.arrayContaining(["deck-generation", "gml-cli"]));
    expect(gamma.controller.state.pendingInjections.map((entry) => entry.id)).toEqual(routed);
  });
});

describe("a skill the host activates", () => {
  it("is recorded, reports checklist progress and loads its namespaces like the skill tool, so the completion audit at the next yield audits it", async () => {
    const events: ProtocolEvent[] = [];
    const drive = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
    const gamma = pi.disposeAfterTest(
      createGammaAgent({
        artifacts,
        variant: "base",
        model: pi.faux().getModel(),
        executors: recordingExecutors([], ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file", ...drive]),
        onProtocolEvent: (e) => events.push(e),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    const message = gamma.controller.activateSkillForHost("drive-files");
    expect(message.details.hostActivation?.activated).toEqual(expect.arrayContaining(["drive-files"]));
    expect(events.filter((e) => e.type === "checklist_progress").map((e) => (e.type === "checklist_progress" ? e.skill : ""))).toEqual(["drive-files"]);
    expect(events.find((e) => e.type === "namespaces_loaded")).toMatchObject({ names: ["drive"], loadedBy: "skill" });
    expect(gamma.controller.isNamespaceLoaded("drive")).toBe(true);
    pi.faux().setResponses([toolUse(fauxToolCall("message_user", { message: "Done.", blockOnUser: true }))]);
    await gamma.agent.prompt([...(gamma.controller.buildTurnMessages({ text: "Use the Q3 file from my drive" }) as AgentMessage[]), message as AgentMessage]);
    const yielded = events.find((e) => e.type === "yield");
    expect(yielded?.type === "yield" ? yielded.audit?.outcome : undefined).toBe("fail");
    expect(yielded?.type === "yield" ? yielded.audit?.findings.map((finding) => finding.skill) : []).toContain("drive-files");
  });
});
