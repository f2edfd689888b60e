// The durable store's contract: one small record per change, compaction into a
// snapshot, crash recovery (a real child process killed mid-write), a torn
// tail ignored and reported, and a second writer refused, never merged.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import type { RuntimeInjection } from "../../src/runtime/injections/index.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import { checkRecord, checkState, parseJournal, replay, seenIdsOf } from "../../src/runtime/journal.js";
import { FileStateStore, MemoryStateStore, StateConflictError, StateStoreError, type StateRecovery } from "../../src/runtime/state.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { recordingExecutors } from "./helpers/pi.js";
import { fauxPerTest } from "./helpers/session.js";

const pi = fauxPerTest();
const distDir = prepareDist();
const artifacts = loadArtifacts({ distDir });
const root = fileURLToPath(new URL("../../", import.meta.url));
const writer = fileURLToPath(new URL("./helpers/journal-writer.mjs", import.meta.url));

function controllerOn(store: FileStateStore | MemoryStateStore): SessionProtocolController {
  return new SessionProtocolController({ artifacts, variant: "base", store });
}

/** A mix that keeps the pending set small: views, edits of a few files, results of a few jobs, notes. */
function mixedEvents(count: number): RuntimeInjection[] {
  return Array.from({ length: count }, (_, index): RuntimeInjection => {
    const occurredAt = new Date(Date.UTC(2026, 2, 1, 9) + index * 1000).toISOString();
    const common = { id: `evt_${index}`, occurredAt, requiresDecision: false, summary: `Event ${index}.` };
    switch (index % 4) {
      case 0:
        return { ...common, kind: "client_view", source: "client", delivery: "next_turn" };
      case 1:
        return { ...common, kind: "artifact_update", source: "workspace", delivery: "steer", subject: { path: `doc-${index % 5}.xml` } };
      case 2:
        return { ...common, kind: "background_result", source: "background_job", delivery: "follow_up", details: { jobId: `job-${index % 3}` } };
      default:
        return { ...common, kind: "system_note", source: "server", delivery: "next_turn", dedupeKey: `note-${index % 7}` };
    }
  });
}

const lines = (path: string): string[] => readFileSync(path, "utf8").split("\n").filter((line) => line !== "");

describe("the journal", () => {
  it("appends one small record per event routed into a real Pi agent's session, without rewriting the file", () => {
    const path = join(tempDir("gamma-journal-"), "state.json");
    const gamma = createGammaAgent({ artifacts, variant: "base", store: new FileStateStore(path), model: pi.faux().getModel(), executors: recordingExecutors() });
    const controller = gamma.controller;
    const inode = statSync(path).ino;
    const sizes: number[] = [];
    for (const event of mixedEvents(400)) {
      const before = statSync(path).size;
      controller.routeUpdate(event);
      sizes.push(statSync(path).size - before);
    }
    expect(statSync(path).ino).toBe(inode);
    expect(lines(path)).toHaveLength(1 + 400);
    // Constant cost: the last record is no bigger than the first, whatever the state holds by then.
    expect(Math.max(...sizes)).toBeLessThan(2 * (sizes[0] ?? 0));
    expect(Math.max(...sizes)).toBeLessThan(2048);
    gamma.dispose();
    expect(new FileStateStore(path).load()).toEqual(controller.state);
  });

  it("compacts into a new snapshot when the journal outgrows its limit, and reads back the same state", () => {
    const path = join(tempDir("gamma-journal-"), "state.json");
    const controller = controllerOn(new FileStateStore(path, { compactAfterBytes: 8 * 1024 }));
    controller.updateTasks([{ id: "deck", title: "Build the deck", status: "in_progress" }]);
    for (const event of mixedEvents(300)) controller.routeUpdate(event);
    expect(lines(path).length).toBeLessThan(200);
    const [snapshot] = lines(path);
    expect(JSON.parse(snapshot ?? "{}")).toMatchObject({ stateVersion: 1, variant: "base" });
    expect(JSON.parse(snapshot ?? "{}").revision).toBeGreaterThan(200);
    controller.close();
    expect(new FileStateStore(path).load()).toEqual(controller.state);
    expect(controllerOn(new FileStateStore(path)).state).toEqual(controller.state);
  });

  it("the memory store keeps copies and compacts too", () => {
    const store = new MemoryStateStore({ compactAfterBytes: 4 * 1024 });
    const controller = controllerOn(store);
    for (const event of mixedEvents(300)) controller.routeUpdate(event);
    expect(store.load()).toEqual(controller.state);
  });
});

