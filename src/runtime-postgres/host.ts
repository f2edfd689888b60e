/**
 * A server's sessions in PostgreSQL: `PostgresSessions` opens a session on
 * this server (its lease, its state, its transcript, the events published for
 * it while nobody hosted it), keeps the lease renewed, routes the events other
 * services publish through `routeUpdate`, and lets the session go on dispose.
 * One per server process; it holds one pool connection to LISTEN, and keeps
 * the process running until close() (while the database is away too).
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import { InjectionsNotDefinedError, type SessionProtocolController } from "../runtime/controller.js";
import { InjectionRejectedError } from "../runtime/injections/envelope.js";
import { SessionDisposedError } from "../runtime/state/errors.js";
import type { GammaAgent, GammaAgentOptions, GammaSession, GammaSessionOptions, TranscriptFeed } from "../runtime/pi-adapter.js";
import { expectFunction, expectObject } from "../protocol/arguments.js";
import { messageOf } from "../protocol/error-message.js";
import { isThenable, swallowRejection } from "../protocol/hook-answers.js";
import { boundedPool, expectPool, type Pool } from "./database.js";
import { DatabaseReadOnlyError, LeaseLostError, LeaseNotReleasedError, LeaseUnconfirmedError, readOnlyAware, SessionsClosedError, type HostedPath } from "./errors.js";
import { EVENTS_PER_PASS, markRefused, markRouted, sessionKeyProblem, unroutedEventsOf, wellFormed, type PublishedEvent } from "./events.js";
import { acquireLease, releaseLease, renewLease, type Lease } from "./lease.js";
import { listenForEvents, type EventListener } from "./listener.js";
import { checkSchema } from "./migrate.js";
import { PostgresStateStore } from "./state-store.js";
import { agentMessagesOf, checkTranscriptPath, loadTranscript, loadTranscriptHead, TranscriptWriter } from "./transcript.js";
import { WakeUps } from "./wake-ups.js";

export interface PostgresSessionsOptions {
  pool: Pool;
  /**
   * This server's name in the lease table (default: host name and process id).
   * A label: the lease's owner is this name and a token of this start
   * (`<hostId>#<6 hex digits>`), so another process, or this one restarted,
   * never takes a lease this one holds, whatever name it was given.
   */
  hostId?: string;
  /** How long a lease lasts unless renewed; renewed every third of it. 150 ms to 2,147,483,647 ms (the longest a Node timer waits); default 15,000 ms. */
  leaseMs?: number;
  /** How long opening a session waits for another server's lease to expire: 0 (not at all) or more, finite. Default: the lease and one second. */
  waitForLeaseMs?: number;
  /**
   * How long one database operation of a session may take, checking out a
   * connection included (each statement of a transaction gets as long): a
   * database that accepts connections and never answers fails the operation
   * after it, so a run, dispose() and close() never wait for ever. A write it
   * fails stops the session (StateWriteFailedError; its outcome is unknown
   * once the statement went out, except a statement before a transaction's
   * commit: rolled back, nothing stored); a lease renewal gets as long, or
   * what is left of the lease when that is longer. 100 to 2,147,483,647 ms;
   * default 10,000 ms.
   */
  databaseTimeoutMs?: number;
  /** An event the session refused (malformed, or a kind its artifacts do not define): stored with the reason, and told here. An exception the hook throws (or a promise it rejects) is told to onError ("route"). */
  onEventRefused?: (refusal: { sessionKey: string; eventId: string; error: Error }) => unknown;
  /** A failure outside any call the host awaits: the listener's connection, a lease renewal (each one that fails, or is still unanswered when the next is due), routing. (A write that stops the session is told by its state_write_failed event and the call it fails, not here.) An exception it throws (or a promise it rejects) is dropped: it would end the process. */
  onError?: (error: unknown, during: "listen" | "renew" | "route") => unknown;
}

