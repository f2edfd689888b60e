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
import { recoverDist } from "../../src/pipeline/emit/recovery.js";
import { JOURNAL_FILE, JOURNAL_FORMAT, pidNamespace, processStartTime, type DistJournal } from "../../src/protocol/dist-journal.js";
import { removeTempDirs, tempDir } from "./helpers.js";

/** Every journal renamed into dist/, read at the moment of its rename. */
const journals = vi.hoisted(() => [] as unknown[]);
/**
 * What a test does just before emit makes one of these calls: another process
 * acting at that instant, or (by throwing) a file system refusing the call.
 * Cleared before each test; paths as strings.
 */
const before = vi.hoisted(
  () =>
    ({}) as {
      writeFileSync?: (path: string) => void;
      linkSync?: (from: string, to: string) => void;
      renameSync?: (from: string, to: string) => void;
      rmSync?: (path: string, options: fs.RmOptions | undefined) => void;
      readdirSync?: (path: string) => void;
      /** Takes the stats statSync found and returns those it gives instead. */
      statSync?: (path: string, stats: fs.Stats) => fs.Stats;
    },
);
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      before.renameSync?.(String(from), String(to));
      if (String(to).endsWith(".gamma-prompt-journal")) journals.push(JSON.parse(actual.readFileSync(from, "utf8")));
      actual.renameSync(from, to);
    },
    writeFileSync: (...args: Parameters<typeof actual.writeFileSync>) => {
      before.writeFileSync?.(String(args[0]));
      actual.writeFileSync(...args);
    },
    linkSync: (from: fs.PathLike, to: fs.PathLike) => {
      before.linkSync?.(String(from), String(to));
      actual.linkSync(from, to);
    },
    rmSync: (path: fs.PathLike, options?: fs.RmOptions) => {
      before.rmSync?.(String(path), options);
      actual.rmSync(path, options);
    },
    statSync: ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stats = actual.statSync(path, options);
      return stats && before.statSync ? before.statSync(String(path), stats as fs.Stats) : stats;
    }) as typeof actual.statSync,
    readdirSync: ((path: fs.PathLike, options?: unknown) => {
      before.readdirSync?.(String(path));
      return (actual.readdirSync as (path: fs.PathLike, options?: unknown) => unknown)(path, options);
    }) as typeof actual.readdirSync,
  };
});

afterAll(removeTempDirs);
beforeEach(() => {
  journals.length = 0;
  for (const key of Object.keys(before) as (keyof typeof before)[]) delete before[key];
});

/** A hook that acts only the first time `when` holds, so what it does itself is not hooked again. */
function once<Args extends unknown[]>(when: (...args: Args) => boolean, act: (...args: NoInfer<Args>) => void): (...args: Args) => void {
  let done = false;
  return (...args) => {
    if (done || !when(...args)) return;
    done = true;
    act(...args);
  };
}

