import { Transform, type TransformCallback } from "node:stream";

/**
 * The size bound on one stdio message, either way. The SDK's stdio reader
 * (server and client alike) holds at most 10 MiB and, past that, drops the
 * connection without a word; every message here stays under this bound, so
 * neither end ever reaches that limit.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Bytes kept from each end of an oversized line, to find the request id it answers to. */
const EDGE_BYTES = 256;
const NEWLINE = 0x0a;

export type MessageId = string | number;

/** What a dropped line was: its size, and its request id when one could be read from either end. */
export interface OversizedMessage {
  bytes: number;
  id?: MessageId;
}

/**
 * Stands between stdin and the SDK's transport: passes each line (one
 * JSON-RPC message) on whole, and drops a line longer than `maxBytes`
 * without ever holding it whole, telling `onOversized` its size and id, so
 * the session survives a message it cannot take.
 */
export class MessageSizeLimit extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (message: OversizedMessage) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.addPiece(chunk.subarray(start, end));
      if (newline !== -1) this.endLine();
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // The input ended in the middle of a line (a client's last message without its line feed): it is still a
    // message, and the transport reads only whole lines, so the line feed is added.
    if (!this.skipping && this.pendingBytes > 0) this.addPiece(Buffer.from([NEWLINE]));
    this.endLine();
    done();
  }

  private addPiece(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = lastBytes(this.skipping.tail, piece);
    } else if (this.pendingBytes + piece.length > this.maxBytes) {
      const line = Buffer.concat([...this.pending, piece]);
      this.skipping = { bytes: line.length, head: line.subarray(0, EDGE_BYTES), tail: Buffer.from(line.subarray(-EDGE_BYTES)) };
      this.pending = [];
      this.pendingBytes = 0;
    } else {
      this.pending.push(piece);
      this.pendingBytes += piece.length;
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = undefined;
      const id = requestId(head.toString("utf8"), tail.toString("utf8"));
      this.onOversized(id === undefined ? { bytes } : { bytes, id });
    } else if (this.pendingBytes > 0) {
      // One push per line: the transport's reader then never holds more than one message.
      this.push(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
    }
  }
}

function lastBytes(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(-EDGE_BYTES));
  return Buffer.concat([tail, piece]).subarray(-EDGE_BYTES);
}

/** The `id` of a request, where clients put it: at the end (`...,"jsonrpc":"2.0","id":5}`) or at the start (`{"jsonrpc":"2.0","id":5,...`). */
function requestId(head: string, tail: string): MessageId | undefined {
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,100}")`;
  const found = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail) ?? new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  if (!found?.[1]) return undefined;
  return JSON.parse(found[1]) as MessageId;
}

/** The bytes `value` takes as JSON on the wire. */
export function encodedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}
