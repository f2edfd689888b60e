// One agent server of the servers example (examples/servers.mjs): it hosts the
// session `deck-42` in PostgreSQL and works on the deck request with the
// scripted model. `first` starts the request; `next` takes the session over
// (after the first server's lease ran out), resumes it and finishes it.
import { fauxAssistantMessage, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import pg from "pg";
import { loadArtifacts } from "../../lib/runtime/index.js";
import { PostgresSessions } from "../../lib/runtime-postgres/index.js";
import { deckRequest, printTranscript, REQUEST, verdict } from "../deck-workflow.mjs";

const { part, connection, sessionKey, leaseMs } = JSON.parse(process.env.EXAMPLE_SERVER);
const artifacts = loadArtifacts();
const faux = registerFauxProvider();
const { files, executors, FOLLOWS_THE_WORKFLOW } = deckRequest(artifacts);
const pool = new pg.Pool(connection);
pool.on("error", () => {});
const sessions = await PostgresSessions.start({ pool, leaseMs, waitForLeaseMs: leaseMs * 3 });
const events = [];
/** The render step is the fifth batch: the first server is stopped while it runs. */
const RENDER = 5;
const hostExecutors = {
  ...executors,
  bash: async (id, params) => {
    if (part === "first" && params.command.startsWith("gml render")) {
      console.log("  ...      gml render is running (a long tool call)");
      await new Promise(() => {});
    }
    return executors.bash(id, params);
  },
};

const opening = Date.now();
const hosted = await sessions.openAgent({ sessionKey, artifacts, variant: "base", model: faux.getModel(), executors: hostExecutors, onProtocolEvent: (event) => events.push(event) });
const state = hosted.controller.state;
console.log(
  `hosting ${sessionKey} (lease token ${hosted.lease.token}, waited ${Date.now() - opening} ms): ${state.activeSkills.length === 0 ? "a new session" : `active skills ${state.activeSkills.map((skill) => skill.name).join(", ")}; tasks revision ${state.tasks.revision}; ${hosted.agent.state.messages.length} messages in the transcript`}`,
);
for (const pending of state.pendingInjections) console.log(`pending    ${pending.kind} ${pending.id}: ${JSON.parse(JSON.stringify(pending.data)).summary}`);
printTranscript(hosted.agent);
if (part === "first") {
  faux.setResponses(FOLLOWS_THE_WORKFLOW.slice(0, RENDER + 1));
  console.log(`user       ${REQUEST}`);
  await hosted.agent.prompt(hosted.controller.buildTurnMessages({ text: REQUEST }));
} else {
  // The workspace is shared storage, not the server's: the brief the first server wrote, as the user edited it since.
  files.set("brief.xml", '<brief topic="Tide pools" audience="5th grade" cards="5"/>\n');
  // The model sees the transcript up to the render call, whose result never came, and carries on from there.
  faux.setResponses([...FOLLOWS_THE_WORKFLOW.slice(RENDER), fauxAssistantMessage("Done.")]);
  const text = "The server you were on restarted; please carry on.";
  console.log(`user       ${text}`);
  await hosted.agent.prompt(hosted.controller.buildTurnMessages({ text }));
  console.log("");
  for (const line of verdict(events, hosted.controller, artifacts)) console.log(line);
  await hosted.dispose();
  await sessions.close();
  await pool.end();
}
