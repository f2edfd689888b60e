/**
 * Runtime injections from other services (the workspace file service after a
 * save, a background job that finished, the live editor), through the
 * database: the producer stores the event and wakes the hosts in one
 * statement; the host that holds the session routes it through exactly the
 * path `controller.routeUpdate` takes in process. The table is the truth:
 * NOTIFY only wakes, so an event published while no server hosts the session,
 * or while a host is reconnecting, is routed when the session next opens or
 * the host catches up.
 */
import { acceptInjection, InjectionRejectedError } from "../runtime/injections/envelope.js";
import type { RuntimeInjection } from "../runtime/injections/types.js";
import { errorCode, expectQueryable, UNDEFINED_TABLE, type Pool, type Queryable } from "./database.js";
import { latestMigration } from "./migrate.js";
import { EventRejectedError, readOnlyAware, SchemaNotMigratedError, StoredFormatError } from "./errors.js";
import { FENCE, fenceValues, type Lease } from "./lease.js";
import { storedDocument, storedForm } from "./documents.js";

/** The channel hosts listen on; the payload is the session key. */
export const EVENTS_CHANNEL = "gamma_events";

/** The largest event a producer may publish, as stored JSON. */
export const MAX_EVENT_BYTES = 64 * 1024;

export interface PublishResult {
  /** False when an event with this id was published for the session before (nothing changed). */
  stored: boolean;
  injection: RuntimeInjection;
}

/**
 * Publishes a runtime injection for a session: checked like an in-process
 * event's envelope (EventRejectedError naming the field, or the size), stored
 * once per id, and the session's host woken, in one statement. Needs no Pi and
 * no session: `db` is a pool or a client, in a transaction of the caller's
 * when the event must commit with the caller's own change (NOTIFY is sent at
 * commit). Whether the session's artifacts define the kind is checked by the
 * host, which refuses the event there and records why.
 */
export async function publishUpdate(db: Queryable, sessionKey: string, update: unknown): Promise<PublishResult> {
  expectQueryable(db, "publishUpdate db");
  const keyProblem = sessionKeyProblem(sessionKey);
  if (keyProblem !== undefined) throw new EventRejectedError("sessionKey", keyProblem);
  let injection: RuntimeInjection;
  try {
    injection = acceptInjection(update);
  } catch (error) {
    if (error instanceof InjectionRejectedError) throw new EventRejectedError(error.field, error.message);
    throw error;
  }
  const payload = storedDocument(injection);
  const bytes = Buffer.byteLength(payload);
  if (bytes > MAX_EVENT_BYTES) throw new EventRejectedError("", `Unexpected event of ${bytes} bytes, expected at most ${MAX_EVENT_BYTES}: keep large content in the artifact and point at it (subject.ref, subject.path)`);
  let result: { rows: Array<{ stored: number }> };
  try {
    result = await db.query<{ stored: number }>(
      `with stored as (
         insert into gamma_events (session_key, event_id, payload) values ($1, $2, $3::jsonb)
         on conflict (session_key, event_id) do nothing
         returning 1
       )
       select (select count(*) from stored)::integer as stored, pg_notify($4, $1)`,
      [sessionKey, injection.id, JSON.stringify(payload), EVENTS_CHANNEL],
    );
  } catch (error) {
    // No events table: the first migration, which makes it, was never applied. Said as a server says it.
    if (errorCode(error) === UNDEFINED_TABLE) throw new SchemaNotMigratedError(0, latestMigration());
    // A standby, or a read-only default: said as the sessions say it (the statement's own text would name its SELECT).
    throw readOnlyAware(error);
  }
  return { stored: (result.rows[0]?.stored ?? 0) === 1, injection };
}

/**
 * Why a session key cannot be used, or undefined when it can. Servers and
 * producers check the same rule, so a session a server opens is one a
 * producer can reach. (A NUL is a character PostgreSQL's text refuses; a lone
 * surrogate is one node-postgres sends as U+FFFD, so two keys would name one
 * session, and its notifications would name neither.)
 */
export function sessionKeyProblem(sessionKey: unknown): string | undefined {
  if (typeof sessionKey !== "string" || sessionKey.length === 0 || sessionKey.length > 200 || sessionKey.includes("\u0000") || !wellFormed(sessionKey)) {
    return `Unexpected session key ${JSON.stringify(sessionKey)}, expected the session's key (1 to 200 characters, no NUL, well-formed Unicode: no lone surrogate)`;
  }
  return undefined;
}

