/**
 * The stable tool set: every tool in tools.json, in its declared order, with
 * its JSON Schema. The runtime implements `skill`, `todo`, `message_user` and
 * (when declared) `read_workspace_rule`;
 * the host supplies an executor for each other tool. Pi-free: the adapter
 * turns these into Pi tools.
 */
import type { ToolSchemaArtifact } from "../protocol/dist-manifest.js";
import { REQUIRED_RUNTIME_TOOLS, RUNTIME_TOOL_NAMES, type RuntimeToolName } from "../protocol/runtime-tools.js";
import type { ImagePart, TextPart } from "./messages.js";

export { RUNTIME_TOOL_NAMES, type RuntimeToolName };

export interface ToolOutcome {
  content: (TextPart | ImagePart)[];
  /** Structured data for logs and the interface; never sent to the model. */
  details?: unknown;
  terminate?: boolean;
}

/** Throw to report a failure: Pi turns the error message into an error tool result. */
export type ToolExecutor = (toolCallId: string, params: Record<string, unknown>, signal?: AbortSignal) => Promise<ToolOutcome>;

/** Decides before a tool runs; throwing refuses the call with that error. */
export type ToolGuard = (tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string) => void;

/** Awaited after a tool ran, before its result (or its error) is reported; rejecting reports that error instead. It gets the run's abort signal. */
export type ToolSettle = (signal?: AbortSignal) => Promise<void>;

/** An executor behind the guard and the settle step: what every tool of a session runs. */
export function guardedExecutor(name: string, run: ToolExecutor, guard: ToolGuard | undefined, settle: ToolSettle | undefined): ToolExecutor {
  if (guard === undefined && settle === undefined) return run;
  return async (toolCallId, params, signal) => {
    guard?.(name, params, toolCallId);
    let outcome: ToolOutcome;
    try {
      outcome = await run(toolCallId, params, signal);
    } catch (error) {
      await settle?.(signal);
      throw error;
    }
    await settle?.(signal);
    return outcome;
  };
}

/**
 * A host executor's result or exception the runtime cannot pass on as a tool
 * result: a value that is not `{ content: [...] }` (a string, `content` null
 * or a single part instead of a list), or a thrown value that is neither an
 * Error nor a string. The tool call fails with this error (the model reads
 * its message as the tool's error result) and the host is told once, as a
 * `runtime_error` during "executor".
 */
export class ExecutorResultError extends Error {
  constructor(
    message: string,
    readonly tool: string,
  ) {
    super(message);
    this.name = "ExecutorResultError";
  }
}

/** Told when a host executor's result or exception is malformed (the controller reports it as a runtime_error). */
export type ExecutorFaultReporter = (error: ExecutorResultError) => void;

/**
 * A host executor as the session runs it: its result must be an object whose
 * `content` is a list of parts (each part as the provider boundary takes it),
 * and what it throws an Error or a string. Anything else fails the call with
 * an ExecutorResultError naming what was wrong, the same on both Pi paths,
 * never an empty result or a provider's TypeError.
 */
export function checkedHostExecutor(name: string, run: ToolExecutor, report: ExecutorFaultReporter | undefined): ToolExecutor {
  return async (toolCallId, params, signal) => {
    let outcome: unknown;
    try {
      outcome = await run(toolCallId, params, signal);
    } catch (error) {
      if (error instanceof Error || typeof error === "string") throw error;
      throw told(new ExecutorResultError(`Unexpected exception from the "${name}" tool's executor: it threw ${describeValue(error)}, expected an Error`, name));
    }
    const problem = resultProblem(outcome);
    if (problem !== undefined) {
      throw told(new ExecutorResultError(`Unexpected result from the "${name}" tool's executor: ${problem}, expected an object { content: [{ type: "text", text: "..." }] }`, name));
    }
    return outcome as ToolOutcome;
  };
  function told(error: ExecutorResultError): ExecutorResultError {
    report?.(error);
    return error;
  }
}

function resultProblem(outcome: unknown): string | undefined {
  if (typeof outcome !== "object" || outcome === null || Array.isArray(outcome)) return `it returned ${describeValue(outcome)}`;
  const content = (outcome as { content?: unknown }).content;
  if (!Array.isArray(content)) return `its content is ${describeValue(content)}${typeof content === "object" && content !== null ? " (a single part, not a list of parts)" : ""}`;
  return undefined;
}

