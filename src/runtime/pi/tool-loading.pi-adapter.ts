/** When a session's tool namespaces join its tool list, decided from pi-ai's model data. */
import type { Api, Model } from "@earendil-works/pi-ai";

/**
 * When a session's tool namespaces join its tool list: `"late"` (the default)
 * when a workflow that needs one becomes active or the model loads one by
 * name; `"start"` every namespace the host serves from the first call. A
 * function decides per model, e.g. from {@link toolAdditionsInPlace}.
 */
export type ToolLoadingPolicy = "late" | "start" | ((model: Model<Api>) => "late" | "start");

export function resolveToolLoading(policy: ToolLoadingPolicy | undefined, model: Model<Api>): "late" | "start" {
  return typeof policy === "function" ? policy(model) : (policy ?? "late");
}

/** How the model takes a tool added mid-session, from pi-ai's model data. */
export function toolAdditionsInPlace(model: Model<Api>): boolean {
  const compat = (model.compat ?? {}) as { supportsMidConvoSystemMessages?: boolean; supportsMidConvoToolChanges?: boolean; supportsAdditionalTools?: boolean };
  if (compat.supportsMidConvoSystemMessages !== true) return false;
  switch (model.api) {
    case "anthropic-messages":
      return compat.supportsMidConvoToolChanges === true;
    case "openai-responses":
    case "azure-openai-responses":
    case "openai-codex-responses":
      return compat.supportsAdditionalTools === true;
    default:
      return false;
  }
}
