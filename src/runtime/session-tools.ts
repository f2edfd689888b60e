/**
 * The tools one session serves, before they become Pi tools: the start tools
 * in the cache plan's order, the tools of each namespace it may load, the
 * connectors a host registered (restored after a restart), and the loader
 * that applies a namespace load to Pi's tool list. Pi-free: the adapter
 * gives it a PiToolList and turns RuntimeTools into Pi's.
 */
import { expectObject, expectOneOf } from "../protocol/arguments.js";
import type { VariantName } from "../protocol/dist-manifest.js";
import type { LoadedArtifacts } from "./artifacts.js";
import { checkConnectorExecutors, ConnectorRejectedError, removedToolMessage, type ConnectorDefinition, type ConnectorRestore, type DroppedConnector } from "./connectors.js";
import { SessionProtocolController, type ControllerOptions } from "./controller.js";
import { LOAD_NAMESPACE_TOOL, NamespaceToolError, type SessionNamespace } from "./namespaces.js";
import type { ToolLoader } from "./tool-namespaces.js";
import { assembleTools, checkedHostExecutor, guardedExecutor, type HostExecutors, type RuntimeTool, type ToolExecutor } from "./tools.js";
import { messageOf } from "../protocol/error-message.js";

/** Either an existing controller, or what it takes to create one. */
export type ControllerSource =
  | { controller: SessionProtocolController }
  | ({ artifacts: LoadedArtifacts; variant: VariantName } & Pick<ControllerOptions, "store" | "onProtocolEvent" | "audit" | "sessionLog" | "knowledge" | "invocation">);

/** How the host brings a stored connector back after a restart: its executors, or undefined when it is gone. */
export type ConnectorRestorer = (connector: ConnectorDefinition) => HostExecutors | undefined;

/** The controller a session runs on: the one given, or a new one (opened asynchronously when `open` is set, for a store that waits). */
export function controllerOptionsOf(source: Exclude<ControllerSource, { controller: SessionProtocolController }>): ControllerOptions {
  return {
    artifacts: source.artifacts,
    variant: source.variant,
    ...(source.store === undefined ? {} : { store: source.store }),
    ...(source.onProtocolEvent === undefined ? {} : { onProtocolEvent: source.onProtocolEvent }),
    ...(source.audit === undefined ? {} : { audit: source.audit }),
    ...(source.sessionLog === undefined ? {} : { sessionLog: source.sessionLog }),
    ...(source.knowledge === undefined ? {} : { knowledge: source.knowledge }),
    ...(source.invocation === undefined ? {} : { invocation: source.invocation }),
  };
}

/**
 * Refuses options a plain-JavaScript host got wrong, naming the option, before
 * anything is opened: the options object, the model and the tool-loading
 * policy of `createGammaAgent`, `openGammaAgent` and `createGammaSession`
 * (the controller checks its own options; missing executors are named by
 * the tool setup, ToolSetupError).
 */
export function checkSessionOptions(options: unknown, entry: string): void {
  expectObject(options, `${entry} options`, "an object such as { artifacts: loadArtifacts(), variant, model, executors }");
  if ("controller" in options) expectObject(options.controller, "controller", "a SessionProtocolController");
  expectObject(options.model, "model", "a pi-ai Model (e.g. getModel(\"openai\", \"gpt-5\")) for the session's model calls");
  if (options.toolLoading !== undefined && typeof options.toolLoading !== "function") expectOneOf(options.toolLoading, "toolLoading", ["late", "start"]);
}

export function resolveController(source: ControllerSource): SessionProtocolController {
  return "controller" in source ? source.controller : new SessionProtocolController(controllerOptionsOf(source));
}

export async function openController(source: ControllerSource): Promise<SessionProtocolController> {
  return "controller" in source ? source.controller : SessionProtocolController.open(controllerOptionsOf(source));
}

/** Pi's side of a namespace load or a connector's removal: the Agent's or the session's tool list. */
export interface PiToolList {
  add(tools: readonly RuntimeTool[]): void;
  /** Tools a connector brings, not in the list yet (an AgentSession registers them inactive). */
  declare(tools: readonly RuntimeTool[]): void;
  remove(names: readonly string[]): void;
}

/** Every tool a session can give Pi: the start tools, and the tools of each namespace it may load, by namespace. */
export interface SessionTools {
  start: readonly RuntimeTool[];
  /** The tools of namespaces not loaded yet that the host serves. */
  loadable(): RuntimeTool[];
  attach(list: PiToolList): void;
  /** What became of the connectors the store held. */
  connectors: ConnectorRestore;
}

/**
 * The tools of a session and the controller's loader. Every tool passes the
 * controller's check before it runs and reports its result only once the
 * changes it made are durable. A namespace loads when the host supplied an
 * executor for each of its tools. Connectors the store holds are checked
 * again and served with the executors `restoreConnector` gives; one that
 * fails either leaves the session and is reported. With the "start" policy
 * (the adapter resolves it for the model), every namespace the host serves is
 * loaded before the first call.
 */