/** A short description of a value for an error message: its kind, and its text when that is short. */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const message = (value as { message?: unknown }).message;
    return typeof message === "string" ? `an object with the message ${JSON.stringify(message.length > 200 ? `${message.slice(0, 200)}…` : message)}` : "an object";
  }
  return `a ${typeof value} (${String(value)})`;
}

/** Executors for every tool the runtime does not implement (read, bash, write, edit, subagent, show_gamma, show_file, ...). */
export type HostExecutors = Readonly<Record<string, ToolExecutor>>;

export interface RuntimeTool extends ToolSchemaArtifact {
  execute: ToolExecutor;
}

export class ToolSetupError extends Error {
  constructor(
    message: string,
    readonly tools: readonly string[],
  ) {
    super(message);
    this.name = "ToolSetupError";
  }
}

/** Builds the tool list; a missing or unknown executor fails here, at session creation. */
export function assembleTools(options: {
  schemas: readonly ToolSchemaArtifact[];
  runtime: Readonly<Record<RuntimeToolName, ToolExecutor>>;
  executors: HostExecutors;
  /** Runs before every executor and throws to refuse the call (invocation enforcement: `controller.checkToolCall`). */
  guard?: ToolGuard;
  /** Runs after every executor: the result is reported once it resolves (the state's changes durable: `controller.flush`). */
  settle?: ToolSettle;
  /** Tools of namespaces the session may load later: an executor for each is optional, but all or none per namespace. */
  loadable?: readonly { namespace: string; tools: readonly ToolSchemaArtifact[] }[];
  /** Told when a host executor returns or throws something malformed (the call fails with an ExecutorResultError). */
  reportExecutorFault?: ExecutorFaultReporter;
}): RuntimeTool[] {
  const { schemas, runtime, guard, settle } = options;
  // Plain JavaScript may leave them out: every declared tool is then missing its executor, said as such below.
  const executors: HostExecutors = options.executors ?? {};
  const isRuntime = (name: string): name is RuntimeToolName => (RUNTIME_TOOL_NAMES as readonly string[]).includes(name);
  const declared = new Set([...schemas.map((schema) => schema.name), ...(options.loadable ?? []).flatMap((namespace) => namespace.tools.map((tool) => tool.name))]);

  const overriding = Object.keys(executors).filter(isRuntime);
  if (overriding.length > 0) {
    throw new ToolSetupError(`Unexpected host executor for ${list(overriding)}, expected none: the runtime implements these tools`, overriding);
  }
  const unknown = Object.keys(executors).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    throw new ToolSetupError(`Unexpected executor for ${list(unknown)}, expected only tools declared in tools.json or in a tool namespace`, unknown);
  }
  const missing = schemas.map((schema) => schema.name).filter((name) => !isRuntime(name) && typeof executors[name] !== "function");
  if (missing.length > 0) {
    throw new ToolSetupError(`Unexpected missing executor for ${list(missing)}, expected the host to supply one per declared tool`, missing);
  }
  const absentRuntime = REQUIRED_RUNTIME_TOOLS.filter((name) => !declared.has(name));
  if (absentRuntime.length > 0) {
    throw new ToolSetupError(`Unexpected tools.json without ${list(absentRuntime)}, expected the runtime's tools declared`, absentRuntime);
  }

  const loadable: ToolSchemaArtifact[] = [];
  for (const namespace of options.loadable ?? []) {
    const served = namespace.tools.filter((tool) => typeof executors[tool.name] === "function");
    if (served.length === 0 || namespace.tools.every((tool) => schemas.some((schema) => schema.name === tool.name))) continue;
    const unserved = namespace.tools.filter((tool) => !served.includes(tool)).map((tool) => tool.name);
    if (unserved.length > 0) {
      throw new ToolSetupError(`Unexpected executors for part of the tool namespace "${namespace.namespace}", expected one for each of its tools or none (missing: ${list(unserved)})`, unserved);
    }
    loadable.push(...served);
  }
  return [...schemas, ...loadable].map((schema) => {
    const run = isRuntime(schema.name) ? runtime[schema.name] : checkedHostExecutor(schema.name, executors[schema.name] as ToolExecutor, options.reportExecutorFault);
    return { name: schema.name, description: schema.description, parameters: schema.parameters, execute: guardedExecutor(schema.name, run, guard, settle) };
  });
}

function list(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
