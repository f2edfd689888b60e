/**
 * The tools the runtime implements itself, by name: shared by the runtime,
 * which serves them, and the compiler, which checks that an agent's tool set
 * declares the ones the runtime cannot start without.
 */
export const RUNTIME_TOOL_NAMES = ["skill", "todo", "message_user", "read_workspace_rule", "load_tool_namespace"] as const;
export type RuntimeToolName = (typeof RUNTIME_TOOL_NAMES)[number];

/** Runtime tools every tools.json must declare: the prefix's protocol tells the model to use them, so a session refuses to start without them. */
export const REQUIRED_RUNTIME_TOOLS: readonly RuntimeToolName[] = ["skill", "todo", "message_user"];

/** The runtime tool the model loads a tool namespace with, by its name in the catalog. */
export const LOAD_NAMESPACE_TOOL = "load_tool_namespace" satisfies RuntimeToolName;

/** The runtime tool that fetches a knowledge note; knowledge hints tell the model to call it. */
export const KNOWLEDGE_TOOL: RuntimeToolName = "read_workspace_rule";

/**
 * The parameters the runtime reads from a tool it serves, each a property the
 * tool's schema must declare with this type and list as required: a schema
 * without one asks the model for arguments the runtime then refuses (a
 * `message_user` without `blockOnUser` can never end a turn). The skill and
 * knowledge tools have rules of their own (`tool/skill-name-parameter`,
 * `tool/knowledge-id-parameter`).
 */
export const RUNTIME_TOOL_PARAMETERS: ReadonlyArray<{ tool: RuntimeToolName; parameter: string; type: "string" | "boolean" | "array"; why: string }> = [
  { tool: "message_user", parameter: "message", type: "string", why: "the text shown to the user" },
  { tool: "message_user", parameter: "blockOnUser", type: "boolean", why: "whether the turn passes to the user" },
  { tool: "todo", parameter: "tasks", type: "array", why: "the whole task list" },
  { tool: "load_tool_namespace", parameter: "name", type: "string", why: "the namespace to load, by its name in the catalog" },
];
