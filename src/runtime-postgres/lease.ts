/**
 * One host per session: a lease in the session's row with a fencing token.
 * Acquiring it takes a free or expired lease and increments the token; every
 * write of the session checks the owner and the token in the same statement
 * (state-store.ts, transcript.ts, events.ts, record-batch.ts), so a server
 * whose lease was taken over, or that let it go, writes nothing. The
 * database's clock decides expiry, never a server's.
 */
import type { Queryable } from "./database.js";
import { SessionLeasedError, SessionsClosedError } from "./errors.js";

export interface Lease {
  sessionKey: string;
  /** The PostgresSessions that holds it: its hostId and a token of its own start, so two processes given one hostId never share a lease. */
  owner: string;
  /** The fencing token: every write of this host carries it. */
  token: number;
}

/**
 * Takes the session's lease for `owner` when it is free, expired, or already
 * this owner's (the same PostgresSessions: owners are unique per start, see
 * host.ts); creates the session's row for a new session. Returns the lease, or
 * who holds it and until when.
 */
export async function tryAcquireLease(
  db: Queryable,
  request: { sessionKey: string; variant: string; owner: string; leaseMs: number },
): Promise<Lease | { owner: string; expiresAt: Date }> {
  const taken = await db.query<{ lease_token: string }>(
    `insert into gamma_sessions (session_key, variant, lease_owner, lease_token, lease_expires_at)
     values ($1, $2, $3, 1, now() + $4 * interval '1 millisecond')
     on conflict (session_key) do update
       set lease_owner = excluded.lease_owner,
           lease_token = gamma_sessions.lease_token + 1,
           lease_expires_at = excluded.lease_expires_at
       where gamma_sessions.lease_owner is null
          or gamma_sessions.lease_owner = excluded.lease_owner
          or gamma_sessions.lease_expires_at <= now()
     returning lease_token`,
    [request.sessionKey, request.variant, request.owner, request.leaseMs],
  );
  const row = taken.rows[0];
  if (row !== undefined) return { sessionKey: request.sessionKey, owner: request.owner, token: Number(row.lease_token) };
  const held = await db.query<{ lease_owner: string; lease_expires_at: Date }>("select lease_owner, lease_expires_at from gamma_sessions where session_key = $1", [request.sessionKey]);
  const holder = held.rows[0];
  return { owner: holder?.lease_owner ?? "another server", expiresAt: holder?.lease_expires_at ?? new Date() };
}

/**
 * Waits for the lease, polling until `waitMs` has passed; SessionLeasedError
 * when another server keeps it. `stop` ends the wait at once (the server is
 * closing): SessionsClosedError, and no try is made after it (a lease the try
 * in flight took is returned, for the caller to let go).
 */
export async function acquireLease(
  db: Queryable,
  request: { sessionKey: string; variant: string; owner: string; leaseMs: number; waitMs: number; pollMs: number },
  stop?: AbortSignal,
): Promise<Lease> {
  // A monotonic clock: a stepped wall clock must neither end the wait at once nor stretch it.
  const deadline = performance.now() + request.waitMs;
  for (;;) {
    if (stop?.aborted === true) throw new SessionsClosedError(request.sessionKey);
    const result = await tryAcquireLease(db, request);
    if ("token" in result) return result;
    if (performance.now() >= deadline) throw new SessionLeasedError(request.sessionKey, result.owner, result.expiresAt);
    await pause(request.pollMs, stop);
  }
}

/** Resolves after `ms`, or at once when `stop` is (or becomes) aborted. */
function pause(ms: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (stop?.aborted === true) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      stop?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop?.addEventListener("abort", done, { once: true });
  });
}

/** Extends the lease; false when this host lost it (the token moved on). */
export async function renewLease(db: Queryable, lease: Lease, leaseMs: number): Promise<boolean> {
  const renewed = await db.query(
    "update gamma_sessions set lease_expires_at = now() + $3 * interval '1 millisecond' where session_key = $1 and lease_token = $2 and lease_owner = $4",
    [lease.sessionKey, lease.token, leaseMs, lease.owner],
  );
  return renewed.rowCount === 1;
}

/**
 * Lets the lease go at once, so another server can take the session over
 * without waiting. The token stays (the next host's is one more); the owner
 * goes, and the fence checks both, so nothing of this host's is written after it.
 */
export async function releaseLease(db: Queryable, lease: Lease): Promise<void> {
  await db.query("update gamma_sessions set lease_owner = null, lease_expires_at = now() where session_key = $1 and lease_token = $2 and lease_owner = $3", fenceValues(lease));
}

/**
 * The fencing every write starts with, as a common table expression: the
 * session's row, locked for share, only while this host holds it with this
 * token (a released lease keeps its token but has no owner). A takeover or a
 * release updates the row, so it waits for a write in progress, and a write
 * that starts after it finds no row and changes nothing. Its parameters are
 * `fenceValues(lease)`: $1 to $3 of the statement.
 */
export const FENCE = "fence as (select session_key from gamma_sessions where session_key = $1 and lease_token = $2 and lease_owner = $3 for share)";

/**
 * The fence of a state write: as {@link FENCE}, and only while the session's
 * snapshot is older than the first revision written (`$n`). Records up to
 * the snapshot's revision are deleted when it is written, so the unique key
 * on (session, revision) no longer stops a second writer on the same lease
 * that is behind: this does.
 */
export function stateFence(firstRevision: `$${number}`): string {
  return `fence as (select session_key from gamma_sessions where session_key = $1 and lease_token = $2 and lease_owner = $3 and snapshot_revision < ${firstRevision} for share)`;
}

/** The fence's parameters, $1 to $3: the session, the lease's token, its owner. */
export function fenceValues(lease: Lease): [string, number, string] {
  return [lease.sessionKey, lease.token, lease.owner];
}
