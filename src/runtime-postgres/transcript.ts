/**
 * Pi's transcript in PostgreSQL, stored as Pi writes it, so another server
 * resumes the conversation exactly. On the AgentSession path the rows are the
 * session's entries (its header first): `SessionManager.inMemory(cwd, options,
 * entries)` builds the session from them. On the Agent path they are the
 * message list's changes: each message appended, and a whole new list when
 * the host replaced it (a server compaction, a reload). Writes are fenced
 * like the state's, serialised per session, and awaited by the host before
 * the next model call. The two paths' rows are not each other's: a session
 * stays on the path that wrote its first row (SessionPathError otherwise).
 */
import type { Pool, Queryable } from "./database.js";
import { databaseFailure, LeaseLostError, SessionPathError, StoredFormatError, type HostedPath } from "./errors.js";
import { FENCE, fenceValues, type Lease } from "./lease.js";
import { documentIn, storedDocument } from "./documents.js";

/** One row of an Agent's transcript. */
export type AgentTranscriptEntry = { type: "message"; message: unknown } | { type: "messages"; messages: unknown[] };

/** The stored rows of a session's transcript, in order. */
export async function loadTranscript(db: Queryable, sessionKey: string): Promise<unknown[]> {
  const rows = await db.query<{ seq: number; entry: unknown }>("select seq, entry from gamma_transcript where session_key = $1 order by seq", [sessionKey]);
  return rows.rows.map((row) => documentIn(row.entry, sessionKey, transcriptRow(row.seq)));
}

/** How an error names a transcript row. */
function transcriptRow(seq: number): string {
  return `transcript row ${seq} (gamma_transcript)`;
}

/**
 * The path whose transcript the stored rows are, from the first row (never
 * replaced): an AgentSession's header (`type: "session"`), or an Agent's
 * message row; undefined when nothing is stored. A first row of neither kind
 * is another version's form.
 */
export function transcriptPathOf(entries: readonly unknown[], sessionKey: string): HostedPath | undefined {
  if (entries.length === 0) return undefined;
  const type = (entries[0] as { type?: unknown }).type;
  if (type === "session") return "openSession";
  if (type === "message" || type === "messages") return "openAgent";
  throw new StoredFormatError(sessionKey, transcriptRow(0), `an entry of type ${JSON.stringify(type) ?? "undefined"}, neither an AgentSession's header nor an Agent's message row`);
}

/** The stored transcript's first row (never replaced): what opening a session checks before it takes the lease. */
export async function loadTranscriptHead(db: Queryable, sessionKey: string): Promise<unknown[]> {
  const rows = await db.query<{ entry: unknown }>("select entry from gamma_transcript where session_key = $1 and seq = 0", [sessionKey]);
  return rows.rows.map((row) => documentIn(row.entry, sessionKey, transcriptRow(0)));
}

/** Refuses a stored transcript another path wrote (SessionPathError), before anything else of the session is read. */
export function checkTranscriptPath(entries: readonly unknown[], sessionKey: string, opened: HostedPath): void {
  const stored = transcriptPathOf(entries, sessionKey);
  if (stored !== undefined && stored !== opened) throw new SessionPathError(sessionKey, stored, opened);
}

/** The message list an Agent's rows describe; a row of another kind is named (another version's form), never read as a message. */
export function agentMessagesOf(entries: readonly unknown[], sessionKey: string): unknown[] {
  let messages: unknown[] = [];
  entries.forEach((row, seq) => {
    const entry = row as Partial<{ type: unknown; message: unknown; messages: unknown }>;
    if (entry.type === "messages" && Array.isArray(entry.messages)) messages = [...(entry.messages as unknown[])];
    else if (entry.type === "message" && typeof entry.message === "object" && entry.message !== null) messages.push(entry.message);
    else throw new StoredFormatError(sessionKey, transcriptRow(seq), `an entry of type ${JSON.stringify(entry.type) ?? "undefined"} without the message (or message list) an Agent's row holds`);
  });
  return messages;
}

/** Appends rows after the stored ones, one write at a time, each checking the lease. */
export class TranscriptWriter {
  private next: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly lease: Lease,
    stored: number,
  ) {
    this.next = stored;
  }

  /** Rows stored or queued so far. */
  get length(): number {
    return this.next;
  }

  /** Queues the rows; the promise settles when they (and every row before them) are stored. */
  append(entries: readonly unknown[]): Promise<void> {
    if (entries.length === 0) return this.queue;
    const rows = JSON.stringify(entries.map((entry, index) => ({ seq: this.next + index, entry: storedDocument(entry) })));
    this.next += entries.length;
    const write = this.queue.then(async () => {
      let stored: number | null;
      try {
        const result = await this.pool.query({
          name: "gamma-prompt-append-transcript",
          text: `with ${FENCE} insert into gamma_transcript (session_key, seq, entry)
         select fence.session_key, e.seq, e.entry from fence cross join jsonb_to_recordset($4::jsonb) as e(seq integer, entry jsonb)`,
          values: [...fenceValues(this.lease), rows],
        });
        stored = result.rowCount;
      } catch (error) {
        // Named as the state store names its failures, so a stopped session's cause reads the same whichever write failed.
        throw databaseFailure(this.lease.sessionKey, error, "the transcript's rows stored");
      }
      if (stored !== entries.length) throw new LeaseLostError(this.lease.sessionKey, this.lease.token);
    });
    // A failed write fails every later one too: the transcript never has a hole.
    this.queue = write;
    return write;
  }
}
