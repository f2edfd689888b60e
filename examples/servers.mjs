// Sessions that outlive their server, end to end: a temporary PostgreSQL
// server, an agent server that starts a deck request and is killed in the
// middle of a tool batch, the workspace file service publishing the user's
// save while no server hosts the session, and a second agent server that
// takes the session over after the lease, resumes it and finishes it, with the
// completion audit of the resumed session.
//
//   npm run example -- --servers
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migratePostgres } from "../lib/runtime-postgres/index.js";
import { startPostgres } from "../scripts/postgres-server.mjs";

const sessionKey = "deck-42";
const leaseMs = 2000;
const db = await startPostgres();
const connection = { host: db.host, port: db.port, user: db.user, database: db.database };
const pool = new pg.Pool(connection);
const migrated = await migratePostgres(pool);
await pool.end();
console.log(`PostgreSQL on 127.0.0.1:${db.port}, schema at migration ${migrated.version}; session ${sessionKey}, lease ${leaseMs} ms\n`);

/** Runs one process of the example, its lines prefixed with its name; resolves with the process. */
function start(name, script, part, onLine = () => {}) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    env: { ...process.env, EXAMPLE_SERVER: JSON.stringify({ part, connection, sessionKey, leaseMs }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let buffer = "";
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop();
    for (const line of lines) {
      console.log(`${name.padEnd(12)}│ ${line}`);
      onLine(line);
    }
  });
  return { child, exited: new Promise((resolve) => child.once("exit", resolve)) };
}

let rendering;
const rendered = new Promise((resolve) => (rendering = resolve));
const first = start("server-a", "./servers/agent-server.mjs", "first", (line) => line.includes("gml render is running") && rendering());
await rendered;
first.child.kill("SIGKILL");
await first.exited;
console.log(`${"".padEnd(12)}│ ✗ server-a killed in the middle of a tool batch`);
await start("files", "./servers/file-service.mjs", "save").exited;
const second = start("server-b", "./servers/agent-server.mjs", "next");
const code = await second.exited;
await db.stop();
process.exitCode = code ?? 1;
