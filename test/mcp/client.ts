/**
 * The MCP SDK's own client over a real stdio transport: `gamma-prompt mcp`
 * spawned from the built CLI in a project folder, as a coding agent starts it.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { copyParts, removeTempDirs } from "../helpers/temp-project.js";
import { copyEmbeddedDefault, repoRoot } from "../lsp/client.js";

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Calls a tool; the result as the client received it (structuredContent already checked against the tool's outputSchema). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Writes bytes to the server's stdin past the client: what no SDK client sends (junk, a line of any size). */
  writeRaw(text: string): void;
  /** Closes the client's end and resolves to the server's exit code. */
  close(): Promise<number | null>;
}

const sessions: McpSession[] = [];

export async function startMcp(root: string, args: readonly string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(repoRoot, "lib", "cli", "index.js"), "mcp", ...args], cwd: root, stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  let stderr = "";
  (transport.stderr as Readable | null)?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "gamma-prompt-tests", version: "1.0.0" });
  await client.connect(transport);
  // The SDK keeps the spawned process to itself; its exit code is what a clean shutdown is judged by.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  const exited = new Promise<number | null>((resolve) => {
    if (!child || child.exitCode !== null) resolve(child?.exitCode ?? null);
    else child.once("exit", (code) => resolve(code));
  });
  const session: McpSession = {
    client,
    stderr: () => stderr,
    call: async (name, toolArgs = {}) => (await client.callTool({ name, arguments: toolArgs })) as CallToolResult,
    writeRaw: (text) => void child?.stdin?.write(text),
    async close() {
      await client.close();
      return exited;
    },
  };
  sessions.push(session);
  return session;
}

export async function closeSessions(): Promise<void> {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
}

/** A tool result's structured content, failing with the tool's message when it is an error. */
export function structured<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** A tool error's message. */
export function toolError(result: CallToolResult): string {
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  const [first] = result.content;
  return first?.type === "text" ? first.text : "";
}

/** What each test started: its servers stopped, then its folders removed (an afterEach of every MCP test file). */
export async function closeSessionsAndFolders(): Promise<void> {
  await closeSessions();
  await removeTempDirs();
}

/** The embedded default's sources and its committed dist/, in a fresh folder. */
export async function embeddedDefault(): Promise<string> {
  return copyParts(repoRoot, ["dist"], await copyEmbeddedDefault());
}