type Source = { artifacts: LoadedArtifacts };
/** What opening an Agent takes: createGammaAgent's options, the store and transcript aside (they are the database's), and the session's key. */
export type HostedAgentOptions = Omit<Extract<GammaAgentOptions, Source>, "store" | "messages"> & { sessionKey: string };
/** What opening an AgentSession takes: createGammaSession's options, the store and session manager aside, and the session's key. */
export type HostedSessionOptions = Omit<Extract<GammaSessionOptions, Source>, "store" | "sessionManager"> & { sessionKey: string };

/** A session this server hosts. `dispose` waits for its last writes and lets the lease go (LeaseNotReleasedError when the database did not let it). */
export interface Hosted {
  readonly sessionKey: string;
  readonly lease: Readonly<Lease>;
  readonly controller: SessionProtocolController;
  /** Stores the transcript's new rows now (after a compaction or a reload the host made while idle). */
  syncTranscript(): Promise<void>;
  /** Routes the session's unrouted events now (the listener does it on every wake-up). */
  catchUp(): Promise<void>;
  dispose(): Promise<void>;
}

export type HostedAgent = Hosted & Omit<GammaAgent, "dispose">;
export type HostedSession = Hosted & Omit<GammaSession, "dispose">;

const DEFAULT_LEASE_MS = 15_000;
const DEFAULT_DATABASE_TIMEOUT_MS = 10_000;
const MIN_DATABASE_TIMEOUT_MS = 100;
/** The shortest lease: renewed every third of it, no more often than every 50 ms. */
const MIN_LEASE_MS = 150;
/** The longest lease: its renewal timer, and Node's, waits at most 2^31 - 1 ms. */
const MAX_LEASE_MS = 2_147_483_647;

/** Refuses settings that would fail every open, or quietly weaken the lease: the option named, with the values it takes. */
function checkOptions(options: PostgresSessionsOptions): void {
  expectObject(options, "PostgresSessions.start options", "an object such as { pool }");
  expectPool(options.pool, "pool");
  if (options.onEventRefused !== undefined) expectFunction(options.onEventRefused, "onEventRefused");
  if (options.onError !== undefined) expectFunction(options.onError, "onError");
  // The listener keeps one connection for the server's lifetime: a pool of one would leave none for a session, which would wait forever.
  const max = (options.pool as { options?: { max?: unknown } }).options?.max;
  if (typeof max === "number" && max < 2) {
    throw new RangeError(`Unexpected pool of ${max} connection, expected at least 2: the listener keeps one for the server's lifetime (size the pool for your sessions plus one)`);
  }
  const { hostId, leaseMs, waitForLeaseMs, databaseTimeoutMs } = options;
  if (hostId !== undefined && (typeof hostId !== "string" || hostId.length === 0 || hostId.length > 200 || hostId.includes("\u0000") || !wellFormed(hostId))) {
    throw new RangeError(`Unexpected hostId ${shown(hostId)}, expected this server's name: 1 to 200 characters, no NUL, well-formed Unicode`);
  }
  if (leaseMs !== undefined && (typeof leaseMs !== "number" || !(leaseMs >= MIN_LEASE_MS && leaseMs <= MAX_LEASE_MS))) {
    throw new RangeError(`Unexpected leaseMs ${shown(leaseMs)}, expected a number of milliseconds from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}`);
  }
  if (databaseTimeoutMs !== undefined && (typeof databaseTimeoutMs !== "number" || !(databaseTimeoutMs >= MIN_DATABASE_TIMEOUT_MS && databaseTimeoutMs <= MAX_LEASE_MS))) {
    throw new RangeError(`Unexpected databaseTimeoutMs ${shown(databaseTimeoutMs)}, expected a number of milliseconds from ${MIN_DATABASE_TIMEOUT_MS} to ${MAX_LEASE_MS}`);
  }
  if (waitForLeaseMs !== undefined && (typeof waitForLeaseMs !== "number" || !(waitForLeaseMs >= 0 && Number.isFinite(waitForLeaseMs)))) {
    throw new RangeError(`Unexpected waitForLeaseMs ${shown(waitForLeaseMs)}, expected a finite number of milliseconds, 0 (do not wait) or more`);
  }
}