export function sessionTools(
  controller: SessionProtocolController,
  options: { executors: HostExecutors; toolLoading: "late" | "start"; restoreConnector?: ConnectorRestorer },
): SessionTools {
  const guard = (tool: string, params: Readonly<Record<string, unknown>>, toolCallId: string) => controller.checkToolCall(tool, params, toolCallId);
  const settle = (signal?: AbortSignal) => controller.waitForStore(signal);
  const reportExecutorFault = (error: Error) => controller.reportError("executor", error);
  const compiled = controller.namespaceCatalog.filter((namespace) => controller.artifacts.namespaces.has(namespace.name));
  const built = assembleTools({
    schemas: controller.startToolSchemas().filter((schema) => controller.connectorOfTool(schema.name) === undefined),
    runtime: controller.runtimeExecutors(),
    executors: options.executors,
    guard,
    settle,
    reportExecutorFault,
    loadable: compiled.map((namespace) => ({ namespace: namespace.name, tools: namespace.tools })),
  });
  const served = new Map<string, RuntimeTool>();
  for (const tool of built) served.set(tool.name, tool);
  let list: PiToolList | undefined;
  const policy = options.toolLoading;
  const loader: ToolLoader = {
    refusal: (namespace: SessionNamespace) => {
      const missing = namespace.tools.filter((tool) => !served.has(tool.name)).map((tool) => tool.name);
      return missing.length === 0 ? undefined : `the host supplies no executor for ${missing.join(", ")}`;
    },
    load: (namespace) => list?.add(namespace.tools.flatMap((tool) => served.get(tool.name) ?? [])),
    serve: (connector, executors) => {
      const tools = connector.tools.map((schema) => {
        const run = guardedExecutor(schema.name, checkedHostExecutor(schema.name, executors[schema.name] as ToolExecutor, reportExecutorFault), guard, settle);
        const tool: RuntimeTool = {
          ...schema,
          // A batch runs on the tools it started with: a tool removed since is refused here, not run.
          execute: async (toolCallId, params, signal) => {
            if (served.get(schema.name) !== tool) throw new NamespaceToolError(removedToolMessage(schema.name, connector.name));
            return run(toolCallId, params, signal);
          },
        };
        return tool;
      });
      for (const tool of tools) served.set(tool.name, tool);
      list?.declare(tools);
    },
    withdraw: (connector) => {
      const names = connector.tools.map((tool) => tool.name);
      for (const name of names) served.delete(name);
      list?.remove(names);
    },
    loadsConnectorsAtOnce: policy === "start" || !controller.artifacts.tools.some((tool) => tool.name === LOAD_NAMESPACE_TOOL),
  };
  controller.toolLoader = loader;
  const connectors = restoreConnectors(controller, loader, options.restoreConnector);
  if (policy === "start") {
    const servedNamespaces = controller.namespaceCatalog.filter((namespace) => loader.refusal(namespace) === undefined).map((namespace) => namespace.name);
    controller.loadNamespacesForHost(servedNamespaces);
  }
  const startNames = new Set(controller.startToolSchemas().map((tool) => tool.name));
  return {
    start: controller.startToolSchemas().flatMap((schema) => served.get(schema.name) ?? []),
    loadable: () => [...served.values()].filter((tool) => !startNames.has(tool.name)),
    attach: (piList) => {
      list = piList;
    },
    connectors,
  };
}

/** Each stored connector checked again at the boundary and given the host's executors; the others leave the session. */
function restoreConnectors(controller: SessionProtocolController, loader: ToolLoader, restore: ConnectorRestorer | undefined): ConnectorRestore {
  const report: ConnectorRestore = { restored: [], dropped: [] };
  for (const connector of [...controller.connectors]) {
    const errors = controller.checkConnector(connector, connector.name).problems.filter((found) => found.severity === "error");
    let dropped: DroppedConnector | undefined;
    if (errors.length > 0) dropped = { connector: connector.name, reason: "refused", message: new ConnectorRejectedError(connector.name, errors).message, problems: errors };
    else {
      const executors = restore?.(connector);
      try {
        if (executors === undefined) throw new Error(`the host supplies no executors for it any more`);
        checkConnectorExecutors(connector, executors);
        loader.serve(connector, executors);
      } catch (error) {
        dropped = { connector: connector.name, reason: "gone", message: `Connector ${JSON.stringify(connector.name)} not restored: ${messageOf(error)}`, problems: [] };
      }
    }
    if (dropped === undefined) report.restored.push(connector.name);
    else {
      report.dropped.push(dropped);
      controller.dropConnector(connector.name);
    }
  }
  return report;
}
