/**
 * The server's side of the stdio transport, with the answers JSON-RPC 2.0
 * gives to what is not a message: a frame whose body is not JSON gets a
 * Parse error (-32700), and a JSON value that is no request, notification
 * or response gets an Invalid Request (-32600), each with id null unless
 * the request's id can be read. Either way the server keeps serving.
 */
import {
  createConnection,
  Message,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  type Connection,
  type DataCallback,
  type Disposable,
  type MessageReader,
  type MessageWriter,
} from "vscode-languageserver/node";
import { initializeParams } from "./lifecycle.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** What the decoder hands on for a body that is not JSON (never a message: JSON has no symbols). */
const NOT_JSON = Symbol("not JSON");

/**
 * The server's connection over stdio, with every proposed feature. Made here, where the protocol library is
 * required as CommonJS, so the command that starts the server never imports that library as an ES module
 * (which has Node scan the library and every package it re-exports for their export names).
 */
export function stdioConnection(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): { connection: Connection; reader: MessageReader; writer: MessageWriter } {
  const { reader, writer } = stdioTransport(input, output);
  return { connection: createConnection(ProposedFeatures.all, reader, writer), reader, writer };
}

export function stdioTransport(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): { reader: MessageReader; writer: MessageWriter } {
  const writer = new StreamMessageWriter(output);
  const inner = new StreamMessageReader(input, {
    contentTypeDecoder: {
      name: "application/json",
      decode: (buffer, options) => {
        const text = new TextDecoder(options.charset).decode(buffer);
        try {
          return Promise.resolve(JSON.parse(text) as Message);
        } catch {
          return Promise.resolve({ [NOT_JSON]: true } as unknown as Message);
        }
      },
    },
  });
  const answer = (id: string | number | null, code: number, message: string): void => {
    writer.write({ jsonrpc: "2.0", id, error: { code, message } } as Message).catch(() => undefined);
  };
  // Until the client asks to initialize, the protocol has notifications dropped (exit aside): a buffer opened
  // before then is no part of the session.
  let initializeAsked = false;
  const reader: MessageReader = {
    onError: inner.onError,
    onClose: inner.onClose,
    onPartialMessage: inner.onPartialMessage,
    dispose: () => inner.dispose(),
    listen(callback: DataCallback): Disposable {
      return inner.listen((message) => {
        const value = message as unknown;
        if (typeof value === "object" && value !== null && NOT_JSON in value) return answer(null, PARSE_ERROR, "Parse error");
        if (Message.isRequest(message) && message.method === "initialize") {
          // The protocol library reads the client's capabilities before any handler: params it cannot read would
          // be an internal error there. They are the client's mistake, answered as such; a valid initialize may follow.
          const problem = initializeParams(message.params);
          if (problem !== undefined) return answer(message.id, INVALID_PARAMS, problem);
          initializeAsked = true;
        }
        if (Message.isNotification(message) && ((!initializeAsked && message.method !== "exit") || isUnreadableCancel(message))) return;
        if (Message.isRequest(message) || Message.isNotification(message) || Message.isResponse(message) || isBrokenResponse(value)) return callback(message);
        const id = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
        answer(typeof id === "string" || typeof id === "number" ? id : null, INVALID_REQUEST, "Invalid Request");
      });
    },
  };
  return { reader, writer };
}

/**
 * A cancellation without the id of a request (`{ id: integer | string }`): the protocol library reads that id
 * itself, before any handler, and an exception there is a read error that ends the server. A notification is
 * never answered, so it is dropped.
 */
function isUnreadableCancel(message: { method: string; params?: unknown }): boolean {
  if (message.method !== "$/cancelRequest") return false;
  const id = typeof message.params === "object" && message.params !== null ? (message.params as { id?: unknown }).id : undefined;
  return typeof id !== "string" && typeof id !== "number";
}

/**
 * An object with an id and no method answers a request the server sent: a
 * response is never answered, so it goes on to the connection, which fails
 * the request it answers.
 */
function isBrokenResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const candidate = value as { id?: unknown; method?: unknown };
  return !("method" in candidate) && (typeof candidate.id === "string" || typeof candidate.id === "number");
}