/** How often a lease is renewed: every third of it, no more often than every 50 ms. */
function renewalInterval(leaseMs: number): number {
  return Math.max(50, Math.floor(leaseMs / 3));
}

/** A setting's value as the error shows it: NaN and Infinity as themselves, a string quoted. */
function shown(value: unknown): string {
  return typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
}

/**
 * Pi, loaded when a session is opened, not when this module is: a producer
 * (`publishUpdate`) and a migration need no Pi, and importing this entry point
 * must not fail where Pi is not installed.
 */
function piAdapter(): Promise<typeof import("../runtime/pi-adapter.js")> {
  return import("../runtime/pi-adapter.js");
}

export class PostgresSessions {
  readonly hostId: string;
  readonly leaseMs: number;
  /** How long one database operation may take (databaseTimeoutMs). */
  readonly databaseTimeoutMs: number;
  /** The pool with every operation bounded by databaseTimeoutMs. */
  readonly #db: Pool;
  /** The owner of every lease this server takes: its hostId and a token of this start. */
  private readonly leaseOwner: string;
  /** Aborted when close() begins: an open still waiting for another server's lease stops waiting. */
  private readonly closed = new AbortController();
  private readonly hosted = new Map<string, HostedState>();
  private listener: EventListener | undefined;
  /** Set when close() begins: an open still on its way lets its session go, and a later one is refused. */
  private closing = false;
  /** Opens on their way, by session key: close() waits for them, and a second open of a key is refused while one is on its way. */
  private readonly opening = new Map<string, Promise<unknown>>();
  /** Sessions whose dispose() is on its way, by key: an open of the key on this server, and close(), wait for it to let the lease go. */
  private readonly disposing = new Map<string, Promise<void>>();
  /** @internal Notifications, coalesced: the sessions woken together are routed with one select. */
  readonly wakeUps: WakeUps;

  private constructor(private readonly options: PostgresSessionsOptions) {
    this.hostId = options.hostId ?? `${hostname()}:${process.pid}`;
    this.leaseOwner = `${this.hostId}#${randomBytes(3).toString("hex")}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.databaseTimeoutMs = options.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
    this.#db = boundedPool(options.pool, this.databaseTimeoutMs);
    this.wakeUps = new WakeUps(this.#db, (sessionKey) => this.hosted.get(sessionKey));
  }

  /** Checks the schema is current and starts listening for published events. */
  static async start(options: PostgresSessionsOptions): Promise<PostgresSessions> {
    checkOptions(options);
    const db = boundedPool(options.pool, options.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS);
    await checkSchema(db);
    // A standby or a read-only default would accept the start and fail every session at its first write.
    const readOnly = await db.query<{ read_only: string }>("select current_setting('transaction_read_only') as read_only");
    if (readOnly.rows[0]?.read_only === "on") throw new DatabaseReadOnlyError();
    const sessions = new PostgresSessions(options);
    sessions.listener = await listenForEvents(options.pool, sessions.databaseTimeoutMs, renewalInterval(sessions.leaseMs), {
      onWake: (sessionKey) => sessions.wakeUps.add(sessionKey),
      onReconnect: () => {
        for (const hosted of sessions.hosted.values()) hosted.wake();
      },
      onError: (error) => sessions.report(error, "listen"),
    });
    return sessions;
  }

  /** The sessions this server hosts now. */
  get sessionKeys(): string[] {
    return [...this.hosted.keys()].sort();
  }

  /** Opens a session on the low-level Agent path: its lease, state, message list and pending events. */
  async openAgent(options: HostedAgentOptions): Promise<HostedAgent> {
    return this.open(options, "openAgent", async (store, entries) => {
      const { agentTranscriptFeed, openGammaAgent } = await piAdapter();
      const { sessionKey: _key, ...rest } = options;
      const gamma = await openGammaAgent({ ...rest, store, messages: agentMessagesOf(entries, options.sessionKey) as NonNullable<GammaAgentOptions["messages"]> });
      return { gamma, transcript: agentTranscriptFeed(gamma.agent, entries.length === 0) };
    });
  }

  /** Opens a session on the AgentSession path: its lease, state, session entries and pending events. */
  async openSession(options: HostedSessionOptions): Promise<HostedSession> {
    return this.open(options, "openSession", async (store, entries) => {
      const { createGammaSession, sessionManagerFromEntries, sessionTranscriptFeed } = await piAdapter();
      const { sessionKey: _key, ...rest } = options;
      const sessionManager = await sessionManagerFromEntries(options.cwd, entries);
      const gamma = await createGammaSession({ ...rest, store, sessionManager });
      return { gamma, transcript: sessionTranscriptFeed(gamma.session, entries.length) };
    });
  }

  /**
   * Lets every hosted session go and stops listening. An open still on its
   * way when close() begins lets its session go too (it rejects with
   * SessionsClosedError; one still waiting for another server's lease stops
   * waiting at once), and so does every later open: no lease is left held by
   * a server that no longer renews it. A dispose() the host started and did
   * not wait for is waited for too, so the pool may be ended once this returns.
   * While the database does not answer, each step gives up after
   * databaseTimeoutMs: close() settles, and rejects with what it could not do
   * (LeaseNotReleasedError for each lease it could not let go; an
   * AggregateError when there are several).
   */
  async close(): Promise<void> {
    this.closing = true;
    this.closed.abort();
    await Promise.allSettled([...this.opening.values()]);
    const disposed = await Promise.allSettled([...this.hosted.values()].map((hosted) => hosted.handle.dispose()));
    // A dispose the host started and did not wait for lets its lease go before the pool may be ended.
    await Promise.allSettled([...this.disposing.values()]);
    await this.listener?.close();
    this.listener = undefined;
    const failures = disposed.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `Unexpected failure letting ${failures.length} sessions' leases go, expected them released: their leases run out by themselves`);
  }

