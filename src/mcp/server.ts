import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { Ajv, type ValidateFunction } from "ajv";
import type { Readable, Writable } from "node:stream";
import { ProjectRootError } from "../pipeline/discover/discover.js";
import { ConfigFileError } from "../pipeline/validate/lint-config.js";
import { packageVersion } from "../version.js";
import { encodedBytes, MAX_MESSAGE_BYTES, MessageSizeLimit, type OversizedMessage } from "./message-limit.js";
import { McpProject, ToolInputError } from "./project.js";
import { listResources, readResource, ResourceNotFoundError, RESOURCE_TEMPLATES } from "./resources.js";
import { TOOL_DEFINITIONS } from "./tool-schemas.js";
import { findingsSummary, MAX_RESULT_BYTES, oversizedBytes, oversizedResult, toolResult } from "./tool-result.js";
import { TOOL_HANDLERS } from "./tools.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { messageOf } from "../protocol/error-message.js";

/**
 * `gamma-prompt mcp`: a Model Context Protocol server over standard input
 * and output for coding agents, on the official SDK. The wiring only: each
 * tool's work is in tools.ts, over the same library the CLI and the language
 * server use. A tool's bad input or failure is a tool error with a message
 * that says what was wrong; the server keeps serving.
 */

export interface McpServerOptions {
  /** The project root (default: the working folder). */
  root?: string;
  /** Output folder, relative to the root unless absolute (default dist). */
  outDir?: string;
}

const INSTRUCTIONS = `gamma-prompt checks and compiles agent skills (SKILL.md folders) and, in a project with prompts/, byte-stable cached prompts.
Lint after every change to a skill (lint; lint_text before the file exists); explain_rule says why a rule fires, fix_file makes the safe fixes.
In a project with prompts/: check_cache before committing (what the change does to the prompt cache and its cost), show_variant to see a compiled prompt, skill_graph before changing requirements or conflicts.
Paths are relative to the project root; nothing outside it is read.`;

export function createMcpServer(options: McpServerOptions = {}): Server {
  const project = new McpProject(options.root ?? process.cwd(), options.outDir);
  const server = new Server({ name: "gamma-prompt", title: "gamma-prompt", version: packageVersion }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  // Each tool's input validator is compiled at its first call: a client waits for `initialize` before the session
  // starts, and compiling all of them (ajv compiles its meta-schema first) was most of what the server did then.
  let ajv: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (name: string): ValidateFunction | undefined => {
    const known = validators.get(name);
    if (known !== undefined) return known;
    const tool = TOOL_DEFINITIONS.find((definition) => definition.name === name);
    if (tool === undefined) return undefined;
    ajv ??= new Ajv({ strict: false, allErrors: false });
    const compiled = ajv.compile(tool.inputSchema);
    validators.set(name, compiled);
    return compiled;
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_DEFINITIONS.map((tool) => ({ ...tool })) }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }, { signal }): Promise<CallToolResult> => {
    const handler = TOOL_HANDLERS[params.name];
    const validate = handler === undefined ? undefined : validatorOf(params.name);
    if (!handler || !validate) throw protocolError(`Unknown tool ${params.name}; the tools are ${TOOL_DEFINITIONS.map((tool) => tool.name).join(", ")}`);
    const args = params.arguments ?? {};
    if (!validate(args)) {
      const problem = validate.errors?.[0];
      return toolError(`Unexpected arguments for ${params.name}: ${problem ? `${problem.instancePath || "the arguments"} ${problem.message ?? "are invalid"}` : "invalid"}${problem?.params && "additionalProperty" in problem.params ? ` (${String(problem.params.additionalProperty)})` : ""}`);
    }
    try {
      // Every tool but explain_rule reads the project.
      if (params.name !== "explain_rule") project.requireProject(params.name, typeof args.path === "string" ? args.path : undefined);
      // A cancelled call (the client's cancel, or its timeout) is not answered; what matters is that it writes nothing once cancelled.
      const structured = await project.serial(() => handler(project, args, { signal }), signal);
      const bytes = oversizedBytes(structured);
      if (bytes !== undefined) return toolError(`${oversizedResult(params.name, bytes)}${whatItHeld(params.name, structured)}`);
      return toolResult(structured);
    } catch (error) {
      if (error instanceof ToolInputError || error instanceof ProjectRootError || error instanceof ConfigFileError) return toolError(error.message);
      // A fault of the server's own: still an answer, and the server goes on.
      return toolError(`gamma-prompt: internal error in ${params.name}: ${messageOf(error)}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listResources(project) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
    try {
      const result = { contents: [readResource(project, params.uri)] };
      const bytes = encodedBytes(result);
      if (bytes > MAX_RESULT_BYTES) throw new ToolInputError(`Unexpected resource ${params.uri} of ${bytes} bytes as JSON, expected at most ${MAX_RESULT_BYTES}: a client's stdio reader drops a larger message, so it is not sent`);
      return result;
    } catch (error) {
      if (error instanceof ResourceNotFoundError) throw resourceNotFound(error);
      if (error instanceof ToolInputError) throw protocolError(error.message);
      throw error;
    }
  });
  return server;
}

/**
 * What a result too large to send held, when it is findings: how many, of
 * which rules, and how to ask for fewer, so the agent is never left without
 * a way forward.
 */
