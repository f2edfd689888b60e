// A host process for bench/postgres.bench.mjs's takeover: it opens one session, says `hosted`, and waits to be killed.
import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import pg from "pg";
import { loadArtifacts } from "../../lib/runtime/index.js";
import { PostgresSessions } from "../../lib/runtime-postgres/index.js";

const { connection, sessionKey, leaseMs } = JSON.parse(process.env.BENCH);
const pool = new pg.Pool(connection);
const faux = registerFauxProvider();
faux.setResponses([fauxAssistantMessage("ok")]);
const sessions = await PostgresSessions.start({ pool, hostId: "bench-takeover-a", leaseMs });
const executors = Object.fromEntries(["read", "bash", "write", "edit", "subagent", "show_gamma", "show_file"].map((name) => [name, async () => ({ content: [{ type: "text", text: "ok" }] })]));
await sessions.openAgent({ sessionKey, artifacts: loadArtifacts(), variant: "base", model: faux.getModel(), executors, knowledge: { maxHints: 0 } });
process.stdout.write("hosted\n");
setInterval(() => {}, 1000);
