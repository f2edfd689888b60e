/**
 * What a session's transcript store needs from Pi: the rows Pi wrote since the
 * last look, and the points where Pi awaits (each message, a run's start and
 * end) to look at. On the Agent path the rows are the message list's changes
 * (each message appended, or the whole list when the host replaced it); on the
 * AgentSession path they are the session's entries, its header first.
 */
import type { Agent } from "@earendil-works/pi-agent-core";
import type { AgentSession } from "@earendil-works/pi-coding-agent";

export interface TranscriptFeed {
  /** The rows written since the last call. */
  take(): unknown[];
  /** Calls `sync` where Pi awaits and where the session writes entries outside a run; returns the unsubscribe. */
  watch(sync: () => Promise<void>, onError: (error: unknown) => void): () => void;
}

/** An Agent's message list; `isNew` when nothing of it is stored yet. */
export function agentTranscriptFeed(agent: Agent, isNew: boolean): TranscriptFeed {
  let seen = agent.state.messages;
  let stored = isNew ? 0 : seen.length;
  return {
    take: () => {
      const messages = agent.state.messages;
      if (messages !== seen) {
        // A server compaction or a reload replaced the list.
        seen = messages;
        stored = messages.length;
        return [{ type: "messages", messages: [...messages] }];
      }
      const fresh = messages.slice(stored).map((message) => ({ type: "message", message }));
      stored = messages.length;
      return fresh;
    },
    watch: (sync) =>
      agent.subscribe(async (event, signal) => {
        if (event.type === "message_end" || event.type === "agent_start" || event.type === "agent_end") await syncUnlessAborted(sync, signal);
      }),
  };
}

/** An AgentSession's entries, the header first; `storedRows` are stored already (a resumed session). */
export function sessionTranscriptFeed(session: AgentSession, storedRows: number): TranscriptFeed {
  const manager = session.sessionManager;
  let headerStored = storedRows > 0;
  let entriesStored = Math.max(0, storedRows - 1);
  return {
    take: () => {
      const rows: unknown[] = [];
      if (!headerStored) {
        rows.push(manager.getHeader());
        headerStored = true;
      }
      const count = manager.getEntryCount();
      if (count > entriesStored) rows.push(...manager.getEntries().slice(entriesStored));
      entriesStored = count;
      return rows;
    },
    watch: (sync, onError) => {
      const offAgent = session.agent.subscribe(async (event, signal) => {
        if (event.type === "message_end" || event.type === "agent_start" || event.type === "agent_end") await syncUnlessAborted(sync, signal);
      });
      // Compaction and other session entries arrive outside the agent's events.
      const offSession = session.subscribe(() => {
        sync().catch(onError);
      });
      return () => {
        offAgent();
        offSession();
      };
    },
  };
}

/**
 * Awaits the transcript's write unless the run is aborted first (a dispose,
 * an abort): a write that never answers does not hold the run. The write goes
 * on, in order with the next ones (the host's dispose waits for it), and a
 * failure it ends with still stops the session and is told.
 */
function syncUnlessAborted(sync: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  const syncing = sync();
  if (signal === undefined) return syncing;
  syncing.catch(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const stop = (): void => resolve();
    signal.addEventListener("abort", stop, { once: true });
    syncing.then(
      () => {
        signal.removeEventListener("abort", stop);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", stop);
        reject(error);
      },
    );
  });
}
