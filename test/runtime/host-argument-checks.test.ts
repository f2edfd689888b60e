/**
 * What a plain JavaScript host passes to the runtime's loader, stores and
 * logs, when it is not what they take: a TypeError naming the option or
 * argument and what it takes, before anything is read or written; and a
 * malformed snapshot or record given to replayState is a StateStoreError that
 * says what is wrong with it, never an internal message or "expected NaN".
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { FileSessionLog, loadArtifacts, MemoryStateStore, replayState, SessionProtocolController, StateStoreError } from "../../src/runtime/index.js";
import { initialState } from "../../src/runtime/state/opening.js";
import { prepareDist } from "./helpers/dist.js";

const distDir = prepareDist();
const artifacts = loadArtifacts({ distDir });

/** What FileSessionLog's refusal says it takes. */
const LOG_PATH = 'the log file\'s path, such as "sessions/deck-42.jsonl", or its file: URL';

/** A value a plain JavaScript host passes, whatever the types say. */
const js = (value: unknown): never => value as never;

function thrown(call: () => unknown): Error {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error("expected the call to throw");
}

describe("loadArtifacts, a controller's store and the session log, given what they do not take", () => {
  it.each([
    ["loadArtifacts distDir", () => loadArtifacts(js({ distDir: 5 })), 'Unexpected distDir 5, expected the folder a build wrote, a path such as "dist" or a file: URL'],
    [
      "a store without load()",
      () => new SessionProtocolController(js({ artifacts, variant: "base", store: {} })),
      "Unexpected store.load undefined, expected a function: a state store has load() and save() (docs/reference/runtime-api.md, the store contract)",
    ],
    [
      "a store without save()",
      () => new SessionProtocolController(js({ artifacts, variant: "base", store: { load: () => undefined } })),
      "Unexpected store.save undefined, expected a function: a state store has load() and save() (docs/reference/runtime-api.md, the store contract)",
    ],
    [
      "a store whose appendMany is no function",
      () => new SessionProtocolController(js({ artifacts, variant: "base", store: { load: () => undefined, save: () => {}, appendMany: true } })),
      "Unexpected store.appendMany true, expected a function",
    ],
    ["FileSessionLog without a path", () => new FileSessionLog(js(undefined)), `Unexpected FileSessionLog path undefined, expected ${LOG_PATH}`],
    ["FileSessionLog given a URL that is no file: URL", () => new FileSessionLog(new URL("https://example.com/sessions/deck-42.jsonl")), `Unexpected FileSessionLog path URL "https://example.com/sessions/deck-42.jsonl", expected ${LOG_PATH}`],
    [
      "FileSessionLog given a file: URL of another host",
      () => new FileSessionLog(new URL("file://fileserver/sessions/deck-42.jsonl")),
      `Unexpected FileSessionLog path URL "file://fileserver/sessions/deck-42.jsonl", expected ${LOG_PATH} (File URL host must be "localhost" or empty on ${process.platform})`,
    ],
    ["loadArtifacts distDir given a URL that is no file: URL", () => loadArtifacts({ distDir: new URL("https://example.com/dist/") }), `Unexpected distDir URL "https://example.com/dist/", expected the folder a build wrote, a path such as "dist" or a file: URL`],
  ])("%s: a TypeError naming it", (_name, call, message) => {
    const error = thrown(call);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });

  it("still takes a store with load() and save() only, and a file: URL for distDir", () => {
    const store = { load: () => undefined, save: () => {} };
    expect(new SessionProtocolController({ artifacts, variant: "base", store }).variant).toBe("base");
    expect(new SessionProtocolController({ artifacts, variant: "base", store: new MemoryStateStore() }).variant).toBe("base");
    expect(loadArtifacts({ distDir: new URL(`file://${distDir}`) }).manifest.staticPrefix.cacheKey).toBe(artifacts.manifest.staticPrefix.cacheKey);
  });

  it("FileSessionLog takes a file: URL as Node's fs does: the log is written at its path, created with its folder, and read back", () => {
    const folder = mkdtempSync(join(tmpdir(), "gamma-log-url-"));
    try {
      const file = join(folder, "sessions", "deck 42.jsonl");
      const log = new FileSessionLog(pathToFileURL(file));
      expect(log.path).toBe(file);
      log.append({ type: "skills_loaded", names: ["deck"] });
      expect(readFileSync(file, "utf8")).toBe('{"type":"skills_loaded","names":["deck"]}\n');
      expect(new FileSessionLog(pathToFileURL(file)).read()).toBe('{"type":"skills_loaded","names":["deck"]}\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("replayState, given what a host's store read", () => {
  const snapshot = () => initialState(artifacts, "base");

  it("names a wrong argument with a TypeError", () => {
    const noRecords = thrown(() => replayState(snapshot(), js(undefined), "deck-42"));
    expect(noRecords).toBeInstanceOf(TypeError);
    expect(noRecords.message).toBe("Unexpected records undefined, expected an array of the journal records stored after the snapshot (empty for none)");
    const noLocation = thrown(() => replayState(snapshot(), [], js(undefined)));
    expect(noLocation).toBeInstanceOf(TypeError);
    expect(noLocation.message).toBe("Unexpected location undefined, expected where the state is kept, as errors name it (a file's path, a row's key)");
    const nothing = thrown(() => (replayState as unknown as () => unknown)());
    expect(nothing).toBeInstanceOf(TypeError);
  });

  it("says what is wrong with a snapshot or a record, naming the location", () => {
    const notState = thrown(() => replayState(js({}), [js({})], "deck-42"));
    expect(notState).toBeInstanceOf(StateStoreError);
    expect(notState.message).toMatch(/^deck-42: Unexpected stateVersion undefined, expected a saved execution state \(stateVersion \d+\)$/);
    const notRecord = thrown(() => replayState(snapshot(), [js({})], "deck-42"));
    expect(notRecord).toBeInstanceOf(StateStoreError);
    expect(notRecord.message).toBe('deck-42: Unexpected records[0] an object, expected a journal record {"revision": n, "op": ...} as the store was given it');
    expect(notRecord.message).not.toContain("NaN");
  });

  it("replays a well-formed snapshot and its records as before", () => {
    const state = snapshot();
    expect(replayState(state, [], "deck-42")).toEqual(state);
  });
});
