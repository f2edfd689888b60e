import { messageOf } from "../../protocol/error-message.js";
/** The stored state's format version and the errors a store and the state owner report. */

export const STATE_VERSION = 1;

/**
 * A store's failure. `outcome` says what became of the write when the store
 * knows: "unsent" (the store could not be reached: nothing was stored) or
 * "unknown" (the write went out and no answer came: it may have been stored
 * or not). Without it, the store refused the write.
 */
export class StateStoreError extends Error {
  constructor(
    readonly location: string,
    message: string,
    readonly outcome?: "unsent" | "unknown",
  ) {
    super(`${location}: ${message}`);
    this.name = "StateStoreError";
  }
}

/** A second writer changed the same state (two processes for one session): refused, never merged. */
export class StateConflictError extends StateStoreError {
  constructor(location: string, message: string) {
    super(location, message);
    this.name = "StateConflictError";
  }
}

/**
 * The session stopped because its store refused a write: what a run ends
 * with (prompt() rejects with it, no model call goes out after it) and what
 * `flush()` rejects with. `cause` is the store's own error; `revision` is the
 * first revision the store did not accept; `failedWrite`, when set, names the
 * store beside the state whose write failed (a database's transcript), the
 * state store having refused nothing; `conflict` is true when the store
 * said another writer holds the session (a StateConflictError: a second
 * server, a lost lease). The session's memory is ahead of its store from that
 * revision on, so the host disposes it and reopens the session from the store
 * (after a conflict, only where it holds the session again).
 */
/**
 * A change to a session's state, or a model call, after its dispose: refused,
 * and nothing is written or sent. A disposed session is no longer the
 * session's writer (on a database another server may host it now); open the
 * session again to go on. `attempted` names what was refused.
 */
export class SessionDisposedError extends Error {
  override readonly name = "SessionDisposedError";
  constructor(readonly attempted: string) {
    super(`Unexpected ${attempted} after the session was disposed, expected none: a disposed session writes and sends nothing; open the session again to go on`);
  }
}

export class StateWriteFailedError extends Error {
  override readonly name = "StateWriteFailedError";
  readonly conflict: boolean;
  constructor(
    override readonly cause: unknown,
    readonly revision: number,
    readonly failedWrite?: string,
  ) {
    const reason = messageOf(cause);
    const outcome = cause instanceof StateStoreError ? cause.outcome : undefined;
    const what = failedWrite === undefined ? `the write of revision ${revision}` : `the write of ${failedWrite}`;
    super(
      outcome === "unknown"
        ? `The store did not confirm ${what} (${reason}): whether it was stored is unknown; the session stopped: dispose it and reopen it from the store, which loads whatever was stored`
        : outcome === "unsent"
          ? `The store could not be reached for ${what} (${reason}): nothing of it was stored; the session stopped: dispose it and reopen it from the store`
          : failedWrite === undefined
            ? `The state store refused the write of revision ${revision} (${reason}); the session stopped: dispose it and reopen it from the store`
            : `The write of ${failedWrite} failed (${reason}); the session stopped: dispose it and reopen it from the store`,
      { cause },
    );
    this.conflict = cause instanceof StateConflictError;
  }
}
