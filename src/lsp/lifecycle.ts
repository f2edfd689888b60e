/**
 * The protocol's lifecycle and its answers to requests a handler cannot
 * take, as the Language Server Protocol specifies them: before `initialize`,
 * every request is refused with ServerNotInitialized (-32002); a second
 * `initialize`, and every request after `shutdown` (`shutdown` and
 * `initialize` included), with InvalidRequest; params that lack what a request needs (a
 * document, a position) with InvalidParams that say what was expected,
 * instead of the internal error the handler would throw reading them.
 */
import { ErrorCodes, ResponseError, type Connection, type InitializeError } from "vscode-languageserver/node";

/** The code the protocol gives a request sent before `initialize`. */
const SERVER_NOT_INITIALIZED = -32002;

type Handler<P, A extends unknown[], R> = (params: P, ...rest: A) => R;
type ParamsCheck = (params: unknown) => string | undefined;

export interface Answering {
  /** Marks the server initialized: requests without a handler are then MethodNotFound. */
  initialized(): void;
  /** The answer to an `initialize` the protocol does not allow (a second one, or one after `shutdown`); undefined for the first. */
  refuseInitialize(): ResponseError<InitializeError> | undefined;
  /** A request handler that answers while the server runs, given params `check` accepts. */
  request<P, A extends unknown[], R>(check: ParamsCheck, handler: Handler<P, A, R>): Handler<P, A, R>;
  /** True once the client sent `shutdown`. */
  shutDown(): boolean;
}

export function answering(connection: Connection): Answering {
  let initialized = false;
  let shutDown = false;
  connection.onShutdown(() => {
    // Refused like every request before initialize: accepted, it would leave a session no initialize could start.
    if (!initialized) return new ResponseError(SERVER_NOT_INITIALIZED, "Unexpected shutdown before initialize, expected initialize first");
    if (shutDown) return afterShutdown();
    shutDown = true;
    return undefined;
  });
  // Requests no handler takes: the library's answer is a bare "Unhandled method", whatever the state.
  connection.onRequest((method) => {
    if (!initialized) return new ResponseError(SERVER_NOT_INITIALIZED, `Unexpected ${method} before initialize, expected initialize first`);
    return new ResponseError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
  });
  return {
    initialized: () => {
      initialized = true;
    },
    refuseInitialize: () => {
      if (shutDown) return afterShutdown();
      return initialized ? new ResponseError(ErrorCodes.InvalidRequest, "Unexpected second initialize, expected one initialize per session") : undefined;
    },
    shutDown: () => shutDown,
    request: (check, handler) =>
      (params, ...rest) => {
        if (shutDown) throw afterShutdown();
        const problem = check(params);
        if (problem !== undefined) throw new ResponseError(ErrorCodes.InvalidParams, problem);
        return handler(params, ...rest);
      },
  };
}

const afterShutdown = (): ResponseError<never> => new ResponseError(ErrorCodes.InvalidRequest, "Unexpected request after shutdown, expected only the exit notification");

const record = (value: unknown): Record<string, unknown> | undefined => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined);
const isIndex = (value: unknown): boolean => typeof value === "number" && Number.isInteger(value) && value >= 0;

/**
 * `initialize`'s params, as far as the server reads them: an object with `capabilities` (an object), and where
 * given a `rootUri` and `rootPath` that are strings or null, `workspaceFolders` a list of `{ uri }`, and
 * `clientInfo` an object.
 */
export const initializeParams: ParamsCheck = (params) => {
  const given = record(params);
  const expected = "Unexpected initialize params, expected { capabilities: {}, rootUri?: string | null, workspaceFolders?: [{ uri, name }] | null }";
  if (given === undefined || record(given["capabilities"]) === undefined) return expected;
  const stringOrNull = (value: unknown): boolean => value === undefined || value === null || typeof value === "string";
  if (!stringOrNull(given["rootUri"]) || !stringOrNull(given["rootPath"])) return expected;
  const folders = given["workspaceFolders"];
  if (folders !== undefined && folders !== null && !(Array.isArray(folders) && folders.every((folder) => typeof record(folder)?.["uri"] === "string"))) return expected;
  if (given["clientInfo"] !== undefined && record(given["clientInfo"]) === undefined) return expected;
  return undefined;
};

/** Params that name a document: `{ textDocument: { uri } }`. */
export const inDocument: ParamsCheck = (params) =>
  typeof record(record(params)?.["textDocument"])?.["uri"] === "string" ? undefined : "Unexpected params, expected { textDocument: { uri } }";

/** Params that name a position in a document: `{ textDocument: { uri }, position: { line, character } }`. */
export const atPosition: ParamsCheck = (params) => {
  const position = record(record(params)?.["position"]);
  if (inDocument(params) !== undefined || !isIndex(position?.["line"]) || !isIndex(position?.["character"])) {
    return "Unexpected params, expected { textDocument: { uri }, position: { line, character } }";
  }
  return undefined;
};

/** Params that hold `field` of the given type. */
export const holding =
  (field: string, type: "string" | "array"): ParamsCheck =>
  (params) => {
    const value = record(params)?.[field];
    return (type === "array" ? Array.isArray(value) : typeof value === type) ? undefined : `Unexpected params, expected { ${field}: ${type === "array" ? "[...]" : type} }`;
  };

/** Params that pass every check, told by the first that fails. */
export const allOf =
  (...checks: ParamsCheck[]): ParamsCheck =>
  (params) => {
    for (const check of checks) {
      const problem = check(params);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
