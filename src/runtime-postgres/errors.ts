/** What the PostgreSQL entry point refuses with, beside the runtime's own state errors. */
import { StateConflictError, StateStoreError } from "../runtime/state/errors.js";
import { answeredWithError, DatabaseRolledBackError, DatabaseTimeoutError, DatabaseUnreachableError, errorCode, READ_ONLY_SQL_TRANSACTION } from "./database.js";
import { messageOf } from "../protocol/error-message.js";

/**
 * This server no longer holds the session's lease: another server took it
 * over (this one was paused, partitioned or lost its connection past the
 * lease), or the session was released. Nothing was written. A conflict: a run
 * that meets it ends with StateWriteFailedError whose cause is this error.
 */
export class LeaseLostError extends StateConflictError {
  constructor(
    readonly sessionKey: string,
    readonly token: number,
  ) {
    super(`session ${sessionKey}`, `Unexpected write with lease token ${token}, expected this server to hold the session's lease: another server took it over or this one let it go, so this one writes nothing and stops`);
    this.name = "LeaseLostError";
  }
}

/**
 * A write the database failed (a dropped connection, a full disk), named for
 * the session it was for and what it should have stored, with what became of
 * it: refused when the database answered with an error, "unsent" when
 * nothing was stored (no connection was had, or a statement of a transaction
 * got no answer before its commit, so the transaction was rolled back),
 * "unknown" when the statement (a transaction's commit) went out and no answer
 * came (a timeout, a connection lost mid-statement).
 */
export function databaseFailure(sessionKey: string, error: unknown, expected: string): StateStoreError {
  const cause = readOnlyAware(error);
  const outcome = answeredWithError(cause) || cause instanceof DatabaseReadOnlyError ? undefined : cause instanceof DatabaseUnreachableError || cause instanceof DatabaseRolledBackError ? "unsent" : "unknown";
  return new StateStoreError(`session ${sessionKey}`, `Unexpected database failure (${messageOf(cause)}), expected ${expected}`, outcome);
}

/** The database's read-only refusal (SQLSTATE 25006) as DatabaseReadOnlyError; any other error as it is. */
export function readOnlyAware(error: unknown): unknown {
  return errorCode(error) === READ_ONLY_SQL_TRANSACTION && !(error instanceof DatabaseReadOnlyError) ? new DatabaseReadOnlyError({ cause: error }) : error;
}

export { DatabaseRolledBackError, DatabaseTimeoutError, DatabaseUnreachableError };

/**
 * The session's lease has not been confirmed (renewed) for `leaseMs`, and the
 * renewal sent (or awaited) to confirm it before the next model call did not
 * either: `renewalError` is its failure (DatabaseUnreachableError when no
 * connection was had, DatabaseTimeoutError when the database did not answer),
 * or undefined when it was answered too late to confirm the lease. Another
 * server may have taken the session over, so this one sends no model call for
 * it and stops. A conflict: the run ends with StateWriteFailedError whose
 * cause is this error.
 */
export class LeaseUnconfirmedError extends StateConflictError {
  constructor(
    readonly sessionKey: string,
    readonly sinceMs: number,
    readonly renewalError?: unknown,
  ) {
    const why =
      renewalError === undefined
        ? "the renewal sent to confirm it was answered too late to confirm it"
        : `the renewal sent to confirm it failed (${messageOf(renewalError)})`;
    super(`session ${sessionKey}`, `Unexpected model call with the session's lease unconfirmed for ${sinceMs} ms, expected it renewed within the lease: ${why}; another server may host the session now, so this one sends nothing more and stops; the transcript's new rows were not written`);
    this.name = "LeaseUnconfirmedError";
  }
}

/** dispose() could not let the session's lease go: nothing more is written by this server, and the lease runs out by itself. */
export class LeaseNotReleasedError extends Error {
  override readonly name = "LeaseNotReleasedError";
  constructor(
    readonly sessionKey: string,
    leaseMs: number,
    cause: unknown,
  ) {
    super(
      `Unexpected failure letting the lease of session ${sessionKey} go (${messageOf(cause)}), expected it released: this server writes nothing more for it, and the lease runs out by itself within ${leaseMs} ms of its last renewal; another server can open the session then`,
      { cause },
    );
  }
}

/** Another server holds the session's lease and did not let it go in time. */
export class SessionLeasedError extends Error {
  override readonly name = "SessionLeasedError";
  constructor(
    readonly sessionKey: string,
    readonly owner: string,
    readonly expiresAt: Date,
  ) {
    super(`Session ${sessionKey} is hosted by ${owner} until ${expiresAt.toISOString()} (its lease did not expire in the time allowed); open it again later, or on that server`);
  }
}

