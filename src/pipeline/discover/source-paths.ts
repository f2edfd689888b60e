/**
 * Where a project's non-skill sources live, relative to its root. Kept free
 * of imports so the no-change fast path can list sources without loading the
 * parsers that read them.
 */
export const CONFIG_FILE = "gamma-prompt.config.json";
export const PREFIX_TEMPLATE = "prompts/prefix.hbs";
export const VARIANT_TEMPLATE = "prompts/variant.hbs";
export const PARTIALS_DIR = "prompts/partials";
export const VARIANTS_FILE = "prompts/variants.yaml";
export const INJECTIONS_FILE = "prompts/injections.yaml";
export const TOOLS_DIR = "schemas/tools";
export const TOOL_ORDER_FILE = "schemas/tools/order.json";
/** One folder per tool namespace: `<name>/namespace.json` and `<name>/tools/<tool>.json`; the folder is optional. */
export const NAMESPACES_DIR = "schemas/namespaces";
export const NAMESPACE_FILE = "namespace.json";
export const NAMESPACE_TOOLS_DIR = "tools";
/** One knowledge note per `<id>.md` file; the folder is optional. */
export const KNOWLEDGE_SOURCE_DIR = "knowledge";

export { MAX_SOURCE_BYTES } from "../../protocol/regular-file.js";
