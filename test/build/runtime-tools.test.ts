/**
 * An agent's tool set holds what its runtime needs: the tools the runtime
 * implements and starts no session without, and the knowledge tool when the
 * agent has notes. The build judges an agent by the runtime's own list, so a
 * project it accepts is one the runtime starts; a failed build leaves dist/
 * as it was. A skills collection is no agent and is not judged.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import type { ToolSchemaArtifact } from "../../src/protocol/dist-manifest.js";
import { REQUIRED_RUNTIME_TOOLS } from "../../src/protocol/runtime-tools.js";
import { assembleTools, RUNTIME_TOOL_NAMES, ToolSetupError, type ToolExecutor } from "../../src/runtime/tools.js";
import { removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const ORDER = "schemas/tools/order.json";

/** An init agent, built once, then without one tool: its file and its entry in the order. */
async function builtAgentWithout(tool: string): Promise<{ root: string; tools: ToolSchemaArtifact[] }> {
  const root = await tempDir("gamma-runtime-tools");
  expect((await init({ dir: root })).ok).toBe(true);
  expect((await build({ root, persistentCache: false })).ok).toBe(true);
  const tools = JSON.parse(await readFile(join(root, "dist/tools.json"), "utf8")) as ToolSchemaArtifact[];
  await rm(join(root, `schemas/tools/${tool}.json`));
  const order = JSON.parse(await readFile(join(root, ORDER), "utf8")) as string[];
  await writeFile(join(root, ORDER), `${JSON.stringify(order.filter((name) => name !== tool))}\n`);
  return { root, tools: tools.filter((schema) => schema.name !== tool) };
}

const noop: ToolExecutor = async () => ({ content: [] });