function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused by the file system`), { code });
}

/** The staging folder a path inside it belongs to. */
function stagingOf(path: string): string {
  const match = /^(.*\/\.gamma-prompt-tmp-[^/]+)\//.exec(path);
  if (!match?.[1]) throw new Error(`not a staging path: ${path}`);
  return match[1];
}

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
      // When this process started, where the system tells: a pid reused later is not taken for this build.
      ...(processStartTime(process.pid) === undefined ? {} : { processStart: processStartTime(process.pid) }),
      // Where that pid means this process: a reader in another container or on another host judges by the lock's heartbeat.
      pidNamespace: pidNamespace(),
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

  it("lists removed files sorted by path, not in the order the folders are walked", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts({ ...FIRST, "a/c.md": "c", "a-b.md": "b" }));
    // The walk lists a/ (and a/c.md) before a-b.md; sorted, "a-b.md" comes first ("-" sorts before "/").
    expect([...listTree(dist)].filter((path) => path.startsWith("a"))).toEqual(["a/c.md", "a-b.md"]);
    expect((await emitArtifacts(dist, artifacts(FIRST))).removed).toEqual(["a-b.md", "a/c.md"]);
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

describe("a failing emit: the file system refuses, or another process acts meanwhile", () => {
  const exdevOnBackups = (_from: string, to: string): void => {
    if (to.includes("/old/")) throw fsError("EXDEV");
  };

  it("copies the originals where hard links are not supported", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.linkSync = exdevOnBackups;
    expect((await emitArtifacts(dist, artifacts(SECOND))).removed).toEqual(["skills/gone/SKILL.md"]);
    expect(files(dist)).toEqual(SECOND);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("rolls back from those copies when the build fails after its journal", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.linkSync = exdevOnBackups;
    mkdirSync(join(dist, "zz.md", "inside"), { recursive: true });
    const error: unknown = await emitArtifacts(dist, artifacts({ ...SECOND, "zz.md": "blocked" })).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe("zz.md");
    expect(journals).toHaveLength(1);
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("ends before the journal when an original vanishes before its backup, naming it", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.linkSync = once(
      (from) => from === join(dist, "prefix.md"),
      (from) => fs.rmSync(from),
    );
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("prefix.md");
    expect((error as EmitError).message).toContain("(ENOENT)");
    expect(journals).toEqual([]);
    const { "prefix.md": _vanished, ...rest } = FIRST;
    expect(files(dist)).toEqual(rest);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("leaves a first build's output folder to the build that made it meanwhile, naming no file", async () => {
    const { parent, dist } = await outDir();
    before.writeFileSync = once(
      (path) => path.includes("/new/"),
      () => {
        mkdirSync(dist);
        writeFileSync(join(dist, "other.md"), "another build's");
      },
    );
    const error: unknown = await emitArtifacts(dist, artifacts(FIRST)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("");
    expect((error as EmitError).message).toMatch(/^Unexpected failure writing this file \((ENOTEMPTY|EEXIST)\), expected a writable output folder; the output folder was left as it was$/);
    expect(files(dist)).toEqual({ "other.md": "another build's" });
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  /** Removes dist/ as its journal is written into the staging folder: after the backups, before the journal is renamed in. */
  const removeDistAtJournal = (dist: string): ((path: string) => void) =>
    once(
      (path) => path.endsWith("/journal.json"),
      () => fs.rmSync(dist, { recursive: true }),
    );

  it("removes an output folder it made again when the journal cannot be renamed into it", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.writeFileSync = removeDistAtJournal(dist);
    before.renameSync = (_from, to) => {
      if (to === join(dist, JOURNAL_FILE)) throw fsError("EIO");
    };
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe(JOURNAL_FILE);
    expect((error as EmitError).message).toContain("(EIO)");
    expect(readdirSync(parent)).toEqual([]);
  });

  it("keeps an output folder it made again once the journal is in it, and puts back there the originals it had replaced or removed", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.writeFileSync = removeDistAtJournal(dist);
    // The first change applied is the removal of skills/gone/SKILL.md, gone with dist/.
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe("skills/gone/SKILL.md");
    expect(journals).toHaveLength(1);
    expect(files(dist)).toEqual({ "manifest.json": FIRST["manifest.json"], "prefix.md": FIRST["prefix.md"], "skills/gone/SKILL.md": FIRST["skills/gone/SKILL.md"] });
    expect(readdirSync(dist)).not.toContain(JOURNAL_FILE);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });
});

describe("a write that fails while dist/ is half replaced", () => {
  it("puts back the files replaced before it, and leaves the one that failed as it was, without renaming over it again", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const renamedOnto: string[] = [];
    // manifest.json, the last file replaced, cannot be renamed over (a file bind-mounted into dist/, an immutable one).
    before.renameSync = (_from, to) => {
      renamedOnto.push(to);
      if (to === join(dist, "manifest.json")) throw fsError("EBUSY");
    };
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe("manifest.json");
    expect((error as EmitError).message).toBe("Unexpected failure writing this file (EBUSY), expected a writable output folder; the output folder was left as it was");
    expect(renamedOnto.filter((to) => to === join(dist, "manifest.json"))).toHaveLength(1);
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("when putting an original back fails too, keeps the journal and the originals, says so, and the next recovery finishes", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.renameSync = (from, to) => {
      if (to === join(dist, "manifest.json")) throw fsError("EBUSY");
      if (to === join(dist, "prefix.md") && from.includes("/old/")) throw fsError("EBUSY");
    };
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect((error as EmitError).message).toBe(
      "Unexpected failure writing this file (EBUSY), expected a writable output folder; putting the previous build back failed too (the file is in use, or a mount point, EBUSY), so the output folder stays marked as an interrupted build, which check and the runtime refuse, until the next build finishes restoring it",
    );
    expect(readdirSync(dist)).toContain(JOURNAL_FILE);
    const staging = readdirSync(parent).filter((name) => name.startsWith(".gamma-prompt-tmp-"));
    expect(staging).toHaveLength(1);
    delete before.renameSync;
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });
});

describe("an output folder that is a mount point (a volume, a bind mount, a tmpfs)", () => {
  /**
   * Makes `dist` a mount point of another device (a tmpfs, a volume): its
   * stats carry another device number, and a rename or hard link between it
   * and anywhere outside it fails with EXDEV.
   * test/robustness/mounted-output.test.ts builds into real mounts, bind
   * mounts of the same device too.
   */
  function mountAt(dist: string): void {
    const inside = (path: string): boolean => path === dist || path.startsWith(`${dist}/`);
    const crossing = (from: string, to: string): void => {
      if (inside(from) !== inside(to)) throw fsError("EXDEV");
    };
    before.renameSync = crossing;
    before.linkSync = crossing;
    before.statSync = (path, stats) => (path === dist ? Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as fs.Stats, stats, { dev: stats.dev + 1 }) : stats);
  }

  it("writes a first build into the empty mounted folder, staging inside it, and leaves nothing behind in or beside it", async () => {
    const { parent, dist } = await outDir();
    mkdirSync(dist);
    mountAt(dist);
    expect((await emitArtifacts(dist, artifacts(FIRST))).written).toEqual(Object.keys(FIRST).sort());
    expect(files(dist)).toEqual(FIRST);
    expect(journals).toEqual([expect.objectContaining({ stagingInOutput: true, staging: expect.stringMatching(/^\.gamma-prompt-tmp-dist-\d+-[0-9a-f]{8}$/) })]);
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(readdirSync(dist).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("replaces a build in it: adds, replaces and removes files, with the staging folder inside it and byte-identical results", async () => {
    const plain = await outDir();
    await emitArtifacts(plain.dist, artifacts(FIRST));
    await emitArtifacts(plain.dist, artifacts(SECOND));
    const { parent, dist } = await outDir();
    mkdirSync(dist);
    mountAt(dist);
    await emitArtifacts(dist, artifacts(FIRST));
    expect((await emitArtifacts(dist, artifacts(SECOND))).removed).toEqual(["skills/gone/SKILL.md"]);
    expect(files(dist)).toEqual(files(plain.dist));
    expect(journals.at(-1)).toMatchObject({ stagingInOutput: true });
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(readdirSync(dist).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("journals no stagingInOutput when the output folder shares its parent's file system", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    await emitArtifacts(dist, artifacts(SECOND));
    expect(journals).toHaveLength(1);
    expect(journals[0]).not.toHaveProperty("stagingInOutput");
  });

  it("rolls back from the backups inside it when the build fails after its journal", async () => {
    const { parent, dist } = await outDir();
    mkdirSync(dist);
    mountAt(dist);
    await emitArtifacts(dist, artifacts(FIRST));
    mkdirSync(join(dist, "zz.md", "inside"), { recursive: true });
    const error: unknown = await emitArtifacts(dist, artifacts({ ...SECOND, "zz.md": "blocked" })).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe("zz.md");
    expect(journals.at(-1)).toMatchObject({ stagingInOutput: true });
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(readdirSync(dist).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("names the cause when a folder inside the output folder is another mount: a move across file systems, never a folder that is not writable", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const skills = join(dist, "skills");
    before.renameSync = (from, to) => {
      if (to.startsWith(`${skills}/`) && !from.startsWith(`${skills}/`)) throw fsError("EXDEV");
    };
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("skills/b/deep/SKILL.md");
    expect((error as EmitError).message).toBe(
      "Unexpected move across file systems (EXDEV): a folder on this file's path inside the output folder is on a different file system from the output folder (a mount point inside it), expected the output folder and everything in it on one file system (mount the output folder itself, not a folder inside it); the output folder was left as it was",
    );
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("names the output folder and its parent when a move into the output folder itself crosses file systems", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.renameSync = (_from, to) => {
      if (to === join(dist, JOURNAL_FILE)) throw fsError("EXDEV");
    };
    const error: unknown = await emitArtifacts(dist, artifacts(SECOND)).catch((caught: unknown) => caught);
    expect((error as EmitError).path).toBe(JOURNAL_FILE);
    expect((error as EmitError).message).toContain("(EXDEV): the output folder and its parent folder are on different file systems,");
    expect((error as EmitError).message).not.toContain("expected a writable output folder");
    expect(files(dist)).toEqual(FIRST);
  });
});

describe("the staging folder after a successful emit", () => {
  /** Every recursive removal of a staging folder. */
  function recursiveRemovals(): string[] {
    const removals: string[] = [];
    before.rmSync = (path, options) => {
      if (options?.recursive && path.includes("/.gamma-prompt-tmp-")) removals.push(path);
    };
    return removals;
  }

  it("is removed file by file and folder by folder, deepest first, with no recursive removal to fall back on", async () => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    const removals = recursiveRemovals();
    // Adds, replaces and removes in nested folders; then adds only; then removes only.
    await emitArtifacts(dist, artifacts(SECOND));
    await emitArtifacts(dist, artifacts({ ...SECOND, "added/deep/x.md": "x" }));
    await emitArtifacts(dist, artifacts(SECOND));
    const cleanups: Promise<void>[] = [];
    await emitArtifacts(dist, artifacts(FIRST), { fingerprint: () => undefined, files: new Map(), deferCleanup: (cleanup) => cleanups.push(cleanup) });
    await Promise.all(cleanups);
    expect(removals).toEqual([]);
    expect(files(dist)).toEqual(FIRST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it.each([
    ["now", false],
    ["later (deferCleanup)", true],
  ])("is removed %s even when it holds more than emit put there", async (_when, deferred) => {
    const { parent, dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    before.writeFileSync = once(
      (path) => path.includes("/.gamma-prompt-tmp-") && path.includes("/new/"),
      (path) => writeFileSync(join(stagingOf(path), "planted"), "not emit's"),
    );
    const cleanups: Promise<void>[] = [];
    await emitArtifacts(dist, artifacts(SECOND), { fingerprint: () => undefined, files: new Map(), ...(deferred ? { deferCleanup: (cleanup: Promise<void>) => cleanups.push(cleanup) } : {}) });
    expect(cleanups).toHaveLength(deferred ? 1 : 0);
    await Promise.all(cleanups);
    expect(readdirSync(parent)).toEqual(["dist"]);
    expect(files(dist)).toEqual(SECOND);
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

  it("describes exactly the files dist/ holds after each emit: those it verified when nothing changed, kept records of unchanged files, none of removed ones", async () => {
    const { dist } = await outDir();
    await emitArtifacts(dist, artifacts(FIRST));
    // A new session's memory: dist/ already holds the build, so emit writes nothing and records every file it read back.
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    expect((await emitArtifacts(dist, artifacts(FIRST), memory)).written).toEqual([]);
    expect([...memory.files.keys()].sort()).toEqual(Object.keys(FIRST).sort());
    const before = new Map(memory.files);
    memory.fingerprint = fingerprints(SECOND);
    await emitArtifacts(dist, artifacts(SECOND), memory);
    expect([...memory.files.keys()].sort()).toEqual(Object.keys(SECOND).sort());
    // Judged by their stamps, the unchanged files keep the records they had.
    expect(memory.files.get("skills/a/SKILL.md")).toEqual(before.get("skills/a/SKILL.md"));
    expect(memory.files.get("variants/base.md")).toEqual(before.get("variants/base.md"));
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

  it("ends with an EmitError, never a raw file system error, when a file it is judging vanishes, recorded or not", async () => {
    const { dist } = await outDir();
    const memory: EmitMemory = { fingerprint: fingerprints(FIRST), files: new Map() };
    await emitArtifacts(dist, artifacts(FIRST), memory);
    memory.files.delete("variants/base.md");
    // The memory is asked for a file's fingerprint just before emit stats the file: another process removes it then.
    const removed = new Set<string>();
    memory.fingerprint = (path) => {
      if ((path === "prefix.md" || path === "variants/base.md") && !removed.has(path)) {
        removed.add(path);
        fs.rmSync(join(dist, path));
      }
      return fingerprints(FIRST)(path);
    };
    const error: unknown = await emitArtifacts(dist, artifacts(FIRST), memory).catch((caught: unknown) => caught);
    // Listed as existing, so each is to be replaced: its backup is the step that fails, before the journal.
    expect(error).toBeInstanceOf(EmitError);
    expect((error as EmitError).path).toBe("prefix.md");
    expect(journals).toEqual([]);
    expect(memory.files.size).toBe(0);
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

  it("leaves out a staging folder inside the output folder (a mounted one's), and nothing else that starts with a dot", async () => {
    const { dist } = await outDir();
    mkdirSync(join(dist, ".gamma-prompt-tmp-dist-123-0a1b2c3d", "new"), { recursive: true });
    writeFileSync(join(dist, ".gamma-prompt-tmp-dist-123-0a1b2c3d", "new", "prefix.md"), "");
    mkdirSync(join(dist, "a", ".gamma-prompt-tmp-dist-123-0a1b2c3d"), { recursive: true });
    writeFileSync(join(dist, "a", ".gamma-prompt-tmp-dist-123-0a1b2c3d", "x.md"), "");
    writeFileSync(join(dist, ".hidden.md"), "");
    expect([...listTree(dist)].sort()).toEqual([".hidden.md", "a/.gamma-prompt-tmp-dist-123-0a1b2c3d/x.md"]);
  });

  it("fails, never reads as empty, on an output folder it cannot list: a symlink loop", async () => {
    const { parent } = await outDir();
    fs.symlinkSync("loop", join(parent, "loop"));
    expect(() => listTree(join(parent, "loop"))).toThrow(expect.objectContaining({ code: "ELOOP" }));
  });

  it("fails on a folder inside that it cannot list, even one replaced by a file meanwhile: its files would be left out", async () => {
    const { dist } = await outDir();
    mkdirSync(join(dist, "a", "b"), { recursive: true });
    writeFileSync(join(dist, "a", "b", "c.md"), "");
    before.readdirSync = once(
      (path) => path === join(dist, "a"),
      (path) => {
        fs.rmSync(path, { recursive: true });
        writeFileSync(path, "");
      },
    );
    expect(() => listTree(dist)).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
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
