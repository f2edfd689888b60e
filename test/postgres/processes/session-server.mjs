// An agent server process for the multi-process tests: it hosts every session
// of SESSIONS whose lease it can take, runs a turn on a hosted session whenever
// the session has pending events (or TURNS turns have not run yet), on Pi's faux
// provider, and writes what each model call carried (the event ids in its
// context) to LOG as JSON lines; a session whose previous host died before the model answered gets a turn
// to carry on. SIGTERM: it lets every session go and writes
// each one's final state. It prints `hosted <key>` and, when a tool batch starts,
// `batch <key> <turn>`, so a test can kill it at that moment.
import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import pg from "pg";
import { loadArtifacts } from "../../../lib/runtime/index.js";
import { PostgresSessions, SessionLeasedError } from "../../../lib/runtime-postgres/index.js";

const config = JSON.parse(process.env.SERVER ?? "{}");
const { connection, sessions: sessionKeys, log, hostId, leaseMs = 1000, turns = 1, slowMs = 0, connector = false } = config;
const artifacts = loadArtifacts();
const pool = new pg.Pool({ ...connection, max: 20 });
pool.on("error", () => {});
const faux = registerFauxProvider();

// The model: a new user turn gets a parallel batch (the task list, a skill, a slow read); tool results get an answer.
const step = (context) => {
  const last = context.messages.at(-1);
  const ids = [...JSON.stringify(context.messages).matchAll(/id=\\"([^"\\]+)\\"/g)].map((match) => match[1]);
  appendFileSync(log, `${JSON.stringify({ host: hostId, session: currentSession(context), ids })}\n`);
  if (last?.role === "toolResult") return fauxAssistantMessage("Done for now.");
  return fauxAssistantMessage(
    [
      fauxToolCall("todo", { tasks: [{ id: "t1", title: `Turn at ${Date.now()}`, status: "in_progress" }] }),
      fauxToolCall("skill", { name: "drive-files" }),
      fauxToolCall("read", { path: "brief.xml" }),
    ],
    { stopReason: "toolUse" },
  );
};
faux.setResponses(Array.from({ length: 50_000 }, () => step));
/** The session a call belongs to: its first user message names it. */
function currentSession(context) {
  const text = JSON.stringify(context.messages);
  return /session (\S+?) turn/.exec(text)?.[1];
}

const DRIVE = ["drive_search", "drive_list_folder", "drive_get_file", "drive_download"];
const plain = (name) => async () => ({ content: [{ type: "text", text: `${name} ok` }] });
function executorsFor(sessionKey, turn) {
  return {
    ...Object.fromEntries(["bash", "write", "edit", "subagent", "show_gamma", "show_file", ...DRIVE].map((name) => [name, plain(name)])),
    read: async () => {
      process.stdout.write(`batch ${sessionKey} ${turn.value}\n`);
      if (slowMs > 0) await new Promise((resolve) => setTimeout(resolve, slowMs));
      return { content: [{ type: "text", text: "brief r1" }] };
    },
  };
}
const NOTION = {
  name: "notion",
  description: "Use for reading the team's Notion pages when the user names one.",
  tools: [{ name: "notion_search", description: "Searches the team's Notion pages by title.", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false } }],
};
const notionExecutors = { notion_search: plain("notion_search") };

const server = await PostgresSessions.start({ pool, hostId, leaseMs, waitForLeaseMs: 0, onError: () => {} });
const hosted = new Map();
let stopping = false;

async function tryHost(sessionKey) {
  const turn = { value: 0 };
  try {
    const opened = await server.openAgent({
      sessionKey,
      artifacts,
      variant: "base",
      model: faux.getModel(),
      executors: executorsFor(sessionKey, turn),
      restoreConnector: (stored) => (stored.name === "notion" ? notionExecutors : undefined),
      knowledge: { maxHints: 0 },
    });
    turn.value = opened.controller.state.tasks.revision;
    // A run the previous host did not finish (killed before the model answered) is carried on, as the guide says a
    // host does after a takeover: its transcript ends without the model's last word.
    const last = opened.agent.state.messages.at(-1);
    const interrupted = last !== undefined && (last.role !== "assistant" || last.stopReason === "toolUse");
    hosted.set(sessionKey, { opened, turn, busy: false, interrupted });
    if (connector && opened.controller.connectors.length === 0) opened.controller.registerConnector({ ...NOTION, executors: notionExecutors });
    const state = opened.controller.state;
    process.stdout.write(
      `hosted ${sessionKey} ${JSON.stringify({ at: Date.now(), skills: state.activeSkills.map((skill) => skill.name), tasks: state.tasks.revision, namespaces: opened.controller.loadedNamespaces.map((namespace) => namespace.name), connectors: opened.controller.connectors.map((c) => c.name), pending: state.pendingInjections.length, messages: opened.agent.state.messages.length })}\n`,
    );
  } catch (error) {
    if (!(error instanceof SessionLeasedError)) process.stdout.write(`open-failed ${sessionKey} ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

async function runTurn(sessionKey, entry) {
  entry.busy = true;
  entry.interrupted = false;
  entry.turn.value += 1;
  try {
    await entry.opened.agent.prompt(entry.opened.controller.buildTurnMessages({ text: `session ${sessionKey} turn ${entry.turn.value}` }));
  } catch (error) {
    process.stdout.write(`stopped ${sessionKey} ${error?.name} ${error?.cause?.name ?? ""}\n`);
    hosted.delete(sessionKey);
    await entry.opened.dispose().catch(() => {});
  } finally {
    entry.busy = false;
  }
}

async function loop() {
  while (!stopping) {
    for (const key of sessionKeys) if (!hosted.has(key) && !stopping) await tryHost(key);
    for (const [key, entry] of hosted) {
      if (entry.busy || stopping) continue;
      const state = entry.opened.controller.state;
      if (state.pendingInjections.length > 0 || entry.turn.value < turns || entry.interrupted) void runTurn(key, entry);
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

process.on("SIGTERM", async () => {
  stopping = true;
  while ([...hosted.values()].some((entry) => entry.busy)) await new Promise((resolve) => setTimeout(resolve, 10));
  for (const [key, entry] of hosted) {
    await entry.opened.controller.flush().catch(() => {});
    appendFileSync(log, `${JSON.stringify({ host: hostId, final: key, state: entry.opened.controller.state })}\n`);
  }
  await server.close();
  await pool.end();
  process.stdout.write("closed\n");
  process.exit(0);
});

process.stdout.write(`ready ${hostId}\n`);
void loop();