  private async open<G extends GammaAgent | GammaSession>(
    options: { sessionKey: string; variant: string },
    path: HostedPath,
    create: (store: PostgresStateStore, entries: unknown[]) => Promise<{ gamma: G; transcript: TranscriptFeed }>,
  ): Promise<Hosted & Omit<G, "dispose">> {
    const given: unknown = options;
    expectObject(given, `${path} options`, `an object such as { sessionKey: "deck-42", variant: "base", ... }`);
    const keyProblem = sessionKeyProblem(options.sessionKey);
    if (keyProblem !== undefined) throw new RangeError(keyProblem);
    if (this.closing) throw new SessionsClosedError(options.sessionKey);
    // Checked and reserved in one synchronous step: two opens of one key issued together (a retried request)
    // cannot both pass, and the second is refused as it is once the first is hosted, leaving the first alone.
    if (this.hosted.has(options.sessionKey) || this.opening.has(options.sessionKey)) {
      throw new Error(`Unexpected second open of session ${options.sessionKey} on this server, expected it disposed first`);
    }
    // The database's read-only refusal, wherever in the open it comes, is said as start() says it.
    const opening = this.openHosted(options, path, create).catch((error: unknown) => {
      throw readOnlyAware(error);
    });
    this.opening.set(options.sessionKey, opening);
    try {
      return await opening;
    } finally {
      if (this.opening.get(options.sessionKey) === opening) this.opening.delete(options.sessionKey);
    }
  }

