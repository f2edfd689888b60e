/**
 * dist/ written as one transaction (src/pipeline/emit/emit.ts), in process
 * with small hand-made artifact sets: what it writes, keeps and removes, the
 * journal it renames into place before touching dist/, what a failure leaves,
 * and the memory that lets watch rebuilds skip reading dist/ back.
 * test/robustness/crash.test.ts kills real builds inside the transaction.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { emitArtifacts, EmitError, listTree, type EmitMemory } from "../../src/pipeline/emit/emit.js";
import { JOURNAL_FILE, JOURNAL_FORMAT, type DistJournal } from "../../src/protocol/dist-journal.js";
import { removeTempDirs, tempDir } from "./helpers.js";

/** Every journal renamed into dist/, read at the moment of its rename. */
const journals = vi.hoisted(() => [] as unknown[]);
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      if (String(to).endsWith(".gamma-prompt-journal")) journals.push(JSON.parse(actual.readFileSync(from, "utf8")));
      actual.renameSync(from, to);
    },
  };
});

afterAll(removeTempDirs);
beforeEach(() => {
  journals.length = 0;
});

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

async function outDir(): Promise<{ parent: string; dist: string }> {
  const parent = await tempDir("gamma emit");
  return { parent, dist: join(parent, "dist") };
}

function files(dist: string): Record<string, string> {
  return Object.fromEntries([...listTree(dist)].sort().map((path) => [path, readFileSync(join(dist, path), "utf8")]));
}

function artifacts(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

const FIRST = { "manifest.json": '{"v":1}', "prefix.md": "prefix 1", "skills/a/SKILL.md": "a", "skills/gone/SKILL.md": "gone", "variants/base.md": "base" };
const SECOND = { "manifest.json": '{"v":2}', "prefix.md": "prefix 2", "skills/a/SKILL.md": "a", "skills/b/deep/SKILL.md": "b", "variants/base.md": "base" };

describe("emitting into a new output folder", () => {
  it("writes every file with no journal and leaves nothing next to it", async () => {
    const { parent, dist } = await outDir();
    const result = await emitArtifacts(dist, artifacts(FIRST));
    expect(result).toEqual({ written: Object.keys(FIRST).sort(), removed: [], unchanged: [] });
    expect(files(dist)).toEqual(FIRST);
    expect(journals).toEqual([]);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });
});

describe("replacing a build", () => {
  it("replaces what changed, adds and removes files (and the folders they empty), keeps the rest untouched", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const keptInode = statSync(join(dist, "skills/a/SKILL.md")).ino;
    const result = await emitArtifacts(dist, artifacts(SECOND));
    expect(result).toEqual({
      written: ["manifest.json", "prefix.md", "skills/b/deep/SKILL.md"],
      removed: ["skills/gone/SKILL.md"],
      unchanged: ["skills/a/SKILL.md", "variants/base.md"],
    });
    expect(files(dist)).toEqual(SECOND);
    expect(readdirSync(join(dist, "skills")).sort()).toEqual(["a", "b"]);
    expect(statSync(join(dist, "skills/a/SKILL.md")).ino).toBe(keptInode);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("journals every change before touching dist/: removals, then writes with manifest.json last, and the new manifest's sha256", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const before = Date.now();
    await emitArtifacts(dist, artifacts({ ...SECOND, "a.md": "first in order" }));
    expect(journals).toHaveLength(1);
    const journal = journals[0] as DistJournal;
    expect(journal).toEqual({
      format: JOURNAL_FORMAT,
      pid: process.pid,
      startedAt: journal.startedAt,
      staging: journal.staging,
      manifestSha256: sha('{"v":2}'),
      changes: [
        { path: "skills/gone/SKILL.md", action: "remove" },
        { path: "a.md", action: "add" },
        { path: "prefix.md", action: "replace" },
        { path: "skills/b/deep/SKILL.md", action: "add" },
        { path: "manifest.json", action: "replace" },
      ],
    });
    expect(journal.staging).toMatch(new RegExp(`^\\.gamma-prompt-tmp-dist-${process.pid}-[0-9a-f]{8}$`));
    expect(Date.parse(journal.startedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(readdirSync(dist)).not.toContain(JOURNAL_FILE);
  });

  it("journals no manifest sha256 when the manifest does not change", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    await emitArtifacts(dist, artifacts({ ...FIRST, "prefix.md": "prefix changed" }));
    expect((journals[0] as DistJournal).manifestSha256).toBeNull();
    expect((journals[0] as DistJournal).changes).toEqual([{ path: "prefix.md", action: "replace" }]);
  });

  it("only removes files when that is the whole change", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const { "skills/gone/SKILL.md": _gone, ...rest } = FIRST;
    expect(await emitArtifacts(dist, artifacts(rest))).toEqual({ written: [], removed: ["skills/gone/SKILL.md"], unchanged: Object.keys(rest).sort() });
    expect((journals[0] as DistJournal).changes).toEqual([{ path: "skills/gone/SKILL.md", action: "remove" }]);
    expect(files(dist)).toEqual(rest);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("writes into an existing empty folder through the journal", async () => {
    const { dist } = await outDir();
    mkdirSync(dist);
    expect((await emitArtifacts(dist, artifacts(FIRST))).written).toEqual(Object.keys(FIRST).sort());
    expect(journals).toHaveLength(1);
    expect(files(dist)).toEqual(FIRST);
  });

  it("touches nothing when dist/ already holds the build, compared byte for byte (text or bytes), and drops an obsolete journal", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    writeFileSync(join(dist, JOURNAL_FILE), "{}");
    const asBytes = new Map<string, string | Uint8Array>(Object.entries(FIRST));
    asBytes.set("prefix.md", new TextEncoder().encode(FIRST["prefix.md"]));
    expect(await emitArtifacts(dist, asBytes)).toEqual({ written: [], removed: [], unchanged: Object.keys(FIRST).sort() });
    expect(journals).toEqual([]);
    expect(readdirSync(dist)).not.toContain(JOURNAL_FILE);
  });

  it("finds nothing to do when dist/ holds the build and no journal", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    expect(await emitArtifacts(dist, artifacts(FIRST))).toEqual({ written: [], removed: [], unchanged: Object.keys(FIRST).sort() });
  });

  it("lists removed files sorted", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts({ ...FIRST, "z.md": "z", "m/n.md": "n", "b.md": "b" }));
    expect((await emitArtifacts(dist, artifacts(FIRST))).removed).toEqual(["b.md", "m/n.md", "z.md"]);
  });

  it("rewrites a file edited behind its back, a missing one and one of another size", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    writeFileSync(join(dist, "prefix.md"), "prefix X");
    writeFileSync(join(dist, "variants/base.md"), "base, longer");
    fs.rmSync(join(dist, "skills/a/SKILL.md"));
    expect((await emitArtifacts(dist, artifacts(FIRST))).written).toEqual(["prefix.md", "skills/a/SKILL.md", "variants/base.md"]);
    expect(files(dist)).toEqual(FIRST);
  });
});

