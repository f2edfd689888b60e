/**
 * One run of one scenario through the real runtime: a Gamma agent
 * (createGammaAgent on a Pi Agent) on the scenario's variant, host tools
 * answered from the scenario's fixtures, runtime events routed with
 * `routeUpdate` at their points, and the user's turns prompted in order.
 * What happened is kept as a trace the expectations are judged on.
 */
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import type { AuditReport } from "../runtime/audit/audit.js";
import { createGammaAgent } from "../runtime/pi-adapter.js";
import type { Api, Model, StreamFn } from "./pi-models.js";
import type { Task } from "../runtime/execution-state.js";
import { RUNTIME_TOOL_NAMES, type HostExecutors, type ToolExecutor } from "../runtime/tools.js";
import type { ProtocolEvent } from "../runtime/yield.js";
import { declaredToolNames, type ArgsContain, type LoadedScenario, type ScenarioEvent, type ToolFixture, type TraceNamespaceSource } from "./scenario.js";
import { messageOf } from "../protocol/error-message.js";

/** What happened in a run, in order. Preloaded skills are activated at the start. */
export type TraceEntry =
  | { type: "tool_call"; turn: number; name: string; arguments: Record<string, unknown>; id: string; refused?: true }
  | { type: "skills_activated"; turn: number; names: string[] }
  /** Tool namespaces that joined the tool list; the ones the variant sends from the start are listed at turn 0. */
  | { type: "namespaces_loaded"; turn: number; names: string[]; loadedBy: TraceNamespaceSource }
  /** An accepted message_user call: a progress message or a yield. */
  | { type: "message"; turn: number; message: string; blockOnUser: boolean };

export interface RunTrace {
  entries: TraceEntry[];
  /** Assistant messages the agent ended with; the evaluation replaces it with the calls that went out (a call refused over the cap did not). */
  modelCalls: number;
  /** The task list at the end of the run. */
  tasks: Task[];
  /** Completion audits at the run's yields. */
  audits: AuditReport[];
  /** Host tool calls no fixture answered (the model got an error result). */
  unfixtured: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** Why the run could not finish normally (a provider error, a stale cassette, the model-call cap). */
  error?: string;
}

export interface RunInput {
  loaded: LoadedScenario;
  artifacts: LoadedArtifacts;
  model: Model<Api>;
  streamFn: StreamFn;
  getApiKey?: () => string | undefined;
}