describe("a crash mid-write", () => {
  it("a child process killed while it routes events leaves a state that restores to its last complete record", async () => {
    if (!existsSync(join(root, "lib/runtime/index.js"))) throw new Error("run `npm run build:ts` first: the child process runs the compiled runtime");
    const folder = tempDir("gamma-crash-");
    const path = join(folder, "state.json");
    const eventsPath = join(folder, "events.json");
    const events = mixedEvents(500);
    writeFileSync(eventsPath, JSON.stringify(events));
    const child = spawn(process.execPath, [writer, path, distDir, eventsPath, String(16 * 1024)], { stdio: ["ignore", "pipe", "pipe"] });
    let reported = 0;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        const revisions = chunk.toString().trim().split("\n").map(Number);
        reported = Math.max(reported, ...revisions);
        // Past several compactions: killed while it writes records (or a new snapshot).
        if (reported >= 1500 && child.exitCode === null) child.kill("SIGKILL");
      });
      child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`child exited on its own: ${stderr}`))));
    });

    const recoveries: StateRecovery[] = [];
    const restored = new FileStateStore(path, { onRecovery: (recovery) => recoveries.push(recovery) }).load() as ExecutionState;
    expect(restored.revision).toBeGreaterThanOrEqual(reported);
    // The same events routed in memory up to that revision give exactly the restored state.
    const reference = controllerOn(new MemoryStateStore());
    for (let round = 0; reference.state.revision < restored.revision; round++) {
      for (const event of events) {
        if (reference.state.revision === restored.revision) break;
        reference.routeUpdate({ ...event, id: `${event.id}-${round}` });
      }
    }
    // Everything but the session's random key, which each session mints for itself.
    expect({ ...restored, sessionKey: "" }).toEqual({ ...reference.state, sessionKey: "" });
    expect(recoveries.every((recovery) => recovery.revision === restored.revision)).toBe(true);

    // A restarted server continues on that file.
    const restarted = controllerOn(new FileStateStore(path));
    restarted.routeUpdate({ ...events[0]!, id: "after-restart" });
    restarted.close();
    expect(new FileStateStore(path).load()?.revision).toBe(restored.revision + 1);
  }, 30_000);

  it("a torn last record is ignored and reported, and cut off before the next write", () => {
    const path = join(tempDir("gamma-torn-"), "state.json");
    const controller = controllerOn(new FileStateStore(path));
    for (const event of mixedEvents(10)) controller.routeUpdate(event);
    const complete = controller.state;
    controller.close();
    // The next record, cut short by a crash.
    const record = `${JSON.stringify({ op: "seen", id: "evt_torn", revision: complete.revision + 1 })}\n`;
    appendFileSync(path, record.slice(0, 17));

    const recoveries: StateRecovery[] = [];
    const store = new FileStateStore(path, { onRecovery: (recovery) => recoveries.push(recovery) });
    const reopened = controllerOn(store);
    expect(reopened.state).toEqual(complete);
    expect(recoveries).toEqual([{ location: path, tornBytes: 17, revision: complete.revision, message: expect.stringMatching(/^Ignored 17 bytes after the last complete record/) }]);
    expect(store.lastRecovery).toEqual(recoveries[0]);

    reopened.routeUpdate(mixedEvents(11)[10]!);
    reopened.close();
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
    expect(new FileStateStore(path).load()).toEqual(reopened.state);
    expect(lines(path).every((line) => JSON.parse(line) !== undefined)).toBe(true);
  });

  it("a broken record before the last one is corruption, refused with an error naming the file and line", () => {
    const path = join(tempDir("gamma-torn-"), "state.json");
    const controller = controllerOn(new FileStateStore(path));
    for (const event of mixedEvents(3)) controller.routeUpdate(event);
    controller.close();
    const [snapshot, first, ...rest] = lines(path);
    writeFileSync(path, [snapshot, (first ?? "").slice(0, 10), ...rest, ""].join("\n"));
    expect(() => new FileStateStore(path).load()).toThrow(StateStoreError);
    expect(() => new FileStateStore(path).load()).toThrow(`${path}: Unexpected line 2 that is not JSON`);
  });
});

