/**
 * Tool namespaces at run time: the catalog a session can load from (the
 * compiled namespaces), which of them are loaded, and the texts the model reads when one joins its tool
 * list. Pi-free: the controller keeps the loaded set durable, the adapter
 * puts the tools in front of the model.
 */
import type { ToolNamespaceArtifact, ToolSchemaArtifact } from "../protocol/dist-manifest.js";
import type { LoadedNamespace } from "./execution-state.js";

import { LOAD_NAMESPACE_TOOL } from "../protocol/runtime-tools.js";

/** The runtime tool that loads a namespace by exact name (served when tools.json declares it). */
export { LOAD_NAMESPACE_TOOL };

/** A refusal the model reads as a tool's error result. */
export class NamespaceToolError extends Error {
  override readonly name = "NamespaceToolError";
}

/** A namespace the session can load. */
export interface SessionNamespace {
  name: string;
  description: string;
  tools: readonly ToolSchemaArtifact[];
}

/** The catalog in order: the compiled namespaces by name. */
export function sessionCatalog(compiled: ReadonlyMap<string, ToolNamespaceArtifact>): SessionNamespace[] {
  return [...compiled.values()].map((namespace) => ({ name: namespace.name, description: namespace.description, tools: namespace.tools }));
}

/** The tool error for a name the catalog does not hold: it lists the names it does. */
export function unknownNamespaceMessage(name: string, catalog: readonly SessionNamespace[]): string {
  const names = catalog.map((namespace) => namespace.name);
  return `Unknown tool namespace "${name}", expected one of the catalog's names exactly: ${names.length === 0 ? "(none)" : names.join(", ")}.`;
}

/** What the model reads when namespaces join its tool list (a tool result or part of one). */
export function loadedNamespacesText(loaded: readonly SessionNamespace[], cause: string): string {
  return loaded
    .map((namespace) => `Tool namespace "${namespace.name}" loaded ${cause}: ${namespace.tools.map((tool) => tool.name).join(", ")} are in your tool list from now on, for the rest of the session.`)
    .join("\n");
}

/** The anchor's lines for the loaded namespaces (empty when none). */
export function loadedNamespacesLines(loaded: readonly LoadedNamespace[]): string[] {
  return loaded.map((namespace) => {
    const how =
      namespace.loadedBy === "skill"
        ? `loaded for the workflow ${namespace.skill ?? "skill"}`
        : namespace.loadedBy === "tool"
          ? `loaded with ${LOAD_NAMESPACE_TOOL}`
          : "loaded by the host";
    return `- ${namespace.name} (${how})`;
  });
}
