import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter, type InitializeResult, type Message, type WorkspaceEdit } from "vscode-languageserver/node";
import { removeTempDirs } from "../helpers/temp-project.js";
import { runCliInProcess } from "../helpers/cli.js";
import { attach, CLIENT_CAPABILITIES, copyEmbeddedDefault, repoRoot } from "./client.js";

const IMPORT = "skills/import/SKILL.md";
const OTHER = "skills/gml-cli/SKILL.md";

afterEach(removeTempDirs);

/** `gamma-prompt lsp --stdio` as an editor starts it, on a copy of the embedded default, with a client on its pipes. */
async function spawnServer() {
  const root = await copyEmbeddedDefault();
  const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "lsp", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const client = attach(createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin)), root);
  return { root, client, exited, stderr: () => stderr };
}

/** The server with raw frames written to it and its answers read by id, for what no client library sends. */
async function spawnRaw() {
  const root = await copyEmbeddedDefault();
  const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "lsp", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  // A write after the server has gone is the test's own EPIPE, not the server's.
  child.stdin.on("error", () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const received: Message[] = [];
  let waiter: (() => void) | undefined;
  new StreamMessageReader(child.stdout).listen((message) => {
    received.push(message);
    waiter?.();
  });
  const answer = (id: number): Promise<Message> =>
    new Promise((resolve) => {
      const check = (): void => {
        const found = received.find((message) => "id" in message && (message as { id: unknown }).id === id && !("method" in message));
        if (found) resolve(found);
      };
      waiter = check;
      check();
    });
  const frame = (message: object): void => {
    const bytes = Buffer.from(JSON.stringify(message), "utf8");
    child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, "ascii"), bytes]));
  };
  return { root, child, frame, answer, exited, stderr: () => stderr };
}