describe("a failing emit", () => {
  it("puts every original back, removes its staging folder, names the file, and clears the memory", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    // A folder where a new file goes: its rename fails after the journal, the originals were already replaced.
    mkdirSync(join(dist, "zz.md", "inside"), { recursive: true });
    const memory: EmitMemory = { fingerprint: () => undefined, files: new Map([["x", { fingerprint: "f", size: 1, mtimeMs: 1, ino: 1 }]]) };
    const error: unknown = await emitArtifacts(dist, artifacts({ ...SECOND, "zz.md": "blocked" }), memory).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("zz.md");
    expect((error as EmitError).ruleId).toBe("dist/write-failed");
    expect((error as EmitError).name).toBe("EmitError");
    expect((error as EmitError).message).toMatch(/^Unexpected failure writing this file \((EISDIR|ENOTEMPTY|EEXIST)\), expected a writable output folder; the output folder was left as it was$/);
    // Files only: the blocking folder stays, empty of files.
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(dist)).not.toContain(JOURNAL_FILE);
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(memory.files.size).toBe(0);
  });

  it("refuses a FIFO at an artifact's path without waiting on it", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    fs.rmSync(join(dist, "prefix.md"));
    expect(spawnSync("mkfifo", [join(dist, "prefix.md")]).status).toBe(0);
    const error: unknown = await emitArtifacts(dist, artifacts(FIRST)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).ruleId).toBe("dist/not-a-file");
    expect((error as EmitError).path).toBe("prefix.md");
    expect((error as EmitError).message).toMatch(/^Unexpected .+, expected a regular file \(remove it and build again\); the output folder was left as it was$/);
  });

  it("leaves no output folder when the first emit fails", async () => {
    const { parent, dist } = await outDir();
    const error: unknown = await emitArtifacts(dist, artifacts({ "a.md": "a", "a.md/b.md": "cannot be both" })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("a.md/b.md");
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe("the emit memory (watch rebuilds)", () => {
  const fingerprints = (entries: Record<string, string>) => (path: string) => (path in entries ? sha(entries[path] as string) : undefined);

  it("records a stamp for every file it wrote or found unchanged, and only those", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    expect([...memory.files.keys()].sort()).toEqual(Object.keys(FIRST).sort());
    const prefix = statSync(join(dist, "prefix.md"));
    expect(memory.files.get("prefix.md")).toEqual({ fingerprint: sha("prefix 1"), size: prefix.size, mtimeMs: prefix.mtimeMs, ino: prefix.ino });
    const next: EmitMemory = { fingerprint: fingerprints(SECOND), files: new Map() };
    await emitArtifacts(dist, artifacts(SECOND), next);
    expect([...next.files.keys()].sort()).toEqual(Object.keys(SECOND).sort());
    expect(next.files.get("skills/a/SKILL.md")?.fingerprint).toBe(sha("a"));
  });

  it("judges a recorded file by its stamp: a new fingerprint is a change even when the bytes on disk still match", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    memory.fingerprint = (path) => (path === "prefix.md" ? "another fingerprint" : fingerprints(FIRST)(path));
    expect((await emitArtifacts(dist, artifacts(FIRST), memory)).written).toEqual(["prefix.md"]);
  });

  it("reads a recorded file again once its stamp moved, and repairs a hand edit", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    writeFileSync(join(dist, "prefix.md"), "hand edit, longer");
    expect((await emitArtifacts(dist, artifacts(FIRST), memory)).written).toEqual(["prefix.md"]);
    expect(files(dist)).toEqual(FIRST);
  });

  it("with trustUnchanged, keeps a recorded file unread, so a hand edit stays until the artifact changes, and writes a missing one", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map(), trustUnchanged: true };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    writeFileSync(join(dist, "prefix.md"), "hand edit");
    fs.rmSync(join(dist, "variants/base.md"));
    const result = await emitArtifacts(dist, artifacts(FIRST), memory);
    expect(result.written).toEqual(["variants/base.md"]);
    expect(result.unchanged).toContain("prefix.md");
    expect(readFileSync(join(dist, "prefix.md"), "utf8")).toBe("hand edit");
    expect(memory.files.has("prefix.md")).toBe(true);
  });

  it("with trustUnchanged, still writes a recorded file whose fingerprint changed, and lists unchanged files sorted", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map(), trustUnchanged: true };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    // prefix.md unrecorded (read and compared), variants/base.md with a new fingerprint.
    memory.files.delete("prefix.md");
    memory.fingerprint = (path) => (path === "variants/base.md" ? "new" : fingerprints(FIRST)(path));
    const result = await emitArtifacts(dist, artifacts({ ...FIRST, "variants/base.md": "base 2" }), memory);
    expect(result.written).toEqual(["variants/base.md"]);
    expect(result.unchanged).toEqual(["manifest.json", "prefix.md", "skills/a/SKILL.md", "skills/gone/SKILL.md"]);
  });

  it("compares the bytes of a recorded file when its artifact has no fingerprint now", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    memory.fingerprint = () => undefined;
    expect(await emitArtifacts(dist, artifacts(FIRST), memory)).toEqual({ written: [], removed: [], unchanged: Object.keys(FIRST).sort() });
  });

  it("hands the staging folder's removal to deferCleanup, which removes it", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const cleanups: Promise<void>[] = [];
    const memory: EmitMemory = { fingerprint: () => undefined, files: new Map(), deferCleanup: (cleanup) => cleanups.push(cleanup) };
    await emitArtifacts(dist, artifacts(SECOND), memory);
    expect(cleanups).toHaveLength(1);
    await cleanups[0];
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(files(dist)).toEqual(SECOND);
  });
});

describe("listing the output folder", () => {
  it("lists every file as a POSIX path, without the journal", async () => {
    const { dist } = await outDir();
    mkdirSync(join(dist, "a", "b"), { recursive: true });
    writeFileSync(join(dist, "a", "b", "c.md"), "");
    writeFileSync(join(dist, "top.md"), "");
    writeFileSync(join(dist, JOURNAL_FILE), "");
    expect([...listTree(dist)].sort()).toEqual(["a/b/c.md", "top.md"]);
  });

  it("is empty for a missing folder, a file and a name no file system takes", async () => {
    const { parent } = await outDir();
    writeFileSync(join(parent, "file"), "");
    expect([...listTree(join(parent, "missing"))]).toEqual([]);
    expect([...listTree(join(parent, "file"))]).toEqual([]);
    expect([...listTree(join(parent, "x".repeat(300)))]).toEqual([]);
    expect([...listTree(join(parent, "nul\0name"))]).toEqual([]);
  });
});
