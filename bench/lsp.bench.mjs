// Language server latency on a 1,000-skill project (the embedded default plus
// synthetic skills), driven by a real protocol client over the server's
// standard input and output: from spawning `gamma-prompt lsp --stdio` to the
// first diagnostics of an opened file (index included), then from each edit
// to its diagnostics (the server's default: an edit is analysed at once).
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import languageServer from "vscode-languageserver/node";
import { loadLine, median, percentile, processCpuMs } from "./helpers/live-process.mjs";
import { createProject } from "./helpers/synthetic-project.mjs";

const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = languageServer;
const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const SKILLS = 1000;
const EDITS = 20;
const FIRST_TARGET_MS = 400;
const EDIT_TARGET_MS = 50;

const root = await mkdtemp(join(tmpdir(), "gamma-lsp-bench-"));
try {
  const total = await createProject(root, SKILLS);
  const path = join(root, "skills", "synthetic-0500", "SKILL.md");
  const uri = pathToFileURL(path).href;
  const original = await readFile(path, "utf8");
  // Every edit leaves a finding or removes it, so each one is answered by a publication.
  const broken = (edit) => original.replace(/^name: .*$/m, `name: synthetic-0500-edit-${edit}`);

  const loadBefore = loadLine();
  const started = performance.now();
  const child = spawn(process.execPath, [join(repo, "lib", "cli", "index.js"), "lsp", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = [];
  connection.onNotification("textDocument/publishDiagnostics", (params) => {
    if (params.uri !== uri) return;
    const at = performance.now();
    for (const waiter of waiting.splice(0)) waiter({ at, diagnostics: params.diagnostics });
  });
  connection.onRequest("client/registerCapability", () => null);
  connection.listen();
  const nextPublication = () => new Promise((resolve) => waiting.push(resolve));

  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
  });
  // The server's own start (Node, its chunks, the protocol library), before any analysis.
  const initializeMs = performance.now() - started;
  await connection.sendNotification("initialized", {});
  const first = nextPublication();
  await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version: 1, text: broken(0) } });
  const firstPublished = await first;
  const firstMs = firstPublished.at - started;
  if (!firstPublished.diagnostics.some((diagnostic) => diagnostic.code === "skill/name-mismatch")) throw new Error(`Unexpected first diagnostics: ${JSON.stringify(firstPublished.diagnostics)}`);

  const firstCpu = processCpuMs(child.pid);
  // An opened file with an error stops the first analysis before rendering (as a build stops): the first clean
  // edit renders and measures the whole project once. It is timed on its own, then every edit is alike.
  const edit = async (number) => {
    const published = nextPublication();
    const sent = performance.now();
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri, version: number + 1 }, contentChanges: [{ text: number % 2 === 0 ? broken(number) : original }] });
    const { at, diagnostics } = await published;
    if (number % 2 === 0 !== diagnostics.length > 0) throw new Error(`Unexpected diagnostics after edit ${number}: ${JSON.stringify(diagnostics)}`);
    // A typing pause: each edit is analysed on its own, as when an author stops to look.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return at - sent;
  };
  const firstRenderMs = await edit(1);
  const latencies = [];
  const cpuBefore = processCpuMs(child.pid);
  for (let number = 2; number < EDITS + 2; number++) latencies.push(await edit(number));
  const cpuAfter = processCpuMs(child.pid);
  const loadAfter = loadLine();
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  const exitCode = await new Promise((resolve) => child.once("exit", resolve));
  connection.dispose();

  console.log(`\n${total} skills, gamma-prompt lsp --stdio`);
  console.log(`  spawn -> initialize answered (the server's start)               ${initializeMs.toFixed(0).padStart(6)} ms`);
  console.log(`  spawn -> first diagnostics of the opened file (index included)  ${firstMs.toFixed(0).padStart(6)} ms   target <= ${FIRST_TARGET_MS} ms: ${firstMs <= FIRST_TARGET_MS ? "met" : "NOT met"}`);
  if (firstCpu !== undefined) console.log(`  server CPU time until then  ${firstCpu} ms`);
  console.log(`  first clean edit (renders and measures the whole project once)  ${firstRenderMs.toFixed(0)} ms`);
  console.log(`  edit -> its diagnostics (no quiet period)            median ${median(latencies).toFixed(1).padStart(7)} ms   p90 ${percentile(latencies, 0.9).toFixed(1).padStart(7)} ms   target <= ${EDIT_TARGET_MS} ms median: ${median(latencies) <= EDIT_TARGET_MS ? "met" : "NOT met"}`);
  // Even edits leave an error (the build stops before rendering), odd ones clear it (the whole project is rendered and measured).
  const leaving = latencies.filter((_, index) => index % 2 === 0);
  const clearing = latencies.filter((_, index) => index % 2 === 1);
  console.log(`    of which edits that leave an error  median ${median(leaving).toFixed(1).padStart(7)} ms; edits that clear it  median ${median(clearing).toFixed(1).padStart(7)} ms`);
  if (cpuBefore !== undefined && cpuAfter !== undefined) console.log(`  server CPU time per edit (mean over ${EDITS})  ${((cpuAfter - cpuBefore) / EDITS).toFixed(1)} ms`);
  console.log(`  ${loadBefore} before, ${loadAfter} after; server exit code ${exitCode}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