  private async openHosted<G extends GammaAgent | GammaSession>(
    options: { sessionKey: string; variant: string },
    path: HostedPath,
    create: (store: PostgresStateStore, entries: unknown[]) => Promise<{ gamma: G; transcript: TranscriptFeed }>,
  ): Promise<Hosted & Omit<G, "dispose">> {
    const pool = this.#db;
    // The key's previous session on this server, disposed but still storing its last writes: the lease is taken
    // once it let the lease go, as another server would (this server could take its own lease at once, and would
    // fence out those writes).
    await this.disposing.get(options.sessionKey)?.catch(() => {});
    // A transcript the other path wrote is refused before the lease is taken (its first row is never replaced),
    // so a server hosting the session is not waited for, and nothing of the session is touched.
    checkTranscriptPath(await loadTranscriptHead(pool, options.sessionKey), options.sessionKey, path);
    // When the try that took the lease was sent: the lease holds until then plus leaseMs (an earlier try may have waited for another server's).
    let asked = performance.now();
    const trying = {
      query: ((...args: Parameters<Pool["query"]>) => {
        asked = performance.now();
        return pool.query(...args);
      }) as Pool["query"],
    };
    const lease = await acquireLease(
      trying,
      {
        sessionKey: options.sessionKey,
        variant: options.variant,
        owner: this.leaseOwner,
        leaseMs: this.leaseMs,
        waitMs: this.options.waitForLeaseMs ?? this.leaseMs + 1000,
        pollMs: Math.max(20, Math.min(250, Math.floor(this.leaseMs / 20))),
      },
      this.closed.signal,
    );
    const store = new PostgresStateStore(pool, lease);
    let created: { gamma: G; transcript: TranscriptFeed } | undefined;
    let state: HostedState | undefined;
    try {
      // Taken as close() began: let go before anything is loaded.
      if (this.closing) throw new SessionsClosedError(options.sessionKey);
      const entries = await loadTranscript(pool, options.sessionKey);
      // Checked again under the lease: another server may have written the first row since.
      checkTranscriptPath(entries, options.sessionKey, path);
      created = await create(store, entries);
      state = new HostedState(this, pool, this.options.pool, lease, store, created.gamma, new TranscriptWriter(pool, lease, entries.length), created.transcript, asked);
      this.hosted.set(options.sessionKey, state);
      await state.start();
      if (this.closing) throw new SessionsClosedError(options.sessionKey);
      return Object.assign(Object.create(null) as object, created.gamma, state.handle) as Hosted & Omit<G, "dispose">;
    } catch (error) {
      if (state !== undefined) {
        // Its renewal, its transcript watch and its hosted entry (this one's only) stop, and the lease goes.
        await state.handle.dispose().catch(() => {});
      } else {
        created?.gamma.dispose();
        await releaseLease(pool, lease).catch(() => {});
      }
      throw error;
    }
  }

  /**
   * @internal A session's dispose began: it is no longer hosted (its own entry
   * only: never another session's under the same key), and an open of its key,
   * and close(), wait until `disposed` settles.
   */
  forget(session: Hosted, disposed: Promise<void>): void {
    const { sessionKey } = session;
    if (this.hosted.get(sessionKey)?.handle === session) {
      this.hosted.delete(sessionKey);
      this.wakeUps.forget(sessionKey);
    }
    this.disposing.set(sessionKey, disposed);
    const done = (): void => {
      if (this.disposing.get(sessionKey) === disposed) this.disposing.delete(sessionKey);
    };
    disposed.then(done, done);
  }

  /**
   * @internal Tells the host's onError. Called from timers and the listener,
   * where an exception (or a rejected promise) the hook lets out would end
   * the process and every session on it: one is dropped, since the hook is
   * the only way to tell the host of anything here.
   */
  report(error: unknown, during: "listen" | "renew" | "route"): void {
    try {
      swallowRejection(this.options.onError?.(error, during));
    } catch {
      // The hook that tells of failures failed: nothing is left to tell it with.
    }
  }

  /**
   * @internal Tells the host's onEventRefused. The event is refused and stored
   * so whatever the hook does: an exception it lets out is told to onError
   * ("route"), and the routing pass goes on with the next events.
   */
  refused(sessionKey: string, eventId: string, error: Error): void {
    const tell = (failure: unknown): void =>
      this.report(new Error(`Unexpected exception from onEventRefused for event ${eventId} of session ${sessionKey} (${messageOf(failure)}), expected none: the event stays refused, and the session's later events are routed`, { cause: failure }), "route");
    try {
      const returned: unknown = this.options.onEventRefused?.({ sessionKey, eventId, error });
      if (isThenable(returned)) returned.then(undefined, tell);
    } catch (failure) {
      tell(failure);
    }
  }
}

/** A renewal's outcome: the lease taken over, or the failure that left it unconfirmed (neither when the database confirmed it). */
interface Renewal {
  lost?: true;
  error?: unknown;
}