function whatItHeld(tool: string, structured: object): string {
  const diagnostics = (structured as { diagnostics?: unknown }).diagnostics;
  if (!Array.isArray(diagnostics)) return "";
  const files = new Set((diagnostics as Diagnostic[]).map((diagnostic) => diagnostic.file)).size;
  const narrower =
    tool === "check_cache"
      ? "run `gamma-prompt check` on the command line, which lists them all"
      : tool === "lint" && files > 1
        ? "pass `path` (one skill folder or file) to get part of them, or run `gamma-prompt lint` on the command line, which lists them all"
        : `fix those of the rule with the most first (explain_rule says how), or ${tool === "lint_text" ? "write the file and " : ""}run \`gamma-prompt lint\` on the command line, which lists them all`;
  return `; it held ${findingsSummary(diagnostics as Diagnostic[])}: ${narrower}`;
}

/** The specification's code for a resource that does not exist (the SDK's ErrorCode has none). */
const RESOURCE_NOT_FOUND = -32002;

/** Past this length a URI a client sent is not echoed back as the error's data (a request may be 8 MiB). */
const MAX_DATA_URI_CHARACTERS = 2048;

/** The protocol's "resource not found" (-32002), with the URI as its data as the specification shows it. */
function resourceNotFound(error: ResourceNotFoundError): Error {
  const data = error.uri.length > MAX_DATA_URI_CHARACTERS ? undefined : { uri: error.uri };
  return Object.assign(new Error(error.message), { code: RESOURCE_NOT_FOUND, data });
}

/** The protocol's invalid-params error with the message as it is (an McpError's message already starts "MCP error -32602", and the client adds that again). */
function protocolError(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/**
 * Serves over the given streams until the client closes them; resolves then.
 * A message too large to read, or one that is no JSON-RPC, is reported on
 * `stderr` (and a request among them answered with an error), and the
 * session goes on.
 */
export async function runMcpServer(
  options: McpServerOptions = {},
  streams: { stdin: Readable; stdout: Writable; stderr?: Writable } = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const server = createMcpServer(options);
  const stderr = streams.stderr ?? process.stderr;
  const oversized = (message: OversizedMessage): void => {
    const problem = `Unexpected message of ${message.bytes} bytes, expected at most ${MAX_MESSAGE_BYTES} bytes per message`;
    stderr.write(`gamma-prompt mcp: ${problem}${message.id === undefined ? "" : ` (request ${JSON.stringify(message.id)})`}; it was dropped and the session goes on\n`);
    if (message.id !== undefined) void transport.send({ jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InvalidRequest, message: `${problem}: it was not read` } });
  };
  const input = streams.stdin.pipe(new MessageSizeLimit(MAX_MESSAGE_BYTES, oversized));
  const transport = new StdioServerTransport(input, streams.stdout);
  server.onerror = (error) => {
    // The transport's check of a JSON value that is no JSON-RPC message throws a list of schema issues: its first line says nothing.
    const notMessage = error.name === "ZodError";
    const problem = notMessage ? "Unexpected JSON that is no JSON-RPC message, expected a request, notification or response; it was dropped and the session goes on" : (error.message.split("\n")[0] ?? "");
    stderr.write(`gamma-prompt mcp: ${problem}\n`);
    // JSON-RPC 2.0: a line that is not JSON is answered with a Parse error, and JSON that is no message with an
    // Invalid Request, each with id null (the transport keeps no id of a line it could not read).
    const answer = error instanceof SyntaxError ? { code: ErrorCode.ParseError, message: "Parse error" } : notMessage ? { code: ErrorCode.InvalidRequest, message: "Invalid Request" } : undefined;
    if (answer) void transport.send({ jsonrpc: "2.0", id: null, error: answer } as unknown as JSONRPCMessage).catch(() => undefined);
  };
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      // Nothing more is read: a client that keeps its end of stdin open does not keep the server running.
      streams.stdin.unpipe(input);
      streams.stdin.pause();
      resolve();
    };
  });
  await server.connect(transport);
  // The client closing its end of stdin ends the session once every request it sent is answered (its reading
  // end is still open: `printf … | gamma-prompt mcp`); standard output gone ends it at once, and closing the
  // server cancels the calls still running, so a fix_file not yet written never is.
  const answering = new Set<string | number>();
  let ending = false;
  let closing = false;
  const closeNow = (): void => {
    if (closing) return;
    closing = true;
    void server.close();
  };
  const closeWhenAnswered = (): void => {
    ending = true;
    if (answering.size === 0) closeNow();
  };
  const received = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && "id" in message) answering.add(message.id);
    received?.(message);
    // A cancelled call is never answered.
    if ("method" in message && message.method === "notifications/cancelled" && answering.delete((message.params as { requestId?: string | number } | undefined)?.requestId ?? "") && ending && answering.size === 0) closeNow();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (!("method" in message) && "id" in message && typeof message.id !== "object" && message.id !== undefined && answering.delete(message.id) && ending && answering.size === 0) closeNow();
    }
  };
  input.once("end", closeWhenAnswered);
  // Stdin destroyed without an end: what it passed on is read first.
  streams.stdin.once("close", () => setImmediate(closeWhenAnswered));
  streams.stdout.once("error", closeNow);
  streams.stdout.once("close", closeNow);
  await closed;
}

/**
 * A tool error's text is bounded like a result: each message quotes what it
 * must with `echoed`, and one that is still longer (a system's message, a
 * config's glob list) is cut, so no answer outgrows a client's stdio reader.
 */
const MAX_ERROR_CHARACTERS = 16_384;

function toolError(message: string): CallToolResult {
  const text = message.length > MAX_ERROR_CHARACTERS ? `${message.slice(0, MAX_ERROR_CHARACTERS)}… (${message.length} characters)` : message;
  return { content: [{ type: "text", text }], isError: true };
}