/** A lone surrogate (`u` mode reads a surrogate pair as one code point, outside this class). */
const LONE_SURROGATE = /\p{Cs}/u;

/** True when `text` holds no lone surrogate (String.prototype.isWellFormed, which ES2023's types lack). */
export function wellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export interface PublishedEvent {
  eventId: string;
  payload: unknown;
  /**
   * Set when the stored row cannot be taken as an event (a row written by hand
   * or cut short): its payload is not JSON text, or names another id than the
   * row's event_id. Why (stored with the row as its refusal), and the field.
   */
  unreadable?: { field: string; reason: string };
  /**
   * Set when the payload is in a form another version of the package wrote:
   * not this server's to refuse. The event stays unrouted, for a server that
   * reads it, and the host is told (onError, "route").
   */
  foreign?: StoredFormatError;
}

/**
 * A stored event as the host reads it: a payload that does not parse, or whose
 * id is not the row's, is the event's refusal, not the routing pass's failure.
 * (The records that route an event mark its row by the payload's id: a row
 * under another id would be delivered and never marked, read again on every
 * pass.) A payload without an id is left to the envelope check, which names it.
 */
function publishedEvent(sessionKey: string, eventId: string, stored: unknown): PublishedEvent {
  const form = storedForm(stored);
  if ("broken" in form) {
    return { eventId, payload: undefined, unreadable: { field: "", reason: `Unexpected stored payload that is not JSON text (${form.broken}), expected an event as publishUpdate stores it` } };
  }
  if ("foreign" in form) return { eventId, payload: undefined, foreign: new StoredFormatError(sessionKey, `event ${JSON.stringify(eventId)} (gamma_events)`, form.foreign, "event") };
  const payload = form.document;
  const id = payload["id"];
  if (typeof id === "string" && id !== eventId) {
    return {
      eventId,
      payload,
      unreadable: { field: "/id", reason: `Unexpected payload id ${JSON.stringify(id)} in the row of event ${JSON.stringify(eventId)}, expected the row's event_id: an event is stored under its own id, as publishUpdate stores it` },
    };
  }
  return { eventId, payload };
}

/** Events one routing pass takes for a session at most; a full page means another pass follows. */
export const EVENTS_PER_PASS = 500;

/**
 * Several sessions' unrouted events in one round trip, each session's oldest
 * first and at most `limit` of them: what one wake-up pass routes for every
 * session woken since the last.
 */
export async function unroutedEventsOf(pool: Pool, sessionKeys: readonly string[], limit = EVENTS_PER_PASS): Promise<Map<string, PublishedEvent[]>> {
  const rows = await pool.query<{ session_key: string; event_id: string; payload: unknown }>({
    name: "gamma-prompt-unrouted-events-of",
    text: `select woken.session_key, e.event_id, e.payload
       from unnest($1::text[]) as woken(session_key)
       cross join lateral (
         select event_id, payload, seq from gamma_events
         where session_key = woken.session_key and routed_at is null and refused_at is null
         order by seq limit $2
       ) e
       order by e.seq`,
    values: [sessionKeys, limit],
  });
  const bySession = new Map<string, PublishedEvent[]>(sessionKeys.map((key) => [key, []]));
  for (const row of rows.rows) bySession.get(row.session_key)?.push(publishedEvent(row.session_key, row.event_id, row.payload));
  return bySession;
}

/** Marks events routed that the session had processed already (a duplicate): no state record will. */
export async function markRouted(db: Queryable, lease: Lease, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(`with ${FENCE} update gamma_events e set routed_at = now() from fence where e.session_key = fence.session_key and e.event_id = any($4::text[]) and e.routed_at is null`, [
    ...fenceValues(lease),
    eventIds,
  ]);
}

/** Marks an event the session refused, with the reason, so it is not routed again and its producer can see why. */
export async function markRefused(db: Queryable, lease: Lease, eventId: string, reason: string): Promise<void> {
  await db.query(`with ${FENCE} update gamma_events e set refused_at = now(), refusal = $5 from fence where e.session_key = fence.session_key and e.event_id = $4`, [
    ...fenceValues(lease),
    eventId,
    reason,
  ]);
}
