/**
 * The tools the runtime implements itself, by name: shared by the runtime,
 * which serves them, and the compiler, which checks that an agent's tool set
 * declares the ones the runtime cannot start without.
 */
export const RUNTIME_TOOL_NAMES = ["skill", "todo", "message_user", "read_workspace_rule", "load_tool_namespace"] as const;
export type RuntimeToolName = (typeof RUNTIME_TOOL_NAMES)[number];

/** Runtime tools every tools.json must declare: the prefix's protocol tells the model to use them, so a session refuses to start without them. */
export const REQUIRED_RUNTIME_TOOLS: readonly RuntimeToolName[] = ["skill", "todo", "message_user"];

/** The runtime tool that fetches a knowledge note; knowledge hints tell the model to call it. */
export const KNOWLEDGE_TOOL: RuntimeToolName = "read_workspace_rule";