/** An event a producer tried to publish that the envelope check refused, or that is too large. */
export class EventRejectedError extends Error {
  override readonly name = "EventRejectedError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The database's schema is older than this package: migrations not applied yet. */
export class SchemaNotMigratedError extends Error {
  override readonly name = "SchemaNotMigratedError";
  constructor(readonly applied: number, readonly expected: number) {
    super(`Unexpected database schema at migration ${applied}, expected ${expected}: apply the migrations first (migratePostgres(pool), or \`gamma-prompt postgres migrate\`)`);
  }
}

/**
 * gamma_schema_migrations records, under one of this package's migration
 * versions, a migration that is not this package's (another name, or other
 * SQL): the table was written by something else, and nothing is applied or
 * trusted on top of it.
 */
export class ForeignMigrationError extends Error {
  override readonly name = "ForeignMigrationError";
  constructor(
    readonly recorded: { version: number; name: string; checksum: string | null },
    readonly expected: { version: number; name: string; checksum: string } | undefined,
  ) {
    const what =
      expected === undefined
        ? `which gamma-prompt never shipped`
        : expected.name !== recorded.name
          ? `but gamma-prompt's migration ${expected.version} is "${expected.name}"`
          : `with checksum ${(recorded.checksum ?? "").slice(0, 12)}, but gamma-prompt's has checksum ${expected.checksum.slice(0, 12)}`;
    super(
      `Unexpected row in gamma_schema_migrations: migration ${recorded.version} is recorded as "${recorded.name}" ${what}; the table holds migrations that are not gamma-prompt's, so nothing was applied (give gamma-prompt a database or schema of its own)`,
    );
  }
}

/** A session opened on a server whose `close()` has begun (or still waiting for another server's lease when it began): it would hold a lease nobody renews or lets go. */
export class SessionsClosedError extends Error {
  override readonly name = "SessionsClosedError";
  constructor(readonly sessionKey: string) {
    super(`Unexpected open of session ${sessionKey} on a server that is closing, expected it opened before close() or on another server: nothing was kept, and no lease of it is left held by this server`);
  }
}

/** The pool's connections cannot write: a standby, or a read-only default. Sessions would fail at their first write. */
export class DatabaseReadOnlyError extends Error {
  override readonly name = "DatabaseReadOnlyError";
  /** The database's own SQLSTATE for it: it answered, and nothing was written. */
  readonly code = READ_ONLY_SQL_TRANSACTION;
  constructor(options?: { cause?: unknown }) {
    super("Unexpected read-only database connection (transaction_read_only is on: a standby, or default_transaction_read_only), expected a primary the sessions can write to: point the pool at the primary", options);
  }
}

/** The two ways to open a hosted session, each storing its own kind of transcript. */
export type HostedPath = "openAgent" | "openSession";

/**
 * A session opened on the other Pi path than the one that wrote its
 * transcript: `openAgent` stores the Agent's message list, `openSession` the
 * AgentSession's entries, and neither reads the other's rows (the session
 * would lose its conversation, or fail every model call). Refused before
 * anything was taken: no state read, no event routed, no lease held.
 */
export class SessionPathError extends Error {
  override readonly name = "SessionPathError";
  constructor(
    readonly sessionKey: string,
    /** The path that wrote the stored transcript. */
    readonly storedPath: HostedPath,
    /** The path the host opened it with. */
    readonly openedPath: HostedPath,
  ) {
    super(
      `Unexpected ${openedPath} of session ${sessionKey}, expected ${storedPath}: its stored transcript was written by ${storedPath} (${pathName(storedPath)}), which ${openedPath} (${pathName(openedPath)}) cannot read; open it with ${storedPath}, or give the ${openedPath} session a new key. Nothing was taken: no state read, no event routed, no lease kept`,
    );
  }
}

function pathName(path: HostedPath): string {
  return path === "openAgent" ? "Pi's Agent, a message list" : "Pi's AgentSession, session entries";
}

/**
 * A stored row (a state snapshot or record, a transcript row, an event) in a
 * form this version of gamma-prompt does not read: written by another version
 * of the package (a newer one, during a rolling upgrade of a fleet that shares
 * the database), or not by gamma-prompt. `row` names it (table, session and
 * revision, position or event id); `form` says what was found. Nothing was
 * read past it and nothing was changed: a server that reads the form opens the
 * session, or routes the event, as it is.
 */
export class StoredFormatError extends StateStoreError {
  constructor(
    readonly sessionKey: string,
    readonly row: string,
    readonly form: string,
    /** An event's row (left unrouted for a server that reads it), or a row of the session's own (its open refused). */
    of: "session" | "event" = "session",
  ) {
    const what = of === "event" ? "the event is left unrouted for a server that runs the version that wrote it" : "open the session on a server that runs the version that wrote it";
    super(
      `session ${sessionKey}`,
      `Unexpected ${row} stored as ${form}, expected a document in a form this version of gamma-prompt reads (a JSON object, or its JSON text in a jsonb string): it was written by another version of the package (or not by gamma-prompt); ${what}, and finish the upgrade (docs/guide/running-across-servers.md)`,
    );
    this.name = "StoredFormatError";
  }
}

/**
 * The listener's connection did not answer a check in time (or failed it):
 * it is replaced, and every hosted session routes what was published meanwhile.
 */
export class ListenerUnansweredError extends Error {
  override readonly name = "ListenerUnansweredError";
  constructor(
    readonly timeoutMs: number,
    cause: unknown,
  ) {
    super(
      cause instanceof DatabaseTimeoutError
        ? `Unexpected silence from the listener's connection, expected an answer to its check within ${timeoutMs} ms: it is replaced by a new connection, and the hosted sessions route what was published meanwhile`
        : `Unexpected failure of the listener connection's check (${messageOf(cause)}), expected an answer: it is replaced by a new connection, and the hosted sessions route what was published meanwhile`,
      { cause },
    );
  }
}