/** What a session stopped for an unconfirmed lease failed to write: its transcript's new rows, not sent. */
const HELD_BACK = "the session's transcript (held back, nothing sent: the lease is confirmed first)";

/** One hosted session: its lease renewal, transcript writes, event routing and release. */
class HostedState {
  readonly handle: Hosted;
  private renewal: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private routing: Promise<void> = Promise.resolve();
  private previousSync: Promise<void> = Promise.resolve();
  private routeAgain = false;
  private routingNow = false;
  /** Set when dispose starts: no event is routed and no change is made from then on. */
  private closing = false;
  /** Set as dispose lets the lease go: a renewal that finds it gone after that is no loss to report. */
  private releasing = false;
  /** The renewal on its way, if one is: no other is sent until it settles. */
  private renewing: Promise<Renewal> | undefined;
  /** When (performance.now()) the last renewal the database confirmed was sent, or the lease was asked for: it holds until then plus the lease. */
  private confirmedAt: number;
  private disposed: Promise<void> | undefined;
  /** Events in a form another version wrote that the host was told of: told once, not on every pass. */
  private readonly toldForeign = new Set<string>();

  constructor(
    private readonly sessions: PostgresSessions,
    private readonly pool: Pool,
    /** The host's own pool: each renewal is bounded by what it may take (see renewNow). */
    private readonly unbounded: Pool,
    private readonly lease: Lease,
    private readonly store: PostgresStateStore,
    private readonly gamma: GammaAgent | GammaSession,
    private readonly writer: TranscriptWriter,
    private readonly transcript: TranscriptFeed,
    asked: number,
  ) {
    this.confirmedAt = asked;
    const controller = gamma.controller;
    this.handle = {
      sessionKey: lease.sessionKey,
      lease,
      controller,
      syncTranscript: () => (this.closing ? Promise.reject(new SessionDisposedError("transcript write")) : this.sync()),
      catchUp: () => this.wake(),
      dispose: () => this.dispose(),
    };
  }

  async start(): Promise<void> {
    this.unwatch = this.transcript.watch(
      () => this.sync(),
      (error) => {
        // The write that stopped the session was told already (state_write_failed, and the call it failed); the rows Pi appends after it are no news.
        if (!this.toldAlready(error)) this.sessions.report(error, "route");
      },
    );
    await this.sync();
    this.renewal = setInterval(() => this.renew(), renewalInterval(this.sessions.leaseMs));
    await this.wake();
  }

  /**
   * One renewal at a time: while one is on its way (the database does not
   * answer), the next is not sent, and the host is told it is late; a renewal
   * that fails is told too, every time.
   */
  private renew(): void {
    if (this.renewing !== undefined) {
      this.sessions.report(new Error(`Unexpected lease renewal of session ${this.lease.sessionKey} still unanswered when the next is due, expected it answered: the next is sent once it settles (databaseTimeoutMs, or what is left of the lease when that is longer)`), "renew");
      return;
    }
    void this.renewNow().then((renewal) => {
      if (renewal.error !== undefined && !this.closing) this.sessions.report(renewal.error, "renew");
    });
  }

  /**
   * Sends a renewal, or gives the one on its way. It gets databaseTimeoutMs,
   * or what is left of the lease when that is longer, so a database that
   * answers as slowly as a write still keeps the lease. A renewal the
   * database confirmed holds the lease until the lease has passed since it
   * was sent (however late its answer came: the token did not move meanwhile).
   * A lease found taken over stops the session's writes, and the host is told.
   */
  private renewNow(): Promise<Renewal> {
    if (this.renewing !== undefined) return this.renewing;
    const sent = performance.now();
    const left = this.sessions.leaseMs - (sent - this.confirmedAt);
    const bounded = boundedPool(this.unbounded, Math.max(this.sessions.databaseTimeoutMs, Math.floor(left)));
    const renewing = renewLease(bounded, this.lease, this.sessions.leaseMs).then(
      (held): Renewal => {
        if (held) {
          this.confirmedAt = Math.max(this.confirmedAt, sent);
          return {};
        }
        // Let go by this session's own dispose while the renewal was on its way: not taken over.
        if (this.releasing) return {};
        // Taken over: nothing more is written, and the session's next write stops it.
        if (!this.store.lost) {
          this.store.lost = true;
          this.stopRenewing();
          this.sessions.report(new Error(`Lease of session ${this.lease.sessionKey} lost to another server`), "renew");
        }
        return { lost: true };
      },
      (error: unknown): Renewal => ({ error: readOnlyAware(error) }),
    );
    this.renewing = renewing;
    void renewing.then(() => {
      if (this.renewing === renewing) this.renewing = undefined;
    });
    return renewing;
  }