describe("gamma-prompt lsp --stdio", () => {
  it("initializes, publishes a diagnostic, renames, and exits with code 0 after shutdown and exit", async () => {
    const { root, client, exited, stderr } = await spawnServer();

    const initialized = await client.connection.sendRequest<InitializeResult>("initialize", { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES });
    expect(initialized.serverInfo?.name).toBe("gamma-prompt");
    expect(initialized.capabilities.renameProvider).toEqual({ prepareProvider: true });
    await client.connection.sendNotification("initialized", {});

    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    await client.open(IMPORT, onDisk.replace(/^name: import$/m, "name: importer"));
    const diagnostics = await client.diagnosticsFor(IMPORT, (found) => found.length > 0);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toContain("skill/name-mismatch");
    const since = client.published.length;
    await client.change(IMPORT, onDisk);
    await client.diagnosticsFor(IMPORT, (found) => found.length === 0, since);

    const edit = await client.connection.sendRequest<WorkspaceEdit>("textDocument/rename", {
      textDocument: { uri: client.uri("skills/deck-generation/SKILL.md") },
      position: { line: 6, character: 26 },
      newName: "importer",
    });
    expect(edit.documentChanges?.at(-1)).toEqual({ kind: "rename", oldUri: client.uri("skills/import"), newUri: client.uri("skills/importer") });

    await client.connection.sendRequest("shutdown");
    await client.connection.sendNotification("exit");
    expect(await exited).toBe(0);
    expect(stderr()).toBe("");
    client.connection.dispose();
  });

  it("answers as the protocol's lifecycle says: not initialized before initialize, invalid params named, invalid after shutdown", async () => {
    const { root, client, exited, stderr } = await spawnServer();
    const hover = { textDocument: { uri: client.uri(IMPORT) }, position: { line: 1, character: 2 } };

    await expect(client.connection.sendRequest("textDocument/hover", hover)).rejects.toMatchObject({ code: -32002, message: "Unexpected textDocument/hover before initialize, expected initialize first" });
    await client.connection.sendRequest<InitializeResult>("initialize", { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES });
    await client.connection.sendNotification("initialized", {});
    await expect(client.connection.sendRequest("textDocument/hover", {})).rejects.toMatchObject({ code: -32602, message: "Unexpected params, expected { textDocument: { uri }, position: { line, character } }" });
    await expect(client.connection.sendRequest("textDocument/codeLens", { textDocument: {} })).rejects.toMatchObject({ code: -32602, message: "Unexpected params, expected { textDocument: { uri } }" });
    await expect(client.connection.sendRequest("workspace/executeCommand", {})).rejects.toMatchObject({ code: -32602, message: "Unexpected params, expected { command: string }" });
    await expect(client.connection.sendRequest("gamma-prompt/unknown", {})).rejects.toMatchObject({ code: -32601, message: "Unhandled method gamma-prompt/unknown" });
    expect(await client.connection.sendRequest("textDocument/hover", hover)).not.toBeUndefined();

    await client.connection.sendRequest("shutdown");
    await expect(client.connection.sendRequest("textDocument/hover", hover)).rejects.toMatchObject({ code: -32600, message: "Unexpected request after shutdown, expected only the exit notification" });
    await client.connection.sendNotification("exit");
    expect(await exited).toBe(0);
    expect(stderr()).toBe("");
    client.connection.dispose();
  });

  it("allows one initialize per session: a second one, and shutdown or initialize after shutdown, get InvalidRequest", async () => {
    const { root, client, exited, stderr } = await spawnServer();
    const initialize = { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES };
    const hover = { textDocument: { uri: client.uri(IMPORT) }, position: { line: 1, character: 2 } };
    const first = await client.connection.sendRequest<InitializeResult>("initialize", initialize);
    expect(first.serverInfo?.name).toBe("gamma-prompt");
    await client.connection.sendNotification("initialized", {});
    await expect(client.connection.sendRequest("initialize", initialize)).rejects.toMatchObject({ code: -32600, message: "Unexpected second initialize, expected one initialize per session" });
    // The server goes on serving the first session.
    expect(await client.connection.sendRequest("textDocument/hover", hover)).not.toBeUndefined();

    expect(await client.connection.sendRequest("shutdown")).toBeNull();
    const afterShutdown = { code: -32600, message: "Unexpected request after shutdown, expected only the exit notification" };
    await expect(client.connection.sendRequest("shutdown")).rejects.toMatchObject(afterShutdown);
    await expect(client.connection.sendRequest("initialize", initialize)).rejects.toMatchObject(afterShutdown);
    await expect(client.connection.sendRequest("textDocument/hover", hover)).rejects.toMatchObject(afterShutdown);
    await client.connection.sendNotification("exit");
    expect(await exited).toBe(0);
    expect(stderr()).toBe("");
    client.connection.dispose();
  });

  it("answers a body that is not JSON with a Parse error and JSON that is no message with an Invalid Request, then goes on serving", async () => {
    const root = await copyEmbeddedDefault();
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "lsp", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const received: Message[] = [];
    const waiters: Array<() => void> = [];
    new StreamMessageReader(child.stdout).listen((message) => {
      received.push(message);
      for (const waiter of waiters.splice(0)) waiter();
    });
    /** The answer with this id (null: the next answer with id null not yet taken). */
    const taken = new Set<Message>();
    const answer = (id: number | string | null): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        const check = (): void => {
          const found = received.find((message) => !taken.has(message) && "id" in message && (message as { id: unknown }).id === id && !("method" in message));
          if (found) {
            taken.add(found);
            resolve(found as unknown as Record<string, unknown>);
          } else waiters.push(check);
        };
        check();
      });
    const frame = (body: string): void => {
      const bytes = Buffer.from(body, "utf8");
      child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, "ascii"), bytes]));
    };
    const parseError = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
    const invalid = (id: number | string | null) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request" } });

    frame('{"jsonrpc": "2.0", "method": "initialize", "id": 1, "params": {');
    expect(await answer(null)).toEqual(parseError);
    frame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES } }));
    expect(((await answer(1))["result"] as InitializeResult).serverInfo?.name).toBe("gamma-prompt");
    frame(JSON.stringify({ jsonrpc: "2.0", method: "initialized", params: {} }));

    // Not JSON at all, an empty body, and JSON that is no request: each answered, in order.
    for (const body of ["not json", "", "[1,2", "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\""]) {
      frame(body);
      expect(await answer(null)).toEqual(parseError);
    }
    for (const body of ["[]", '"hover"', "42", "null", "{}", '{"jsonrpc": "2.0", "method": "textDocument/hover", "id": null}', '{"jsonrpc": "2.0", "method": "textDocument/hover", "id": {"n": 1}}']) {
      frame(body);
      expect(await answer(null)).toEqual(invalid(null));
    }
    // An id that can be read is given back.
    frame('{"jsonrpc": "2.0", "method": 5, "id": 3}');
    expect(await answer(3)).toEqual(invalid(3));
    frame('{"jsonrpc": "2.0", "id": "four", "method": ["textDocument/hover"]}');
    expect(await answer("four")).toEqual(invalid("four"));

    // An id with no method answers a request of the server's: a response, never answered.
    frame('{"jsonrpc": "2.0", "id": 99}');
    // The session goes on as if nothing had come.
    frame(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "textDocument/hover", params: { textDocument: { uri: pathToFileURL(join(root, IMPORT)).href }, position: { line: 1, character: 2 } } }));
    expect(await answer(5)).toHaveProperty("result");
    expect(received.filter((message) => "id" in message && (message as { id: unknown }).id === 99)).toEqual([]);
    frame(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "shutdown" }));
    expect(await answer(6)).toEqual({ jsonrpc: "2.0", id: 6, result: null });
    frame(JSON.stringify({ jsonrpc: "2.0", method: "exit" }));
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });

  it("drops notifications before initialize, refuses shutdown before it and initialize params it cannot read, and drops a cancellation that names no request, still serving", async () => {
    const { child, frame, answer, exited, stderr, root } = await spawnRaw();
    const diagnostics: Array<{ uri: string; diagnostics: unknown[] }> = [];
    new StreamMessageReader(child.stdout).listen((message) => {
      if ((message as { method?: string }).method === "textDocument/publishDiagnostics") diagnostics.push((message as unknown as { params: { uri: string; diagnostics: unknown[] } }).params);
    });
    const uri = pathToFileURL(join(root, IMPORT)).href;
    const onDisk = readFileSync(join(root, IMPORT), "utf8");
    // A buffer opened before initialize, with a name no skill may have: no part of the session.
    frame({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri, languageId: "markdown", version: 1, text: onDisk.replace(/^name: .*$/m, "name: Not_A_Name") } } });
    frame({ jsonrpc: "2.0", id: 1, method: "shutdown" });
    expect(await answer(1)).toMatchObject({ error: { code: -32002, message: "Unexpected shutdown before initialize, expected initialize first" } });
    // An initialize whose params cannot be read is InvalidParams, and a valid one may follow.
    const malformed = [{}, null, { capabilities: null }, { capabilities: {}, rootUri: 5 }, { capabilities: {}, workspaceFolders: [{ uri: 7 }] }];
    for (const [index, params] of malformed.entries()) {
      frame({ jsonrpc: "2.0", id: 10 + index, method: "initialize", params });
      expect(await answer(10 + index), JSON.stringify(params)).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/^Unexpected initialize params, expected /) as unknown } });
    }
    frame({ jsonrpc: "2.0", id: 2, method: "initialize", params: { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES } });
    expect(await answer(2)).toHaveProperty("result");
    frame({ jsonrpc: "2.0", method: "initialized", params: {} });
    for (const params of [{}, null, { id: null }, { id: { n: 1 } }, undefined]) frame({ jsonrpc: "2.0", method: "$/cancelRequest", ...(params === undefined ? {} : { params }) });
    frame({ jsonrpc: "2.0", id: 3, method: "textDocument/hover", params: { textDocument: { uri }, position: { line: 1, character: 2 } } });
    expect(await answer(3)).toHaveProperty("result");
    // A buffer opened now is analysed; by the time its findings are out, the early one would have had its own.
    const other = pathToFileURL(join(root, OTHER)).href;
    frame({ jsonrpc: "2.0", method: "textDocument/didOpen", params: { textDocument: { uri: other, languageId: "markdown", version: 1, text: readFileSync(join(root, OTHER), "utf8").replace(/^name: .*$/m, "name: Not_A_Name") } } });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (diagnostics.some((published) => published.uri === other && JSON.stringify(published).includes("skill/name-format"))) resolve(void clearInterval(poll));
      }, 10);
    });
    expect(diagnostics.filter((published) => published.uri === uri && JSON.stringify(published).includes("skill/name-format"))).toEqual([]);
    frame({ jsonrpc: "2.0", id: 5, method: "shutdown" });
    expect(await answer(5)).toEqual({ jsonrpc: "2.0", id: 5, result: null });
    frame({ jsonrpc: "2.0", method: "exit" });
    expect(await exited).toBe(0);
    expect(stderr()).toBe("");
  });

  it("exits quietly when the client closes the pipe the answers go to: 0 after shutdown, 1 without it, never a stack trace", async () => {
    for (const [shutDown, code] of [[true, 0], [false, 1]] as const) {
      const { child, frame, answer, exited, stderr, root } = await spawnRaw();
      frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES } });
      await answer(1);
      frame({ jsonrpc: "2.0", method: "initialized", params: {} });
      if (shutDown) {
        frame({ jsonrpc: "2.0", id: 2, method: "shutdown" });
        await answer(2);
      }
      child.stdout.destroy();
      // Its answer can no longer be written anywhere.
      frame({ jsonrpc: "2.0", id: 3, method: "textDocument/hover", params: { textDocument: { uri: pathToFileURL(join(root, IMPORT)).href }, position: { line: 1, character: 2 } } });
      expect(await exited).toBe(code);
      expect(stderr()).toBe("");
    }
  });

  it("stops with one line on stderr and exit 1 when a frame header cannot be read, since no later message can be found", async () => {
    for (const header of ["Content-Length: abc\r\n\r\n{}", "Content-Type: application/json\r\n\r\n{}"]) {
      const { child, frame, answer, exited, stderr, root } = await spawnRaw();
      frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES } });
      await answer(1);
      child.stdin.write(header);
      expect(await exited).toBe(1);
      expect(stderr()).toMatch(/^gamma-prompt lsp: [^\n]*Content-Length[^\n]*; the input cannot be read past it, so the server stops\n$/);
    }
  });

  it("exits with code 0 when the client closes the pipe after shutdown, 1 without it", async () => {
    for (const [shutDown, code] of [[true, 0], [false, 1]] as const) {
      const { root, client, exited } = await spawnServer();
      await client.connection.sendRequest<InitializeResult>("initialize", { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: CLIENT_CAPABILITIES });
      await client.connection.sendNotification("initialized", {});
      if (shutDown) await client.connection.sendRequest("shutdown");
      client.connection.end();
      expect(await exited).toBe(code);
      client.connection.dispose();
    }
  });

  it("refuses a --debounce that is no whole number of milliseconds in one usage line (exit 2), never a stack trace", async () => {
    for (const value of ["abc", "-1", "1.5"]) {
      const refused = await runCliInProcess("lsp", "--stdio", "--debounce", value);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`argument '${value}' is invalid. Expected a whole number of milliseconds, 0 or more.`);
      expect(refused.stderr).not.toContain("    at ");
    }
  });

  it("refuses a --debounce above the documented one-minute maximum (exit 2): Node's timers would fire at once", async () => {
    for (const value of ["60001", "3000000000"]) {
      const refused = await runCliInProcess("lsp", "--stdio", "--debounce", value);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`argument '${value}' is invalid. Expected at most 60000 milliseconds (one minute).`);
    }
  });
});