describe("the runtime's own tools", () => {
  it.each(REQUIRED_RUNTIME_TOOLS)("an agent without `%s` fails its build at the tool order, dist/ unchanged, as the runtime refuses it", async (tool) => {
    const { root, tools } = await builtAgentWithout(tool);
    const before = await snapshotTree(join(root, "dist"));
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.ruleId}`)).toEqual([`${ORDER}:1:1 error tool/runtime-tool-missing`]);
    expect(result.diagnostics[0]?.message).toContain(`without \`${tool}\``);
    expect(await snapshotTree(join(root, "dist"))).toEqual(before);
    expect((await check({ root })).ok).toBe(false);
    expect((await lint({ root })).diagnostics.map((d) => d.ruleId)).toEqual(["tool/runtime-tool-missing"]);

    // The same tool set, as the runtime gets it: it refuses to start, naming the same tool.
    const runtime = Object.fromEntries(RUNTIME_TOOL_NAMES.map((name) => [name, noop])) as Record<(typeof RUNTIME_TOOL_NAMES)[number], ToolExecutor>;
    const executors = Object.fromEntries(tools.filter((schema) => !(RUNTIME_TOOL_NAMES as readonly string[]).includes(schema.name)).map((schema) => [schema.name, noop]));
    let refusal: unknown;
    try {
      assembleTools({ schemas: tools, runtime, executors });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ToolSetupError);
    expect((refusal as ToolSetupError).tools).toEqual([tool]);
  });

  it("a runtime tool moved into a tool namespace is missing from the stable set, where the runtime serves it", async () => {
    const { root } = await builtAgentWithout("message_user");
    await mkdir(join(root, "schemas/namespaces/chat/tools"), { recursive: true });
    await writeFile(
      join(root, "schemas/namespaces/chat/namespace.json"),
      `${JSON.stringify({ name: "chat", description: "Use when the user wants a message sent to them.", tools: ["message_user"] }, null, 2)}\n`,
    );
    const schema = JSON.parse(await readFile(join(root, "dist/tools.json"), "utf8")) as ToolSchemaArtifact[];
    await writeFile(join(root, "schemas/namespaces/chat/tools/message_user.json"), `${JSON.stringify(schema.find((tool) => tool.name === "message_user"), null, 2)}\n`);
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    const missing = result.diagnostics.filter((d) => d.ruleId === "tool/runtime-tool-missing");
    expect(missing.map((d) => `${d.file}:${d.line}:${d.column} ${d.message}`)).toEqual([
      `${ORDER}:1:1 Unexpected \`message_user\` in tool namespace \`chat\`, expected schemas/tools/message_user.json listed in schemas/tools/order.json (the runtime implements \`message_user\` in the stable set and starts no session without it there)`,
    ]);
  });

  it("a runtime tool whose schema leaves out a parameter the runtime reads fails the build at its file", async () => {
    const root = await tempDir("gamma-runtime-tools");
    expect((await init({ dir: root })).ok).toBe(true);
    const file = join(root, "schemas/tools/todo.json");
    const todo = JSON.parse(await readFile(file, "utf8")) as { parameters: { properties: Record<string, unknown>; required: string[] } };
    todo.parameters.properties = { items: todo.parameters.properties["tasks"] };
    todo.parameters.required = ["items"];
    await writeFile(file, `${JSON.stringify(todo, null, 2)}\n`);
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.ruleId}`)).toEqual(["schemas/tools/todo.json:6:19 tool/runtime-tool-parameters"]);
    expect(result.diagnostics[0]?.message).toContain("without a required array `tasks` parameter");
  });

  it("a load_tool_namespace whose schema asks for another parameter than `name` fails the build at its file (every load would be refused)", async () => {
    const root = await tempDir("gamma-runtime-tools");
    expect((await init({ dir: root })).ok).toBe(true);
    const loader: { name: string; description: string; parameters: Record<string, unknown> } = {
      name: "load_tool_namespace",
      description: "Load one tool namespace from the <tool_namespaces> catalog by its exact name.",
      parameters: { type: "object", properties: { namespace: { type: "string", minLength: 1 } }, required: ["namespace"], additionalProperties: false },
    };
    await writeFile(join(root, "schemas/tools/load_tool_namespace.json"), `${JSON.stringify(loader, null, 2)}\n`);
    const order = JSON.parse(await readFile(join(root, ORDER), "utf8")) as string[];
    await writeFile(join(root, ORDER), `${JSON.stringify([...order, "load_tool_namespace"], null, 2)}\n`);
    const result = await build({ root, persistentCache: false });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.ruleId} ${d.message}`)).toEqual([
      "schemas/tools/load_tool_namespace.json:6:19 tool/runtime-tool-parameters Unexpected `load_tool_namespace` tool without a required string `name` parameter, expected `parameters.properties.name` with type string, listed in `required` (the runtime reads it: the namespace to load, by its name in the catalog)",
    ]);
    loader.parameters = { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"], additionalProperties: false };
    await writeFile(join(root, "schemas/tools/load_tool_namespace.json"), `${JSON.stringify(loader, null, 2)}\n`);
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
  });

  it("judges only an agent: a skills collection with a tool order of its own and no prompts/ has no such finding", async () => {
    const root = await tempDir("gamma-runtime-tools");
    expect((await init({ dir: root, profile: "agentskills" })).ok).toBe(true);
    await mkdir(join(root, "schemas/tools"), { recursive: true });
    await writeFile(join(root, ORDER), "[]\n");
    const result = await lint({ root });
    expect(result.profile).toBe("agentskills");
    expect(result.diagnostics.filter((d) => d.ruleId === "tool/runtime-tool-missing")).toEqual([]);
  });
});

describe("the knowledge tool", () => {
  it("an agent with notes and without read_workspace_rule fails its build at the first note; declaring the tool builds", async () => {
    const root = await tempDir("gamma-runtime-tools");
    expect((await init({ dir: root })).ok).toBe(true);
    await mkdir(join(root, "knowledge"));
    await writeFile(join(root, "knowledge/card-text.md"), "---\nid: card-text\nname: Card text limits\nscope: Use when writing the text of cards in this workspace.\nsource: system\n---\n\nA card title is at most 8 words.\n");
    const without = await build({ root, persistentCache: false });
    expect(without.ok).toBe(false);
    expect(without.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.ruleId}`)).toEqual(["knowledge/card-text.md:1:1 knowledge/fetch-tool-missing"]);
    expect(without.diagnostics[0]?.message).toContain("`read_workspace_rule`");

    await writeFile(
      join(root, "schemas/tools/read_workspace_rule.json"),
      `${JSON.stringify({ name: "read_workspace_rule", description: "Fetch one knowledge note named in a <knowledge_hints> block.", parameters: { type: "object", properties: { knowledgeId: { type: "string" } }, required: ["knowledgeId"] } })}\n`,
    );
    const order = JSON.parse(await readFile(join(root, ORDER), "utf8")) as string[];
    await writeFile(join(root, ORDER), `${JSON.stringify([...order, "read_workspace_rule"])}\n`);
    const withTool = await build({ root, persistentCache: false });
    expect(withTool.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(withTool.ok).toBe(true);
  });
});