describe("a state file that goes away or breaks while the session runs", () => {
  const refusal = (change: () => void): unknown => {
    try {
      change();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each([
    ["with the file open for appending", 1],
    ["before the first change appended", 0],
  ])("a removed folder (%s) is refused as a missing file, not as another writer", (_when, changesBefore) => {
    const folder = tempDir("gamma-removed-");
    const path = join(folder, "session", "state.json");
    const controller = controllerOn(new FileStateStore(path));
    for (const event of mixedEvents(changesBefore)) controller.routeUpdate(event);
    rmSync(join(folder, "session"), { recursive: true, force: true });
    const error = refusal(() => controller.updateTasks([]));
    expect(error).toBeInstanceOf(StateStoreError);
    expect(error).not.toBeInstanceOf(StateConflictError);
    expect(String((error as Error).message)).toBe(
      `${path}: Unexpected missing state file (removed or moved while the session ran, at revision ${changesBefore}), expected the file this store wrote; the write was refused`,
    );
    expect(controller.failure?.conflict).toBe(false);
    controller.close();
  });

  it("a file overwritten with something that is not a state is refused as unreadable, not as another writer", () => {
    const path = join(tempDir("gamma-garbled-"), "state.json");
    const controller = controllerOn(new FileStateStore(path));
    controller.routeUpdate(mixedEvents(1)[0]!);
    writeFileSync(path, "not a state file\n");
    const error = refusal(() => controller.updateTasks([]));
    expect(error).toBeInstanceOf(StateStoreError);
    expect(error).not.toBeInstanceOf(StateConflictError);
    expect(String((error as Error).message)).toMatch(/Unexpected unreadable state file \(.*\), expected the file this store wrote at revision 1; the write was refused$/);
    controller.close();
  });
});

describe("two writers on one state file", () => {
  it("the second server's write is refused with StateConflictError, and the file keeps the first's state", () => {
    const path = join(tempDir("gamma-conflict-"), "state.json");
    const first = controllerOn(new FileStateStore(path));
    first.routeUpdate(mixedEvents(1)[0]!);
    const second = controllerOn(new FileStateStore(path)); // another process opens the same session
    const [, a, b] = mixedEvents(3);
    first.routeUpdate(a!);
    expect(() => second.routeUpdate(b!)).toThrow(StateConflictError);
    expect(() => second.routeUpdate(b!)).toThrow(/another writer \(revision 2 on disk, this process is at revision 1\)/);
    // Refused before anything changed: the second controller's state is as it was.
    expect(second.state.revision).toBe(1);
    expect(new FileStateStore(path).load()).toEqual(first.state);
    first.close();
    second.close();
  });

  it("a writer that compacted the file away under another is detected by the new file", () => {
    const path = join(tempDir("gamma-conflict-"), "state.json");
    const first = controllerOn(new FileStateStore(path, { compactAfterBytes: 1 }));
    const second = controllerOn(new FileStateStore(path));
    const inode = statSync(path).ino;
    for (const event of mixedEvents(100)) first.routeUpdate(event);
    expect(statSync(path).ino).not.toBe(inode);
    expect(() => second.updateTasks([])).toThrow(StateConflictError);
    first.close();
    second.close();
  });

  it("a second writer with a tiny journal limit still never overwrites records the first appended", () => {
    const path = join(tempDir("gamma-conflict-"), "state.json");
    const first = controllerOn(new FileStateStore(path));
    const second = controllerOn(new FileStateStore(path, { compactAfterBytes: 1 }));
    first.routeUpdate(mixedEvents(1)[0]!);
    // Whether its next change appends or compacts into a new file, the first's record must survive.
    expect(() => {
      for (const event of mixedEvents(40).slice(1)) second.routeUpdate(event);
    }).toThrow(StateConflictError);
    expect(new FileStateStore(path).load()).toEqual(first.state);
    first.close();
    second.close();
  });

  it("records of two writers interleaved in one file are refused on load, never merged", () => {
    const path = join(tempDir("gamma-conflict-"), "state.json");
    const controller = controllerOn(new FileStateStore(path));
    controller.routeUpdate(mixedEvents(1)[0]!);
    controller.close();
    appendFileSync(path, `${JSON.stringify({ op: "seen", id: "other-process", revision: 1 })}\n`);
    expect(() => new FileStateStore(path).load()).toThrow(StateConflictError);
    expect(() => new FileStateStore(path).load()).toThrow(/revision 1 after revision 1, expected 2: two processes wrote this session's state/);
  });
});

describe("the fsync policy", () => {
  it("`always` syncs every record and reads back the same state", () => {
    const path = join(tempDir("gamma-fsync-"), "state.json");
    const controller = controllerOn(new FileStateStore(path, { fsync: "always" }));
    for (const event of mixedEvents(20)) controller.routeUpdate(event);
    controller.close();
    expect(new FileStateStore(path).load()).toEqual(controller.state);
  });
});

describe("a state file read back (src/runtime/journal.ts)", () => {
  const LOCATION = "/sessions/s1.json";
  const snapshot = (fields: Partial<ExecutionState> = {}): ExecutionState => ({
    stateVersion: 1,
    revision: 4,
    variant: "base",
    activeSkills: [],
    tasks: { items: [] } as unknown as ExecutionState["tasks"],
    pendingInjections: [],
    currentArtifacts: [],
    ...fields,
  });
  const fileOf = (...lines: unknown[]): Buffer => Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  const storeError = (read: () => unknown): StateStoreError => {
    try {
      read();
    } catch (error) {
      expect(error).toBeInstanceOf(StateStoreError);
      return error as StateStoreError;
    }
    throw new Error("expected a StateStoreError");
  };

  it("is a snapshot line followed by one record per line; a last line without its newline is a torn write, counted and ignored", () => {
    const records = [{ revision: 5, op: "sessionKey", sessionKey: "k" }, { revision: 6, op: "artifacts", artifacts: [] }];
    const whole = fileOf(snapshot(), ...records);
    const torn = Buffer.concat([whole, Buffer.from('{"revision":7,"op"')]);
    const parsed = parseJournal(torn, LOCATION);
    expect(parsed.snapshot).toEqual(snapshot());
    expect(parsed.records).toEqual(records);
    expect(parsed.validBytes).toBe(whole.length);
    expect(parsed.tornBytes).toBe(torn.length - whole.length);
    expect(parseJournal(whole, LOCATION).tornBytes).toBe(0);
  });

  it("takes a snapshot without a newline as the whole file", () => {
    const bytes = Buffer.from(JSON.stringify(snapshot()));
    expect(parseJournal(bytes, LOCATION)).toEqual({ snapshot: snapshot(), records: [], validBytes: bytes.length, tornBytes: 0 });
  });

  it("refuses a first line that is not JSON, and a broken record line naming its line number", () => {
    expect(storeError(() => parseJournal(Buffer.from("{\n"), LOCATION)).message).toBe(`${LOCATION}: Unexpected text that is not JSON, expected a saved execution state`);
    const broken = Buffer.concat([fileOf(snapshot(), { revision: 5, op: "seen", id: "a" }), Buffer.from("{oops\n")]);
    expect(storeError(() => parseJournal(broken, LOCATION)).message).toBe(`${LOCATION}: Unexpected line 3 that is not JSON, expected a journal record`);
    const notRecord = fileOf(snapshot(), { revision: "5", op: "seen" });
    expect(storeError(() => parseJournal(notRecord, LOCATION)).message).toBe(`${LOCATION}: Unexpected line 2 that is not a journal record, expected {"revision": n, "op": ...}`);
  });

  it.each<[string, unknown, string]>([
    ["a non-object", 3, "non-object value"],
    ["null", null, "non-object value"],
    ["another state version", { ...snapshot(), stateVersion: 2 }, "stateVersion 2"],
    ["no revision", { ...snapshot(), revision: "4" }, "missing revision"],
    ["no variant", { ...snapshot(), variant: 1 }, "missing variant"],
    ["no active skills", { ...snapshot(), activeSkills: {} }, "missing activeSkills"],
    ["tasks that are null", { ...snapshot(), tasks: null }, "missing tasks"],
    ["tasks that are not an object", { ...snapshot(), tasks: "none" }, "missing tasks"],
    ["tasks without items", { ...snapshot(), tasks: { items: {} } }, "missing tasks"],
    ["no pending injections", { ...snapshot(), pendingInjections: null }, "missing pendingInjections"],
    ["no current artifacts", { ...snapshot(), currentArtifacts: "x" }, "missing currentArtifacts"],
  ])("refuses a saved state with %s", (_name, value, what) => {
    expect(storeError(() => checkState(value, LOCATION)).message).toBe(`${LOCATION}: Unexpected ${what}, expected a saved execution state (stateVersion 1)`);
  });

  it.each<[string, unknown]>([
    ["null", null],
    ["a number", 5],
    ["no op", { revision: 5 }],
    ["an op that is not text", { revision: 5, op: 1 }],
  ])("refuses a record that is %s", (_name, value) => {
    expect(storeError(() => checkRecord(value, LOCATION, 9)).message).toContain("Unexpected line 9 that is not a journal record");
  });

  it("refuses, naming the file and line, a record of an operation this version does not write or of a known one without its fields", () => {
    const later = fileOf(snapshot(), { revision: 5, op: "seen", id: "a" }, { revision: 6, op: "later-op", data: {} });
    expect(storeError(() => parseJournal(later, LOCATION)).message).toBe(
      `${LOCATION}: Unexpected line 3 holding an operation this version does not write ("later-op"), expected one of pending, seen, remove, skills, tasks, artifacts, sessionKey, knowledge, required, namespaces, connectorAdded, connectorRemoved, build: it was written by another version of gamma-prompt (or not by gamma-prompt); open the session with the version that wrote it`,
    );
    const partial = fileOf(snapshot(), { revision: 5, op: "skills" });
    expect(storeError(() => parseJournal(partial, LOCATION)).message).toBe(
      `${LOCATION}: Unexpected line 2 holding a "skills" record without add (an array): it was written by another version of gamma-prompt (or not by gamma-prompt); open the session with the version that wrote it`,
    );
    const build = fileOf(snapshot(), { revision: 5, op: "build", cacheKey: "k", activeSkills: [] });
    expect(storeError(() => parseJournal(build, LOCATION)).message).toContain('Unexpected line 2 holding a "build" record without tasks (a task snapshot)');
    // A host's own store that hands such records to replay gets the same refusal, by revision.
    expect(storeError(() => replay(snapshot(), [{ revision: 5, op: "later-op" } as never], LOCATION)).message).toContain(
      'Unexpected record of revision 5 holding an operation this version does not write ("later-op")',
    );
  });

  it("replays every kind of change onto the snapshot, in order, with the last revision", () => {
    const knowledge = { loaded: [], pendingReports: [] } as unknown as ExecutionState["knowledge"];
    const required = [{ skill: "deck-generation", scope: "turn" }] as unknown as ExecutionState["requiredSkills"];
    const tasks = { items: [{ id: "t1" }] } as unknown as ExecutionState["tasks"];
    const skill = { name: "card-style" } as unknown as ExecutionState["activeSkills"][number];
    const replayed = replay(snapshot({ activeSkills: [skill] }), [
      { revision: 5, op: "skills", add: [{ ...skill, name: "outline-deck" }] },
      { revision: 6, op: "tasks", tasks },
      { revision: 7, op: "artifacts", artifacts: [{ path: "deck.xml" }] as unknown as ExecutionState["currentArtifacts"] },
      { revision: 8, op: "sessionKey", sessionKey: "key-1" },
      { revision: 9, op: "knowledge", knowledge: knowledge! },
      { revision: 10, op: "required", skills: required! },
      { revision: 11, op: "seen", id: "evt_1" },
    ], LOCATION);
    expect(replayed).toEqual({
      ...snapshot(),
      revision: 11,
      activeSkills: [skill, { ...skill, name: "outline-deck" }],
      tasks,
      currentArtifacts: [{ path: "deck.xml" }],
      sessionKey: "key-1",
      knowledge,
      requiredSkills: required,
      pendingInjections: [],
      injectionLog: { seenIds: ["evt_1"] },
    });
  });

  it("keeps the snapshot's session key, knowledge, required skills and processed ids through a replay", () => {
    const knowledge = { loaded: [] } as unknown as NonNullable<ExecutionState["knowledge"]>;
    const required: NonNullable<ExecutionState["requiredSkills"]> = [];
    const base = snapshot({ sessionKey: "k0", knowledge, requiredSkills: required, injectionLog: { seenIds: ["old", 3] } });
    const replayed = replay(base, [{ revision: 5, op: "seen", id: "new" }], LOCATION);
    expect(replayed.sessionKey).toBe("k0");
    expect(replayed.knowledge).toBe(knowledge);
    expect(replayed.requiredSkills).toBe(required);
    expect(replayed.injectionLog).toEqual({ seenIds: ["old", "new"] });
    const bare = replay(snapshot(), [{ revision: 5, op: "seen", id: "new" }], LOCATION);
    expect(Object.keys(bare).filter((key) => ["sessionKey", "knowledge", "requiredSkills", "loadedNamespaces", "connectors"].includes(key))).toEqual([]);
  });

  it("replays tool namespace loads and connectors onto the snapshot's: a removed connector leaves the catalog and the loaded list", () => {
    type Connector = NonNullable<ExecutionState["connectors"]>[number];
    type Loaded = NonNullable<ExecutionState["loadedNamespaces"]>[number];
    const connector = (name: string): Connector => ({ name, description: `Use for ${name}.`, tools: [] }) as unknown as Connector;
    const loaded = (name: string, loadedBy: Loaded["loadedBy"]): Loaded => ({ name, loadedBy }) as Loaded;
    const base = snapshot({ loadedNamespaces: [loaded("drive", "skill"), loaded("notion", "host")], connectors: [connector("notion"), connector("slack")] });
    const replayed = replay(base, [
      { revision: 5, op: "namespaces", add: [loaded("slack", "tool")] },
      { revision: 6, op: "connectorAdded", connector: connector("jira") },
      { revision: 7, op: "connectorRemoved", name: "notion" },
    ], LOCATION);
    expect(replayed.loadedNamespaces).toEqual([loaded("drive", "skill"), loaded("slack", "tool")]);
    expect(replayed.connectors).toEqual([connector("slack"), connector("jira")]);
    // On a snapshot without either list, each op starts one.
    const fresh = replay(snapshot(), [
      { revision: 5, op: "connectorAdded", connector: connector("jira") },
      { revision: 6, op: "namespaces", add: [loaded("jira", "host")] },
      { revision: 7, op: "connectorRemoved", name: "jira" },
      { revision: 8, op: "connectorAdded", connector: connector("slack") },
    ], LOCATION);
    expect(fresh.loadedNamespaces).toEqual([]);
    expect(fresh.connectors).toEqual([connector("slack")]);
    const removedFirst = replay(snapshot(), [{ revision: 5, op: "connectorRemoved", name: "jira" }], LOCATION);
    expect(removedFirst.connectors).toEqual([]);
    expect(Object.keys(removedFirst)).not.toContain("loadedNamespaces");
  });

  it("returns the snapshot itself when there are no records", () => {
    const base = snapshot();
    expect(replay(base, [], LOCATION)).toBe(base);
  });

  it("refuses a revision that does not follow: an old one is a second writer, a gap a missing record", () => {
    const conflict = storeError(() => replay(snapshot(), [{ revision: 4, op: "seen", id: "a" }], LOCATION));
    expect(conflict).toBeInstanceOf(StateConflictError);
    expect(conflict.message).toBe(`${LOCATION}: Unexpected revision 4 after revision 4, expected 5: two processes wrote this session's state; it is refused rather than merged`);
    const gap = storeError(() => replay(snapshot(), [{ revision: 5, op: "seen", id: "a" }, { revision: 7, op: "seen", id: "b" }], LOCATION));
    expect(gap).not.toBeInstanceOf(StateConflictError);
    expect(gap.message).toBe(`${LOCATION}: Unexpected revision 7 after revision 5, expected 6 (a record is missing)`);
  });

  it.each<[string, unknown, string[]]>([
    ["no log", undefined, []],
    ["a log that is a list", ["a"], []],
    ["a log that is null", null, []],
    ["ids that are not a list", { seenIds: "a" }, []],
    ["ids with other values among them", { seenIds: ["a", 1, null, "b"] }, ["a", "b"]],
  ])("reads the processed ids of a snapshot with %s", (_name, log, ids) => {
    expect(seenIdsOf(snapshot(log === undefined ? {} : { injectionLog: log as NonNullable<ExecutionState["injectionLog"]> }))).toEqual(ids);
  });
});