  /** How long since the lease was last confirmed, when that is the lease or more. */
  private unconfirmedFor(): number | undefined {
    const since = performance.now() - this.confirmedAt;
    return since >= this.sessions.leaseMs ? since : undefined;
  }

  /**
   * Stores the transcript's new rows, after every state change made before
   * them: a row never gets ahead of the change it follows from. (An event's
   * message stored while the record that routed it was still on its way
   * would, after a crash, leave the event unrouted and its message in the
   * transcript: the next host would deliver it a second time.) The points
   * where the transcript is stored come before every model call: when the
   * lease has not been confirmed for its length (the database was away), one
   * renewal is awaited first, and only when that does not confirm it (another
   * server may host the session by then) is the session stopped, nothing
   * written: LeaseLostError when the lease was taken over,
   * LeaseUnconfirmedError otherwise. A lost lease or a database failure stops
   * the session as a refused state write does, and rejects with its
   * StateWriteFailedError.
   */
  sync(): Promise<void> {
    const controller = this.gamma.controller;
    if (controller.failure !== undefined) return Promise.reject(controller.failure);
    if (this.closing || this.unconfirmedFor() === undefined) return this.storeRows();
    return this.renewNow().then((renewal) => {
      if (controller.failure !== undefined) throw controller.failure;
      if (renewal.lost === true) throw controller.stopOnStoreFailure(new LeaseLostError(this.lease.sessionKey, this.lease.token), HELD_BACK);
      const since = this.unconfirmedFor();
      if (since !== undefined && !this.closing) throw controller.stopOnStoreFailure(new LeaseUnconfirmedError(this.lease.sessionKey, Math.floor(since), renewal.error), HELD_BACK);
      return this.storeRows();
    });
  }

  /** Takes the transcript's new rows and stores them once the state changes before them are. */
  private storeRows(): Promise<void> {
    const controller = this.gamma.controller;
    const rows = this.transcript.take();
    const flushed = controller.flush();
    // Rows are appended in the order they were taken, whichever flush settles first.
    const stored = this.previousSync.then(() => flushed).then(() => this.writer.append(rows));
    this.previousSync = stored.catch(() => {});
    return stored.catch((error: unknown) => {
      throw controller.stopOnStoreFailure(error, "the session's transcript");
    });
  }

  /** True while a routing pass runs. */
  get busy(): boolean {
    return this.routingNow;
  }

  /**
   * Routes unrouted events; wake-ups during a pass ask for one more pass, never
   * a concurrent one. `selected` is the session's share of a select made for
   * several sessions at once, issued after this pass was claimed.
   */
  wake(selected?: Promise<PublishedEvent[]>): Promise<void> {
    if (this.routingNow) {
      this.routeAgain = true;
      return this.routing;
    }
    this.routingNow = true;
    this.routing = (async () => {
      try {
        let first = selected;
        do {
          this.routeAgain = false;
          await this.routeUnrouted(first);
          first = undefined;
        } while (this.routeAgain);
      } finally {
        this.routingNow = false;
        this.sessions.wakeUps.soon();
      }
    })();
    // A routing write that stopped the session was told already (state_write_failed, and the calls it fails).
    this.routing.catch((error: unknown) => {
      if (!this.toldAlready(error)) this.sessions.report(error, "route");
    });
    return this.routing;
  }

