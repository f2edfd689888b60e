/**
 * How a session's state starts: the state of a new session (its variant's
 * preloaded skills active, a fresh session key), and the synchronous load that
 * a store answering at once allows. A store that waits is opened with
 * `SessionProtocolController.open`, which awaits its load.
 */
import { randomUUID } from "node:crypto";
import type { VariantName } from "../../protocol/dist-manifest.js";
import type { LoadedArtifacts } from "../artifacts.js";
import type { ExecutionState } from "../execution-state.js";
import { STATE_VERSION } from "./errors.js";
import { isPromiseLike, type StateStore } from "./store.js";

export function initialState(artifacts: LoadedArtifacts, variant: VariantName): ExecutionState {
  const preloaded = artifacts.manifest.variants[variant]?.preloadedSkills ?? [];
  return {
    stateVersion: STATE_VERSION,
    revision: 0,
    variant,
    sessionKey: randomUUID(),
    cacheKey: artifacts.manifest.staticPrefix.cacheKey,
    activeSkills: preloaded.map((name) => {
      const skill = artifacts.skills.get(name);
      if (skill === undefined) throw new Error(`Unexpected preloaded skill "${name}" absent from dist/skills, expected it listed`);
      const sha256 = artifacts.manifest.skills[name]?.sha256;
      return { name, type: skill.type, activatedBy: "preload" as const, ...(sha256 === undefined ? {} : { sha256 }) };
    }),
    tasks: { revision: 0, items: [] },
    pendingInjections: [],
    currentArtifacts: [],
  };
}

/** A synchronous load, or the error that names the asynchronous open a store that waits needs. */
export function loadAtOnce(store: StateStore): ExecutionState | undefined {
  const stored = store.load();
  if (isPromiseLike(stored)) {
    // This load is abandoned for the error below, which says how to open the store; its own outcome does not matter.
    stored.then(undefined, () => undefined);
    throw new TypeError(
      "Unexpected store whose load() returns a promise, expected a store that answers at once for `new SessionProtocolController` and `createGammaAgent`; open a session on a store that waits with `await SessionProtocolController.open(...)`, `await openGammaAgent(...)` or `await createGammaSession(...)`",
    );
  }
  return stored;
}

/** Where a store keeps the state, as its own errors name it (a file's path, a session's row), for an error about what it returned. */
export function storeLocation(store: StateStore): string {
  const named = store as { path?: unknown; location?: unknown };
  if (typeof named.path === "string") return named.path;
  if (typeof named.location === "string") return named.location;
  return "the session's state store";
}
