/**
 * The wake-ups a server's listener receives, coalesced: the sessions woken
 * since the last pass are routed together, their unrouted events selected in
 * one round trip. A session still routing waits in the set until its pass
 * ends, so its events are selected once, after what it routed is stored.
 */
import type { Pool } from "./database.js";
import { unroutedEventsOf, type PublishedEvent } from "./events.js";

/** A hosted session as the wake-ups see it. */
export interface Routable {
  /** True while a routing pass runs. */
  readonly busy: boolean;
  /** Starts a routing pass; `selected` is the session's share of a select made for several sessions at once. */
  wake(selected?: Promise<PublishedEvent[]>): Promise<void>;
}

export class WakeUps {
  private readonly woken = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly hosted: (sessionKey: string) => Routable | undefined,
  ) {}

  /** A notification for a session: routed in the next pass, after the notifications that arrived with it. */
  add(sessionKey: string): void {
    if (this.hosted(sessionKey) === undefined) return;
    this.woken.add(sessionKey);
    this.soon();
  }

  /** The session is no longer hosted here. */
  forget(sessionKey: string): void {
    this.woken.delete(sessionKey);
  }

  /** Schedules a pass for the woken sessions (a session's pass ending calls it too, for the wake-ups it waited out). */
  soon(): void {
    if (this.scheduled || this.woken.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pass();
    });
  }

  private pass(): void {
    const idle: [string, Routable][] = [];
    for (const sessionKey of this.woken) {
      const session = this.hosted(sessionKey);
      if (session === undefined) this.woken.delete(sessionKey);
      else if (!session.busy) {
        this.woken.delete(sessionKey);
        idle.push([sessionKey, session]);
      }
    }
    if (idle.length === 0) return;
    // The select and every session's claim (its pass started) happen in one synchronous step: no other pass of it runs meanwhile.
    const selected = unroutedEventsOf(
      this.pool,
      idle.map(([sessionKey]) => sessionKey),
    );
    for (const [sessionKey, session] of idle) {
      const share = selected.then((bySession) => bySession.get(sessionKey) ?? []);
      // A pass that stops before reading its share (the session failed meanwhile) leaves no rejection unhandled.
      share.catch(() => {});
      void session.wake(share);
    }
  }
}