export async function runScenario(input: RunInput): Promise<RunTrace> {
  const { scenario } = input.loaded;
  let turn = 0;
  const trace: RunTrace = { entries: [], modelCalls: 0, tasks: [], audits: [], unfixtured: [] };
  const preloaded = input.artifacts.manifest.variants[scenario.variant]?.preloadedSkills ?? [];
  if (preloaded.length > 0) trace.entries.push({ type: "skills_activated", turn: 0, names: [...preloaded] });
  const startNamespaces = input.artifacts.manifest.variants[scenario.variant]?.namespaces ?? [];
  if (startNamespaces.length > 0) trace.entries.push({ type: "namespaces_loaded", turn: 0, names: [...startNamespaces], loadedBy: "variant" });
  const onProtocolEvent = (event: ProtocolEvent): void => {
    if (event.type === "skills_activated") trace.entries.push({ type: "skills_activated", turn, names: event.names });
    else if (event.type === "namespaces_loaded") trace.entries.push({ type: "namespaces_loaded", turn, names: event.names, loadedBy: event.loadedBy });
    else if (event.type === "yield") trace.entries.push({ type: "message", turn, message: event.message, blockOnUser: true });
    else if (event.type === "progress") trace.entries.push({ type: "message", turn, message: event.message, blockOnUser: false });
    else if (event.type === "audit" && event.action === "reported") trace.audits.push(event.report);
    else if (event.type === "required_skills" && event.action === "refused") {
      // A call the invocation rule refused did not run: it is no task action, as the audit judges it.
      const refused = trace.entries.find((entry) => entry.type === "tool_call" && entry.id === event.toolCallId);
      if (refused?.type === "tool_call") refused.refused = true;
    }
  };
  const gamma = createGammaAgent({
    artifacts: input.artifacts,
    variant: scenario.variant,
    model: input.model,
    executors: fixtureExecutors(input.loaded, input.artifacts, trace),
    onProtocolEvent,
    audit: { mode: scenario.audit ?? "report" },
    streamFn: input.streamFn,
    ...(input.getApiKey === undefined ? {} : { getApiKey: input.getApiKey }),
  });
  const { agent, controller } = gamma;
  try {
    if (scenario.currentArtifacts !== undefined) controller.setCurrentArtifacts(scenario.currentArtifacts);
    const afterCalls = (scenario.events ?? []).filter((event): event is ScenarioEvent & { at: { afterToolCall: number } } => "afterToolCall" in event.at);
    let toolCalls = 0;
    agent.subscribe((event) => {
      if (event.type !== "message_end" || event.message.role !== "assistant") return;
      trace.modelCalls += 1;
      for (const part of event.message.content) {
        if (part.type !== "toolCall") continue;
        toolCalls += 1;
        trace.entries.push({ type: "tool_call", turn, name: part.name, arguments: part.arguments, id: part.id });
      }
      if (event.message.stopReason === "error" && trace.error === undefined) trace.error = event.message.errorMessage ?? "the model call failed";
      // Routed while the batch that made the n-th call runs: the delivery policy decides when it reaches the model.
      for (const due of afterCalls.filter((entry) => entry.at.afterToolCall <= toolCalls)) {
        afterCalls.splice(afterCalls.indexOf(due), 1);
        controller.routeUpdate(due.update);
      }
    });
    for (const [index, text] of scenario.turns.entries()) {
      turn = index + 1;
      for (const event of (scenario.events ?? []).filter((entry) => "beforeTurn" in entry.at && entry.at.beforeTurn === turn)) {
        const routed = controller.routeUpdate(event.update);
        // An event that needs a decision may start a turn of its own on an idle session.
        if (routed.turn !== undefined) await routed.turn;
      }
      await agent.prompt(controller.buildTurnMessages({ text, ...(scenario.requiredSkills === undefined ? {} : { requiredSkills: scenario.requiredSkills }) }));
      // The idle rule runs once the run's listeners settled; a turn it started belongs to this one.
      await new Promise((resolve) => setImmediate(resolve));
      if (controller.injections.lastWake !== undefined) await controller.injections.lastWake;
      if (trace.error !== undefined) break;
    }
    trace.tasks = controller.state.tasks.items.map((task) => ({ ...task }));
  } catch (error) {
    trace.error ??= messageOf(error);
  } finally {
    gamma.dispose();
  }
  return trace;
}

/** Host executors from the scenario's fixtures, for every host tool dist/tools.json and the namespaces declare. */
function fixtureExecutors(loaded: LoadedScenario, artifacts: LoadedArtifacts, trace: RunTrace): HostExecutors {
  const runtimeTools: readonly string[] = RUNTIME_TOOL_NAMES;
  const hostTools = declaredToolNames(artifacts).filter((name) => !runtimeTools.includes(name));
  const executor = (name: string): ToolExecutor => async (_id, params) => {
    const fixture = (loaded.scenario.tools?.[name] ?? []).find((candidate) => argsMatch(candidate.argsContain, params));
    if (fixture === undefined) {
      trace.unfixtured.push({ name, arguments: params });
      throw new Error(`Unexpected ${name} call: the evaluation scenario "${loaded.scenario.name}" has no fixture for these arguments`);
    }
    return answer(fixture);
  };
  return Object.fromEntries(hostTools.map((name) => [name, executor(name)]));
}

function answer(fixture: ToolFixture): Awaited<ReturnType<ToolExecutor>> {
  if (fixture.error !== undefined) throw new Error(fixture.error);
  return { content: [{ type: "text", text: fixture.result ?? "" }] };
}

/** Every named argument contains its text (arguments that are not strings are compared as JSON). */
export function argsMatch(argsContain: ArgsContain | undefined, args: Record<string, unknown>): boolean {
  if (argsContain === undefined) return true;
  return Object.entries(argsContain).every(([key, text]) => {
    if (!Object.hasOwn(args, key)) return false;
    const value = args[key];
    return (typeof value === "string" ? value : JSON.stringify(value) ?? "").includes(text);
  });
}
