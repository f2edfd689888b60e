import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { repoRoot } from "../build/helpers.js";

// The package's bin compiles the bundled CLI's chunks with the code V8 compiled for them in an earlier run
// of the same command (src/cli/chunk-loader.cts). Real processes, each with its own cache folder
// (NODE_COMPILE_CACHE); NODE_DEBUG=gamma-prompt-code-cache says on stderr what each chunk found.

afterAll(removeTempDirs);

/** Whether this process may give files to another user (root): the tests of other users' files need it. */
const root = process.getuid?.() === 0;
/** The user id of `nobody`. */
const NOBODY = 65534;

const bin = join(repoRoot, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).bin["gamma-prompt"] as string);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the debug log says of each cache file: `none`, `accepted`, `rejected`, `written`, ... */
  log: string[];
}

function environment(cache: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return { ...env, NODE_COMPILE_CACHE: cache, NODE_DEBUG: "gamma-prompt-code-cache", ...extra };
}

function split(stderr: string): { stderr: string; log: string[] } {
  const lines = stderr.split("\n");
  const log = lines.filter((line) => line.startsWith("GAMMA-PROMPT-CODE-CACHE ")).map((line) => line.replace(/^GAMMA-PROMPT-CODE-CACHE \d+: /, ""));
  return { stderr: lines.filter((line) => !line.startsWith("GAMMA-PROMPT-CODE-CACHE ")).join("\n"), log };
}

function run(args: string[], cache: string, extra: Record<string, string> = {}): Run {
  const child = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: environment(cache, extra) });
  return { status: child.status, stdout: child.stdout, ...split(child.stderr) };
}

