// The workspace file service of the servers example: the user saves brief.xml
// while no server hosts the session; the service publishes the artifact_update
// after the save, by session key (no Pi, no session object).
import pg from "pg";
import { publishUpdate } from "../../lib/runtime-postgres/index.js";

const { connection, sessionKey } = JSON.parse(process.env.EXAMPLE_SERVER);
const pool = new pg.Pool(connection);
const { stored, injection } = await publishUpdate(pool, sessionKey, {
  id: "evt_brief_saved",
  kind: "artifact_update",
  occurredAt: new Date().toISOString(),
  source: "workspace",
  delivery: "steer",
  requiresDecision: false,
  summary: "The user edited the audience of brief.xml: 5th grade now. Read the brief before the next step.",
  subject: { path: "brief.xml", revision: "r2" },
  origin: { actor: "user" },
});
console.log(`published  ${injection.kind} ${injection.id} for ${sessionKey}${stored ? "" : " (already published)"}`);
await pool.end();
