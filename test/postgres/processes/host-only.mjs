// A server process that only hosts sessions, set up as the guide sets one up
// (a pool with an `error` listener, one PostgresSessions): it opens WORKER's
// session and waits for the events other services publish, with no handle of
// its own that keeps Node running. It prints `hosting <key>` once the session is
// open, `lost <during>` for each failure the server reports, and on SIGTERM lets
// the session go, closes, prints `closed` and ends by itself, as Node does
// once nothing is left to wait for.
import { registerFauxProvider } from "@earendil-works/pi-ai/compat";
import pg from "pg";
import { loadArtifacts } from "../../../lib/runtime/index.js";
import { PostgresSessions } from "../../../lib/runtime-postgres/index.js";

const { connection, sessionKey, leaseMs } = JSON.parse(process.env.WORKER ?? "{}");
const pool = new pg.Pool({ ...connection, max: 5 });
pool.on("error", () => process.stdout.write("lost pool\n"));
const sessions = await PostgresSessions.start({ pool, leaseMs, onError: (_error, during) => process.stdout.write(`lost ${during}\n`) });
const faux = registerFauxProvider();
const tools = ["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"];
const executors = Object.fromEntries(tools.map((name) => [name, async () => ({ content: [{ type: "text", text: `${name}: done` }] })]));
const hosted = await sessions.openAgent({ sessionKey, artifacts: loadArtifacts(), variant: "base", model: faux.getModel(), executors, knowledge: { maxHints: 0 } });

process.once("SIGTERM", async () => {
  await hosted.dispose();
  await sessions.close();
  await pool.end();
  faux.unregister();
  process.stdout.write("closed\n");
});
process.stdout.write(`hosting ${sessionKey}\n`);