/** The same command with no cache at all: the output every run must give. */
function uncached(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" };
  delete env.NODE_DEBUG;
  const child = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** The cache files of one cache folder: gamma-prompt/<Node's version folder>/<command>-<chunk>. */
function cacheFiles(cache: string): string[] {
  const base = join(cache, "gamma-prompt");
  if (!existsSync(base)) return [];
  return readdirSync(base).flatMap((version) => readdirSync(join(base, version)).map((file) => join(base, version, file)));
}

async function project(): Promise<string[]> {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge", "dist", "gamma-prompt.config.json"], join(await tempDir(), "project"));
  return ["lint", "--root", root];
}

describe("the code cache of the bundled CLI", () => {
  it("keeps each command's compiled code after its first run and takes it in the next, with the same output", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    const first = run(lint, cache);
    expect({ status: first.status, stdout: first.stdout, stderr: first.stderr }).toEqual(expected);
    expect(first.log.filter((line) => line.endsWith(": none")).length).toBeGreaterThanOrEqual(3);
    expect(first.log.filter((line) => line.endsWith(": written"))).toHaveLength(first.log.filter((line) => line.endsWith(": none")).length);
    const files = cacheFiles(cache);
    expect(files.map((file) => file.slice(file.lastIndexOf("/") + 1)).every((name) => name.startsWith("lint-"))).toBe(true);
    expect(files.some((file) => /lint-gamma-prompt-lint-[\w-]+\.cjs$/.test(file))).toBe(true);
    const sizes = files.map((file) => statSync(file).size);

    const second = run(lint, cache);
    expect({ status: second.status, stdout: second.stdout, stderr: second.stderr }).toEqual(expected);
    expect(second.log.length).toBe(files.length);
    expect(second.log.every((line) => line.endsWith(": accepted"))).toBe(true);
    // Taken, not written again.
    expect(cacheFiles(cache).map((file) => statSync(file).size)).toEqual(sizes);

    // Another command keeps its own files.
    const check = run(["check", ...lint.slice(1)], cache);
    expect(check.status).toBe(0);
    expect(cacheFiles(cache).some((file) => /[\\/]check-gamma-prompt-start-[\w-]+\.cjs$/.test(file))).toBe(true);
  });

  it("keeps the functions compiled on first call, not only each chunk's top level", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    run(lint, cache);
    const lintChunk = cacheFiles(cache).find((file) => /lint-gamma-prompt-lint-[\w-]+\.cjs$/.test(file)) as string;
    // A help run loads the same start chunk but writes nothing: a run that printed help is no measure of the command.
    const helpCache = await tempDir("gamma-prompt-code-cache");
    const help = run(["lint", "--help"], helpCache);
    expect(help.status).toBe(0);
    expect(help.log.every((line) => line.endsWith(": none"))).toBe(true);
    expect(cacheFiles(helpCache)).toEqual([]);
    // The chunk's text against the code kept for it: with only the top level compiled, V8's code is about half the text's size.
    const chunkText = readdirSync(join(repoRoot, "lib")).find((file) => /^gamma-prompt-lint-[\w-]+\.cjs$/.test(file)) as string;
    expect(statSync(lintChunk).size).toBeGreaterThan(0.7 * statSync(join(repoRoot, "lib", chunkText)).size);
  });

  it("ignores a corrupt or truncated cache file, or one V8 refuses, and writes it again", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    const files = cacheFiles(cache);
    const [damaged, truncated, foreign] = files.sort((a, b) => statSync(b).size - statSync(a).size) as [string, string, string];
    const good = readFileSync(damaged);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 100] = (flipped[flipped.length - 100] as number) ^ 0xff;
    writeFileSync(damaged, flipped);
    writeFileSync(truncated, readFileSync(truncated).subarray(0, 200));
    // A whole file made for this chunk's text, holding V8 code made for another chunk: V8 refuses it.
    const other = readFileSync(foreign);
    const code = good.subarray(72);
    writeFileSync(foreign, Buffer.concat([other.subarray(0, 40), createHash("sha256").update(code).digest(), code]));

    const next = run(lint, cache);
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    const name = (file: string): string => file.slice(file.lastIndexOf("/") + 1);
    expect(next.log).toContain(`${name(damaged)}: not this chunk's, or not whole: ignored`);
    expect(next.log).toContain(`${name(truncated)}: not this chunk's, or not whole: ignored`);
    expect(next.log).toContain(`${name(foreign)}: rejected`);
    for (const file of [damaged, truncated, foreign]) expect(next.log).toContain(`${name(file)}: written`);
    expect(readFileSync(damaged)).not.toEqual(flipped);

    const after = run(lint, cache);
    expect(after.stdout).toBe(expected.stdout);
    expect(after.log.every((line) => line.endsWith(": accepted"))).toBe(true);
  });

  it("runs the same, and says nothing, when the cache folder cannot be written", async () => {
    const lint = await project();
    const expected = uncached(lint);
    // A file where the cache folder would go: no user can create the folder.
    const blocked = await tempDir("gamma-prompt-code-cache");
    writeFileSync(join(blocked, "gamma-prompt"), "not a folder\n");
    const env = { NODE_DEBUG: "" };
    const child = spawnSync(process.execPath, [bin, ...lint], { encoding: "utf8", env: { ...environment(blocked), ...env } });
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual(expected);
    expect(readFileSync(join(blocked, "gamma-prompt"), "utf8")).toBe("not a folder\n");

    // A read-only folder (which binds every user but root).
    const readOnly = await tempDir("gamma-prompt-code-cache");
    run(lint, readOnly);
    const files = cacheFiles(readOnly);
    for (const file of files) writeFileSync(file, "damaged");
    const folder = join(files[0] as string, "..");
    chmodSync(folder, 0o500);
    try {
      const child = spawnSync(process.execPath, [bin, ...lint], { encoding: "utf8", env: { ...environment(readOnly), ...env } });
      expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual(expected);
    } finally {
      chmodSync(folder, 0o700);
    }
  });

  it("neither takes nor writes code in a cache folder others can write in", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    const files = cacheFiles(cache);
    const folder = join(files[0] as string, "..");
    chmodSync(folder, 0o777);
    const sizes = files.map((file) => statSync(file).size);
    const next = run(lint, cache);
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    expect(next.log.filter((line) => !line.endsWith(": none") && !line.endsWith(": not written: the cache folder is not this user's own, or others can write in it"))).toEqual([]);
    expect(next.log.filter((line) => line.endsWith(": none"))).toHaveLength(files.length);
    expect(cacheFiles(cache).map((file) => statSync(file).size)).toEqual(sizes);
  });

  it("keeps the code of a Node started with other V8 flags apart", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    // --stack-size is one of the flags V8's cache version covers, as a different Node's version would be.
    const child = spawnSync(process.execPath, ["--stack-size=2000", bin, ...lint], { encoding: "utf8", env: environment(cache) });
    const other = { status: child.status, stdout: child.stdout, ...split(child.stderr) };
    expect({ status: other.status, stdout: other.stdout, stderr: other.stderr }).toEqual(expected);
    expect(other.log.length).toBeGreaterThan(0);
    expect(other.log.filter((line) => !line.endsWith(": none") && !line.endsWith(": written"))).toEqual([]);
    expect(readdirSync(join(cache, "gamma-prompt"))).toHaveLength(2);
  });

  it("writes nothing with NODE_DISABLE_COMPILE_CACHE set", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const child = run(lint, cache, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(child.stdout).toBe(uncached(lint).stdout);
    expect(child.log).toEqual([]);
    expect(readdirSync(cache)).toEqual([]);
    // The same run without it keeps the code.
    run(lint, cache);
    expect(cacheFiles(cache).length).toBeGreaterThan(0);
  });

  it("leaves whole files when two processes write the same cache at once", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    const both = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ status: number | null; stdout: string }>((done) => {
            const child = spawn(process.execPath, [bin, ...lint], { env: environment(cache, { NODE_DEBUG: "" }) });
            let stdout = "";
            child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
            child.on("close", (status) => done({ status, stdout }));
          }),
      ),
    );
    for (const result of both) expect(result).toEqual({ status: expected.status, stdout: expected.stdout });
    expect(cacheFiles(cache).filter((file) => file.endsWith(".tmp"))).toEqual([]);
    const next = run(lint, cache);
    expect(next.stdout).toBe(expected.stdout);
    expect(next.log.length).toBeGreaterThan(0);
    expect(next.log.every((line) => line.endsWith(": accepted"))).toBe(true);
  });

  it("names each cache file with a hash of its chunk's bytes, so builds sharing a folder keep theirs apart", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    run(lint, cache);
    const hash = createHash("sha256").update(readFileSync(join(repoRoot, "lib", "cli", "main.cjs"))).digest("hex").slice(0, 8);
    const names = cacheFiles(cache).map((file) => file.slice(file.lastIndexOf("/") + 1));
    expect(names).toContain(`lint-main-${hash}.cjs`);
    const chunk = readdirSync(join(repoRoot, "lib")).find((file) => /^gamma-prompt-lint-[\w-]+\.cjs$/.test(file)) as string;
    const chunkHash = createHash("sha256").update(readFileSync(join(repoRoot, "lib", chunk))).digest("hex").slice(0, 8);
    expect(names).toContain(`lint-${chunk.slice(0, -4)}-${chunkHash}.cjs`);
  });

  it("keeps its files in a folder of this user's own in the temporary folder, none shared with other users", async () => {
    const lint = await project();
    const temporary = await tempDir("gamma-prompt-tmp");
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temporary, NODE_DEBUG: "gamma-prompt-code-cache" };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const first = split(spawnSync(process.execPath, [bin, ...lint], { encoding: "utf8", env }).stderr).log;
    expect(first.filter((line) => line.endsWith(": written")).length).toBeGreaterThanOrEqual(3);
    const own = `gamma-prompt-${process.getuid?.() ?? ""}`;
    // Node's own compile cache, which the CLI turns on, inside it too: nothing in the shared folder but that one.
    expect(readdirSync(temporary)).toEqual([own]);
    expect(statSync(join(temporary, own)).mode & 0o777).toBe(0o700);
    const inside = readdirSync(join(temporary, own)).sort();
    expect(inside).toHaveLength(2);
    expect(inside[0]).toBe("node");
    expect(statSync(join(temporary, own, inside[1] as string)).mode & 0o777).toBe(0o700);
    const second = split(spawnSync(process.execPath, [bin, ...lint], { encoding: "utf8", env }).stderr).log;
    expect(second.every((line) => line.endsWith(": accepted"))).toBe(true);
  });

  it("never writes through a symbolic link planted under the name of the file it writes", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    const files = cacheFiles(cache);
    for (const file of files) unlinkSync(file);
    const victim = join(await tempDir("gamma-prompt-victim"), "victim");
    writeFileSync(victim, "precious\n", { mode: 0o600 });
    // The shell plants a link at each temporary name ($$ is its process id, which exec hands to Node), then runs the CLI.
    const plant = files.map((file) => `ln -s "$1" "${file}.$$.tmp"`).join(" && ");
    const child = spawnSync("/bin/sh", ["-c", `${plant} && shift && exec "$@"`, "sh", victim, process.execPath, bin, ...lint], { encoding: "utf8", env: environment(cache) });
    const next = { status: child.status, stdout: child.stdout, ...split(child.stderr) };
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(next.log.filter((line) => line.endsWith(": written"))).toEqual([]);
    expect(next.log.filter((line) => line.includes(": not written: EEXIST"))).toHaveLength(files.length);
    for (const file of files) expect(existsSync(file)).toBe(false);
  });

  it("takes no cache file that others can write, or that has another name too", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    const [open, linked, ...rest] = cacheFiles(cache) as [string, string, ...string[]];
    chmodSync(open, 0o666);
    linkSync(linked, join(await tempDir("gamma-prompt-link"), "other name"));
    const next = run(lint, cache);
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    const name = (file: string): string => file.slice(file.lastIndexOf("/") + 1);
    for (const file of [open, linked]) {
      expect(next.log).toContain(`${name(file)}: not this user's own, or others can write it: ignored`);
      expect(next.log).not.toContain(`${name(file)}: accepted`);
    }
    for (const file of rest) expect(next.log).toContain(`${name(file)}: accepted`);
  });

  it.skipIf(!root)("takes no cache file another user owns", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    run(lint, cache);
    const files = cacheFiles(cache);
    for (const file of files) chownSync(file, NOBODY, NOBODY);
    const next = run(lint, cache);
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    expect(next.log.filter((line) => line.endsWith(": accepted"))).toEqual([]);
    expect(next.log.filter((line) => line.endsWith(": not this user's own, or others can write it: ignored"))).toHaveLength(files.length);
  });

  it.skipIf(!root)("neither takes nor writes code below a folder another user owns", async () => {
    const lint = await project();
    const expected = uncached(lint);
    // Under NODE_COMPILE_CACHE: the loader's own folder there belongs to another user.
    const cache = await tempDir("gamma-prompt-code-cache");
    run(lint, cache);
    const files = cacheFiles(cache);
    const sizes = files.map((file) => statSync(file).size);
    chownSync(join(cache, "gamma-prompt"), NOBODY, NOBODY);
    const next = run(lint, cache);
    expect({ status: next.status, stdout: next.stdout, stderr: next.stderr }).toEqual(expected);
    expect(next.log.filter((line) => !line.endsWith(": none") && !line.endsWith(": not written: the cache folder is not this user's own, or others can write in it"))).toEqual([]);
    expect(cacheFiles(cache).map((file) => statSync(file).size)).toEqual(sizes);

    // In the temporary folder: a folder of this user's name that another user made first.
    const temporary = await tempDir("gamma-prompt-tmp");
    const planted = join(temporary, `gamma-prompt-${process.getuid?.() ?? ""}`);
    mkdirSync(planted, { mode: 0o700 });
    chownSync(planted, NOBODY, NOBODY);
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temporary, NODE_DEBUG: "gamma-prompt-code-cache" };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const child = spawnSync(process.execPath, [bin, ...lint], { encoding: "utf8", env });
    const inTemporary = { status: child.status, stdout: child.stdout, ...split(child.stderr) };
    expect({ status: inTemporary.status, stdout: inTemporary.stdout, stderr: inTemporary.stderr }).toEqual(expected);
    expect(inTemporary.log.filter((line) => !line.endsWith(": none") && !line.endsWith(": not written: the cache folder is not this user's own, or others can write in it"))).toEqual([]);
    expect(readdirSync(planted)).toEqual([]);
    expect(lstatSync(planted).uid).toBe(NOBODY);
  });

  it("writes a cache file whole or not at all when the disk takes only part of it", async () => {
    const lint = await project();
    const cache = await tempDir("gamma-prompt-code-cache");
    const expected = uncached(lint);
    // A file size limit of 200 blocks (100 or 200 KiB): smaller than the lint chunk's code, larger than the entry's.
    const child = spawnSync("/bin/sh", ["-c", 'ulimit -f 200 && exec "$@"', "sh", process.execPath, bin, ...lint], { encoding: "utf8", env: environment(cache) });
    const limited = { status: child.status, stdout: child.stdout, ...split(child.stderr) };
    expect({ status: limited.status, stdout: limited.stdout, stderr: limited.stderr }).toEqual(expected);
    const lintChunk = limited.log.find((line) => /^lint-gamma-prompt-lint-[\w-]+\.cjs: not written: /.test(line));
    expect(lintChunk).toBeDefined();
    expect(limited.log.filter((line) => line.endsWith(": written")).length).toBeGreaterThan(0);
    const files = cacheFiles(cache);
    expect(files.filter((file) => file.endsWith(".tmp"))).toEqual([]);
    expect(files.some((file) => /lint-gamma-prompt-lint-[\w-]+\.cjs$/.test(file))).toBe(false);
    // What was written is whole: the next run takes every file there and writes the rest.
    const next = run(lint, cache);
    expect(next.log.filter((line) => line.includes("not whole"))).toEqual([]);
    expect(next.log.filter((line) => line.endsWith(": accepted"))).toHaveLength(files.length);
  });
});