  /**
   * Whether an error is the write that stopped the session, told already by
   * state_write_failed and the call it failed: the controller's failure, or the
   * store's own error it wraps, which the write's caller may rethrow as it came.
   */
  private toldAlready(error: unknown): boolean {
    const failure = this.gamma.controller.failure;
    return failure !== undefined && (error === failure || error === failure.cause);
  }

  private async routeUnrouted(selected?: Promise<PublishedEvent[]>): Promise<void> {
    const controller = this.gamma.controller;
    let first = selected;
    for (;;) {
      if (controller.failure !== undefined || this.store.lost || this.closing) return;
      const sessionKey = this.lease.sessionKey;
      const events = await (first ?? unroutedEventsOf(this.pool, [sessionKey]).then((bySession) => bySession.get(sessionKey) ?? []));
      first = undefined;
      // Disposed meanwhile: the events stay unrouted for the session's next host.
      if (events.length === 0 || this.closing) return;
      const duplicates: string[] = [];
      let leftUnrouted = 0;
      for (const event of events) {
        if (event.foreign !== undefined) {
          // Another version's event: left for a server that reads it, and told once while this server hosts the session.
          leftUnrouted++;
          if (!this.toldForeign.has(event.eventId)) {
            this.toldForeign.add(event.eventId);
            this.sessions.report(event.foreign, "route");
          }
          continue;
        }
        try {
          if (event.unreadable !== undefined) throw new InjectionRejectedError(event.unreadable.field, event.unreadable.reason);
          if (controller.routeUpdate(event.payload).outcome === "duplicate") duplicates.push(event.eventId);
        } catch (error) {
          if (!(error instanceof InjectionRejectedError) && !(error instanceof InjectionsNotDefinedError)) throw error;
          await markRefused(this.pool, this.lease, event.eventId, error.message);
          this.sessions.refused(this.lease.sessionKey, event.eventId, error);
        }
      }
      // The records that route the others mark their rows when they are stored; an event the session had
      // processed already writes no record, so it is marked once everything before it is stored.
      await controller.flush();
      await markRouted(this.pool, this.lease, duplicates);
      // A full page of events this server leaves unrouted would be selected again as it is.
      if (events.length < EVENTS_PER_PASS || leftUnrouted === events.length) return;
    }
  }

  private stopRenewing(): void {
    if (this.renewal !== undefined) clearInterval(this.renewal);
    this.renewal = undefined;
  }

  /**
   * The run stops and the session takes no change from the first step on
   * (the adapter's dispose aborts the run and refuses later changes), so what
   * it stores is exactly what it did before: those writes and the transcript
   * rows Pi wrote until then are awaited, then the lease goes, also after a
   * failed write: the release waits for any fenced write still running on
   * the server (it updates the row those writes lock) and fences out every
   * later one, so the next host loads exactly what the database holds. Only a
   * lease already lost is not touched. While the database does not answer,
   * each write gives up after databaseTimeoutMs, so dispose settles; when the
   * lease could not be let go, it rejects with LeaseNotReleasedError (the lease
   * then runs out by itself).
   */
  private dispose(): Promise<void> {
    if (this.disposed !== undefined) return this.disposed;
    let settle: (outcome: Promise<void>) => void = () => {};
    this.disposed = new Promise<void>((resolve) => (settle = resolve));
    this.closing = true;
    this.stopRenewing();
    // Before the run is aborted: whatever the host does on hearing of it already finds the session gone.
    this.sessions.forget(this.handle, this.disposed);
    settle(this.letGo());
    return this.disposed;
  }

  private async letGo(): Promise<void> {
    this.gamma.dispose();
    this.unwatch?.();
    await this.routing.catch(() => {});
    await this.sync().catch(() => {});
    let notReleased: LeaseNotReleasedError | undefined;
    if (!this.store.lost) {
      this.releasing = true;
      await releaseLease(this.pool, this.lease).catch((error: unknown) => {
        notReleased = new LeaseNotReleasedError(this.lease.sessionKey, this.sessions.leaseMs, readOnlyAware(error));
      });
    }
    // Whatever still reaches the store is refused here too, before a statement is sent.
    this.store.lost = true;
    if (notReleased !== undefined) throw notReleased;
  }
}
