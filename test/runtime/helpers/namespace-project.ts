/**
 * The embedded default with `load_tool_namespace` in its stable tool set, as
 * the tool namespaces guide shows it: the project of the namespace and
 * connector tests, built once per file.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { getCurrentTools, type TranscriptContext } from "@earendil-works/pi-ai";
import { expect } from "vitest";
import { build } from "../../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../../src/runtime/artifacts.js";
import { copyParts, tempDir } from "../../helpers/temp-project.js";
import { repoRoot } from "../../build/helpers.js";
import { docPage } from "../../helpers/docs.js";
import { snapshot, textOf, type fauxAssistantMessage } from "./pi.js";

export const namespaceGuide = docPage("docs/guide/tool-namespaces.md");

/** The schema a project declares to let the model load a namespace by name. */
export const LOAD_TOOL_SCHEMA = namespaceGuide.blockStartingWith('{\n  "name": "load_tool_namespace"', "json");

export async function buildNamespaceProject(label: string): Promise<LoadedArtifacts> {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir(label), "project"));
  await writeFile(join(root, "schemas/tools/load_tool_namespace.json"), LOAD_TOOL_SCHEMA);
  const order = JSON.parse(await readFile(join(root, "schemas/tools/order.json"), "utf8")) as string[];
  await writeFile(join(root, "schemas/tools/order.json"), `${JSON.stringify([...order.slice(0, -1), "load_tool_namespace", ...order.slice(-1)])}\n`);
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return loadArtifacts({ distDir: join(root, "dist") });
}

/** Every tool a call declares: the leading system message's, changed by every later one. */
export interface Call {
  tools: string[];
  /** Tools a later system message adds (in place, after the head). */
  added: string[];
  /** Tools a later system message removes. */
  removed: string[];
  toolResults: string[];
  text: string;
}

export function recordCall(calls: Call[], context: TranscriptContext): void {
  const seen = snapshot(context);
  calls.push({
    tools: getCurrentTools(context.messages).map((tool) => tool.name),
    added: context.messages.slice(1).flatMap((message) => (message.role === "system" ? (message.toolsAdded ?? []).map((tool) => tool.name) : [])),
    removed: context.messages.slice(1).flatMap((message) => (message.role === "system" ? (message.toolsRemoved ?? []).map((tool) => tool.name) : [])),
    toolResults: seen.messages.flatMap((message) => (message.role === "toolResult" ? [`${message.isError ? "error: " : ""}${textOf(message)}`] : [])),
    text: seen.messages.map((message) => textOf(message)).join("\n"),
  });
}

export const replying = (calls: Call[], reply: ReturnType<typeof fauxAssistantMessage>) => (context: TranscriptContext) => {
  recordCall(calls, context);
  return reply;
};

