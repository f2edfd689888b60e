/**
 * The host's wake-up line: one connection from the pool that LISTENs on the
 * events channel and calls `onWake(sessionKey)` for each notification. A
 * dropped connection is replaced (with a growing pause) and every hosted
 * session catches up (`onReconnect`), since notifications sent meanwhile are
 * gone; the table still holds the events. Until close(), the connection, or
 * the timer of the next try while it is lost, keeps the process running: a
 * process that only hosts sessions outlives a database restart.
 *
 * A connection can also go quiet without ending: a NAT or a load balancer that
 * forgets an idle connection, a partition that drops its packets. No
 * notification arrives, no error either, and the events published meanwhile
 * would wait unrouted until something else woke their sessions. So the
 * connection is checked (`select 1`, named in `pg_stat_activity` as the
 * listener's check) every `checkEveryMs`; one that does not
 * answer in `timeoutMs` is treated as dropped: told, replaced, and every
 * hosted session catches up. The check's traffic also keeps the connection
 * from looking idle to whatever forgets idle connections.
 */
import { connectWithin, DatabaseTimeoutError, within, type Pool, type PoolClient } from "./database.js";
import { ListenerUnansweredError } from "./errors.js";
import { EVENTS_CHANNEL } from "./events.js";

/** The check's statement; its comment tells an operator reading `pg_stat_activity` what the connection is. */
export const LISTENER_CHECK = "/* gamma-prompt listener check */ select 1";

/** A NOTIFY the LISTEN connection receives. */
interface Notification {
  channel: string;
  payload?: string;
}

/** A node-postgres client as the LISTEN connection watches it: the events it emits. */
type ListeningClient = PoolClient & {
  on(event: "notification" | "error" | "end", listener: (...args: never[]) => void): unknown;
  removeListener(event: "notification" | "error" | "end", listener: (...args: never[]) => void): unknown;
};

export interface EventListener {
  close(): Promise<void>;
}

/**
 * `timeoutMs` bounds each checkout, each LISTEN/UNLISTEN and each check: a
 * database that accepts connections and never answers fails the try (told,
 * and tried again) instead of holding it, and close() settles.
 */
export async function listenForEvents(
  pool: Pool,
  timeoutMs: number,
  checkEveryMs: number,
  handlers: { onWake(sessionKey: string): void; onReconnect(): void; onError(error: unknown): void },
): Promise<EventListener> {
  let client: ListeningClient | undefined;
  let closed = false;
  let pause = 100;
  let retry: NodeJS.Timeout | undefined;
  /** The check in flight, if any: a connection whose check is still unanswered is not checked again. */
  let checking: ListeningClient | undefined;

  const onNotification = (message: Notification): void => {
    if (message.channel === EVENTS_CHANNEL && message.payload !== undefined) handlers.onWake(message.payload);
  };
  const onError = (error: Error): void => onLost(error);
  const onEnd = (): void => onLost();
  /** The client goes back to the pool (or is destroyed, after an error) without this listener's handlers. */
  const detach = (from: ListeningClient): void => {
    from.removeListener("notification", onNotification);
    from.removeListener("error", onError);
    from.removeListener("end", onEnd);
  };
  /** A LISTEN or UNLISTEN's result, or DatabaseTimeoutError once timeoutMs has passed without one. */
  const statement = <T>(running: Promise<T>): Promise<T> => within(running, timeoutMs, () => new DatabaseTimeoutError(timeoutMs));
  /** UNLISTEN, then the client goes back to the pool; one that does not answer in time is discarded rather than given back. */
  const unlistenAndRelease = async (from: ListeningClient): Promise<void> => {
    const unlistened = await statement(from.query(`unlisten ${EVENTS_CHANNEL}`)).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    detach(from);
    from.release(unlistened);
  };
  const onLost = (error?: unknown): void => {
    if (client === undefined) return;
    const lost = client;
    client = undefined;
    detach(lost);
    lost.release(error instanceof Error ? error : new Error("listener connection ended"));
    if (error !== undefined) handlers.onError(error);
    schedule();
  };
  const connect = async (): Promise<void> => {
    const next = (await connectWithin(pool, timeoutMs)) as ListeningClient;
    next.on("notification", onNotification);
    next.on("error", onError);
    next.on("end", onEnd);
    try {
      await statement(next.query(`listen ${EVENTS_CHANNEL}`));
    } catch (error) {
      // The connection failed between checkout and LISTEN: the pool discards it rather than keep it checked out.
      detach(next);
      next.release(error instanceof Error ? error : new Error("listen failed"));
      throw error;
    }
    if (closed) {
      await unlistenAndRelease(next);
      return;
    }
    client = next;
    pause = 100;
  };
  /** A check that fails or goes unanswered for timeoutMs drops the connection it was sent on, if it is still the listener's. */
  const check = (): void => {
    const checked = client;
    if (checked === undefined || checking !== undefined) return;
    checking = checked;
    statement(checked.query(LISTENER_CHECK)).then(
      () => {
        checking = undefined;
      },
      (error: unknown) => {
        checking = undefined;
        if (client === checked) onLost(new ListenerUnansweredError(timeoutMs, error));
      },
    );
  };
  const checks = setInterval(check, checkEveryMs);
  // The connection, or the timer of the next try, keeps the process running; the checks alone do not.
  checks.unref();
  const schedule = (): void => {
    if (closed) return;
    retry = setTimeout(() => {
      connect().then(
        () => handlers.onReconnect(),
        (error: unknown) => {
          handlers.onError(error);
          pause = Math.min(pause * 2, 5000);
          schedule();
        },
      );
    }, pause);
  };

  try {
    await connect();
  } catch (error) {
    clearInterval(checks);
    throw error;
  }
  return {
    close: async () => {
      closed = true;
      clearInterval(checks);
      if (retry !== undefined) clearTimeout(retry);
      const open = client;
      client = undefined;
      if (open === undefined) return;
      await unlistenAndRelease(open);
    },
  };
}

