/**
 * Recovery of a journaled dist/ (src/pipeline/emit/recovery.ts) and the
 * journal as readers see it (src/protocol/dist-journal.ts), in process, on
 * dist/ folders laid out by hand the way a killed build leaves them: the
 * direction of each recovery, the journals it refuses to act on, and the
 * staging folders it clears. test/robustness/crash.test.ts kills real builds
 * at every step of the transaction.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { recoverDist, removeStaleStaging, STALE_STAGING_MS, stagingPrefix } from "../../src/pipeline/emit/recovery.js";
import { isProcessAlive, JOURNAL_FILE, JOURNAL_FORMAT, journaledMessage, journalState, type JournalChange } from "../../src/protocol/dist-journal.js";
import { removeTempDirs, snapshotTree, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

/** What a test makes of a folder listing: another order, or another process acting right after it. */
const listing = vi.hoisted(() => ({ then: undefined as ((names: string[]) => string[]) | undefined, onLstat: undefined as ((path: string) => void) | undefined }));
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readdirSync = (...args: Parameters<typeof actual.readdirSync>) => {
    const names = actual.readdirSync(...args);
    return listing.then === undefined ? names : listing.then(names as unknown as string[]);
  };
  const lstatSync = (...args: Parameters<typeof actual.lstatSync>) => {
    const stats = actual.lstatSync(...args);
    listing.onLstat?.(String(args[0]));
    return stats;
  };
  return { ...actual, readdirSync: readdirSync as typeof actual.readdirSync, lstatSync: lstatSync as typeof actual.lstatSync };
});

/** Runs `body` with the listings changed by `then`. */
function withListing<T>(then: (names: string[]) => string[], body: () => T): T {
  listing.then = then;
  try {
    return body();
  } finally {
    listing.then = undefined;
  }
}

const OLD_MANIFEST = '{"build":"old"}\n';
const NEW_MANIFEST = '{"build":"new"}\n';
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid;
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function text(tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).map(([path, base64]) => [path, Buffer.from(base64, "base64").toString("utf8")]));
}

interface Interrupted {
  dist: string;
  parent: string;
  staging: string;
}

/**
 * A transaction that replaces prefix.md and manifest.json, adds skills/new/SKILL.md and removes skills/old/SKILL.md,
 * as a kill leaves it: `dist` holds what was applied, staging `old/` the backups of what was touched.
 */
async function interrupted(dist: Record<string, string>, backups: Record<string, string>, journal: Record<string, unknown> = {}): Promise<Interrupted> {
  const parent = await tempDir("gamma dist recovery");
  const distDir = join(parent, "dist");
  const stagingName = `${stagingPrefix(distDir)}${deadPid()}-0a1b2c3d`;
  const staging = join(parent, stagingName);
  writeTree(distDir, dist);
  writeTree(join(staging, "old"), backups);
  const changes: JournalChange[] = [
    { path: "skills/old/SKILL.md", action: "remove" },
    { path: "prefix.md", action: "replace" },
    { path: "skills/new/SKILL.md", action: "add" },
    { path: "manifest.json", action: "replace" },
  ];
  const content = { format: JOURNAL_FORMAT, pid: deadPid(), startedAt: "2026-12-04T10:00:00.000Z", staging: stagingName, manifestSha256: sha(NEW_MANIFEST), changes, ...journal };
  writeFileSync(join(distDir, JOURNAL_FILE), `${JSON.stringify(content)}\n`);
  return { dist: distDir, parent, staging };
}

const OLD_DIST = { "manifest.json": OLD_MANIFEST, "prefix.md": "old prefix", "skills/old/SKILL.md": "old skill", "skills/kept/SKILL.md": "kept" };
const BACKUPS = { "manifest.json": OLD_MANIFEST, "prefix.md": "old prefix", "skills/old/SKILL.md": "old skill" };

describe("recovering a journaled dist/", () => {
  it("finds nothing to do without a journal", async () => {
    const parent = await tempDir("gamma dist recovery");
    writeTree(join(parent, "dist"), { "manifest.json": OLD_MANIFEST });
    expect(recoverDist(join(parent, "dist"))).toBe("none");
  });

  it("rolls back a transaction killed after the journal, before any change: the old build, journal and staging gone", async () => {
    const { dist, parent } = await interrupted(OLD_DIST, BACKUPS);
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("rolls back a transaction killed midway: originals renamed back (into folders it removed), added files and their empty folders removed", async () => {
    // Applied: the removal (its folder gone too), the prefix replaced, the new skill added; the manifest not yet.
    const { dist, parent } = await interrupted(
      { "manifest.json": OLD_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept" },
      BACKUPS,
    );
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
    expect(existsSync(join(dist, "skills/new"))).toBe(false);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("keeps a folder found at an added file's path: the transaction adds files only", async () => {
    const { dist } = await interrupted({ ...OLD_DIST, "skills/new/SKILL.md/note.txt": "someone's folder" }, BACKUPS);
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual({ ...OLD_DIST, "skills/new/SKILL.md/note.txt": "someone's folder" });
  });

  it("rolls forward once the new manifest is in place: only the removals are left to do", async () => {
    const NEW_DIST = { "manifest.json": NEW_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept" };
    // Killed right after the manifest's rename, with the removal still to do in this layout.
    const { dist, parent } = await interrupted({ ...NEW_DIST, "skills/old/SKILL.md": "old skill" }, BACKUPS);
    expect(recoverDist(dist)).toBe("rolled-forward");
    expect(text(await snapshotTree(dist))).toEqual(NEW_DIST);
    expect(existsSync(join(dist, "skills/old"))).toBe(false);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("rolls back when the manifest in place is not the journal's new one, and when the journal names no new manifest", async () => {
    const other = await interrupted({ ...OLD_DIST, "manifest.json": '{"build":"other"}\n' }, BACKUPS);
    expect(recoverDist(other.dist)).toBe("rolled-back");
    expect(text(await snapshotTree(other.dist))).toEqual(OLD_DIST);
    const none = await interrupted({ ...OLD_DIST, "manifest.json": NEW_MANIFEST }, BACKUPS, { manifestSha256: null });
    expect(recoverDist(none.dist)).toBe("rolled-back");
    expect(text(await snapshotTree(none.dist))).toEqual(OLD_DIST);
  });

  it("rolls forward a transaction that only removes files, whatever its manifest", async () => {
    const { dist } = await interrupted(OLD_DIST, BACKUPS, { manifestSha256: null, changes: [{ path: "skills/old/SKILL.md", action: "remove" }] });
    expect(recoverDist(dist)).toBe("rolled-forward");
    const { "skills/old/SKILL.md": _removed, ...rest } = OLD_DIST;
    expect(text(await snapshotTree(dist))).toEqual(rest);
  });

  it("removes the folders removals empty, deepest first, even when a shallower one comes first in the journal", async () => {
    const removals = [
      { path: "skills/old/SKILL.md", action: "remove" },
      { path: "skills/old/deep/SKILL.md", action: "remove" },
    ];
    const { dist } = await interrupted({ ...OLD_DIST, "skills/old/deep/SKILL.md": "deep" }, BACKUPS, { manifestSha256: null, changes: removals });
    expect(recoverDist(dist)).toBe("rolled-forward");
    expect(readdirSync(join(dist, "skills"))).toEqual(["kept"]);
  });

  it("rolls back when the journal names a new manifest and dist/ holds none yet", async () => {
    const { "manifest.json": _notYetWritten, ...withoutManifest } = OLD_DIST;
    const { dist } = await interrupted(withoutManifest, BACKUPS);
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
  });

  it("reads neither the journal nor the manifest through a symlink", async () => {
    // A manifest.json that is a symlink to the new manifest's bytes is not the new manifest in place: back.
    const linked = await interrupted({ ...OLD_DIST, "manifest.json": OLD_MANIFEST }, BACKUPS);
    writeFileSync(join(linked.parent, "elsewhere.json"), NEW_MANIFEST);
    const manifest = join(linked.dist, "manifest.json");
    rmSync(manifest);
    symlinkSync(join(linked.parent, "elsewhere.json"), manifest);
    expect(recoverDist(linked.dist)).toBe("rolled-back");
    expect(lstatSync(manifest).isSymbolicLink()).toBe(false);
    expect(readFileSync(manifest, "utf8")).toBe(OLD_MANIFEST);
    // A journal that is a symlink to a valid journal is acted on by no one: dist/ stays as it is.
    const journaled = await interrupted(OLD_DIST, BACKUPS);
    const journal = join(journaled.dist, JOURNAL_FILE);
    writeFileSync(join(journaled.parent, "journal.json"), readFileSync(journal));
    rmSync(journal);
    symlinkSync(join(journaled.parent, "journal.json"), journal);
    const before = await snapshotTree(journaled.dist);
    expect(recoverDist(journaled.dist)).toBe("unrecoverable");
    expect(await snapshotTree(journaled.dist)).toEqual(before);
  });

  it("rolls forward when a removal was already done before the kill", async () => {
    const NEW_DIST = { "manifest.json": NEW_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept" };
    const { dist } = await interrupted(NEW_DIST, BACKUPS);
    expect(recoverDist(dist)).toBe("rolled-forward");
    expect(text(await snapshotTree(dist))).toEqual(NEW_DIST);
  });

  it("undoes the changes last first: a file added where a removed file's folder was goes before the folder comes back", async () => {
    // The transaction removed skills/old/SKILL.md (and so its folder), then added a file named skills/old.
    const changes = [
      { path: "skills/old/SKILL.md", action: "remove" },
      { path: "skills/old", action: "add" },
    ];
    const { "skills/old/SKILL.md": _removed, ...rest } = OLD_DIST;
    const { dist } = await interrupted({ ...rest, "skills/old": "a new file" }, BACKUPS, { changes });
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
  });

  it.each([
    [["b/d/SKILL.md", "a/SKILL.md", "c/a/SKILL.md", "a/b/SKILL.md"]],
    [["skills/x/skills/SKILL.md", "deep/old/x/SKILL.md", "skills/old/deep/SKILL.md"]],
  ])("removes every folder the removals empty, each after the folders inside it, whatever their names (%j)", async (paths) => {
    const removals = paths.map((path) => ({ path, action: "remove" }));
    const { dist } = await interrupted({ "manifest.json": OLD_MANIFEST, ...Object.fromEntries(paths.map((path) => [path, "old"])) }, {}, { manifestSha256: null, changes: removals });
    expect(recoverDist(dist)).toBe("rolled-forward");
    expect(readdirSync(dist)).toEqual(["manifest.json"]);
  });

  it("is unrecoverable when an original is neither in dist/ nor in the staging folder: the journal stays so readers keep refusing dist/", async () => {
    const { "prefix.md": _lost, ...backups } = BACKUPS;
    const { dist, staging } = await interrupted({ "manifest.json": OLD_MANIFEST, "skills/kept/SKILL.md": "kept" }, backups);
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(existsSync(join(dist, JOURNAL_FILE))).toBe(true);
    expect(existsSync(staging)).toBe(true);
  });

  it("leaves what it cannot restore as it found it: the folder of a lost original stays, only the transaction's own additions go", async () => {
    const changes = [
      { path: "skills/lost/SKILL.md", action: "replace" },
      { path: "skills/new/SKILL.md", action: "add" },
    ];
    const { dist } = await interrupted({ ...OLD_DIST, "skills/new/SKILL.md": "new skill" }, BACKUPS, { manifestSha256: null, changes });
    mkdirSync(join(dist, "skills/lost"));
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(existsSync(join(dist, "skills/lost"))).toBe(true);
    expect(existsSync(join(dist, "skills/new"))).toBe(false);
  });

  it("takes a journal and a backup that vanish while it rolls back (the build that wrote them woke and put them back) for done, without an error", async () => {
    const { dist, staging } = await interrupted({ ...OLD_DIST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill" }, BACKUPS);
    let woke = false;
    listing.onLstat = (path) => {
      if (woke || !path.startsWith(staging)) return;
      woke = true;
      // The other build restores every original and removes its journal and staging folder.
      for (const [file, text] of Object.entries(BACKUPS)) writeTree(dist, { [file]: text });
      rmSync(join(dist, "skills/new"), { recursive: true, force: true });
      rmSync(join(dist, JOURNAL_FILE));
      rmSync(staging, { recursive: true });
    };
    try {
      expect(recoverDist(dist)).toBe("rolled-back");
    } finally {
      listing.onLstat = undefined;
    }
    expect(woke).toBe(true);
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
  });

  it("counts an original still in place as recovered even without its backup", async () => {
    const { "prefix.md": _notBackedUp, ...backups } = BACKUPS;
    const { dist } = await interrupted(OLD_DIST, backups);
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
  });

  it.each<[string, Record<string, unknown>]>([
    ["another format", { format: "gamma-prompt/dist-journal/v0" }],
    ["no staging folder", { staging: 7 }],
    ["changes that are not a list", { changes: {} }],
    ["a staging folder of another output folder", { staging: ".gamma-prompt-tmp-other-1-ab" }],
    ["a staging folder with a path separator", { staging: ".gamma-prompt-tmp-dist-/../x" }],
    ["a manifest sha256 that is not text", { manifestSha256: 5 }],
    ["a change that is not an object", { changes: [null] }],
    ["a change with an unknown action", { changes: [{ path: "prefix.md", action: "rename" }] }],
    ["a change outside dist/", { changes: [{ path: "../outside.md", action: "remove" }] }],
    ["a change at dist/ itself", { changes: [{ path: ".", action: "remove" }] }],
    ["an empty path", { changes: [{ path: "", action: "remove" }] }],
    ["an empty path segment", { changes: [{ path: "skills//SKILL.md", action: "remove" }] }],
    ["an absolute path", { changes: [{ path: "/etc/passwd", action: "remove" }] }],
    ["a backslash", { changes: [{ path: "skills\\SKILL.md", action: "remove" }] }],
    ["a path that is not text", { changes: [{ path: 3, action: "remove" }] }],
  ])("acts on no journal with %s: unrecoverable, dist/ untouched", async (_name, journal) => {
    const { dist } = await interrupted(OLD_DIST, BACKUPS, journal);
    const before = await snapshotTree(dist);
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(await snapshotTree(dist)).toEqual(before);
  });

  it("acts on no journal with one change outside dist/ among good ones: what was applied stays as it is", async () => {
    const applied = { ...OLD_DIST, "prefix.md": "new prefix" };
    const changes = [{ path: "prefix.md", action: "replace" }, { path: "../outside.md", action: "remove" }];
    const { dist } = await interrupted(applied, BACKUPS, { changes });
    const before = await snapshotTree(dist);
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(await snapshotTree(dist)).toEqual(before);
    expect(text(before)["prefix.md"]).toBe("new prefix");
  });

  it.each([
    ["text that is not JSON", "{"],
    ["JSON null", "null"],
  ])("acts on no journal that is %s", async (_name, content) => {
    const { dist } = await interrupted(OLD_DIST, BACKUPS);
    writeFileSync(join(dist, JOURNAL_FILE), content);
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(existsSync(join(dist, JOURNAL_FILE))).toBe(true);
  });

  it("rolls back a transaction whose staging folder is inside dist/ (a mounted output folder): originals back, staging gone, nothing beside dist/", async () => {
    const { dist, parent, staging } = await interrupted(
      { "manifest.json": OLD_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept" },
      BACKUPS,
      { stagingInOutput: true },
    );
    const inside = join(dist, staging.slice(parent.length + 1));
    renameSync(staging, inside);
    expect(recoverDist(dist)).toBe("rolled-back");
    expect(text(await snapshotTree(dist))).toEqual(OLD_DIST);
    expect(readdirSync(dist).filter((name) => name.startsWith("."))).toEqual([]);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("rolls forward a transaction whose staging folder is inside dist/, removing it", async () => {
    const { dist, parent, staging } = await interrupted(
      { "manifest.json": NEW_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept", "skills/old/SKILL.md": "old skill" },
      BACKUPS,
      { stagingInOutput: true },
    );
    renameSync(staging, join(dist, staging.slice(parent.length + 1)));
    expect(recoverDist(dist)).toBe("rolled-forward");
    expect(text(await snapshotTree(dist))).toEqual({ "manifest.json": NEW_MANIFEST, "prefix.md": "new prefix", "skills/new/SKILL.md": "new skill", "skills/kept/SKILL.md": "kept" });
    expect(readdirSync(dist).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("acts on no journal whose stagingInOutput is anything but true", async () => {
    const { dist } = await interrupted({ ...OLD_DIST, "prefix.md": "new prefix" }, BACKUPS, { stagingInOutput: "yes" });
    const before = await snapshotTree(dist);
    expect(recoverDist(dist)).toBe("unrecoverable");
    expect(await snapshotTree(dist)).toEqual(before);
  });

  it("acts on no journal that is a folder", async () => {
    const parent = await tempDir("gamma dist recovery");
    mkdirSync(join(parent, "dist", JOURNAL_FILE), { recursive: true });
    expect(recoverDist(join(parent, "dist"))).toBe("unrecoverable");
  });
});

describe("staging folders left by dead builds", () => {
  async function withStaging(names: string[], mtimeMs?: number): Promise<string> {
    const parent = await tempDir("gamma staging");
    mkdirSync(join(parent, "dist"));
    for (const name of names) {
      mkdirSync(join(parent, name, "new"), { recursive: true });
      if (mtimeMs !== undefined) utimesSync(join(parent, name), mtimeMs / 1000, mtimeMs / 1000);
    }
    return parent;
  }

  it("removes those of dead processes and keeps this process's, a live one's, other folders' and names that are not staging folders", async () => {
    const dead = deadPid();
    const live = process.ppid;
    expect(isProcessAlive(live)).toBe(true);
    const names = [
      `.gamma-prompt-tmp-dist-${dead}-ab12`,
      `.gamma-prompt-tmp-dist-${dead}-cd34`,
      `.gamma-prompt-tmp-dist-${process.pid}-ab12`,
      `.gamma-prompt-tmp-dist-${live}-ab12`,
      `.gamma-prompt-tmp-other-${dead}-ab12`,
      `.gamma-prompt-tmp-dist-${dead}-xyz`,
      `.gamma-prompt-tmp-dist-${dead}`,
      `.gamma-prompt-tmp-dist-x${dead}-ab12`,
    ];
    const parent = await withStaging(names);
    writeFileSync(join(parent, `.gamma-prompt-tmp-dist-${dead}-ef56`), "a file, not a staging folder");
    expect(removeStaleStaging(join(parent, "dist"))).toEqual([`.gamma-prompt-tmp-dist-${dead}-ab12`, `.gamma-prompt-tmp-dist-${dead}-cd34`]);
    expect(readdirSync(parent).sort()).toEqual(["dist", ...names.slice(2), `.gamma-prompt-tmp-dist-${dead}-ef56`].sort());
  });

  it("removes those of dead processes inside the output folder too (a mounted one's), named under it", async () => {
    const dead = deadPid();
    const parent = await withStaging([`.gamma-prompt-tmp-dist-${dead}-ab12`]);
    const dist = join(parent, "dist");
    const inside = [`.gamma-prompt-tmp-dist-${dead}-cd34`, `.gamma-prompt-tmp-dist-${process.pid}-ab12`, `.gamma-prompt-tmp-other-${dead}-ab12`];
    for (const name of inside) mkdirSync(join(dist, name, "old"), { recursive: true });
    writeFileSync(join(dist, "manifest.json"), OLD_MANIFEST);
    expect(removeStaleStaging(dist)).toEqual([`.gamma-prompt-tmp-dist-${dead}-ab12`, `dist/.gamma-prompt-tmp-dist-${dead}-cd34`]);
    expect(readdirSync(dist).sort()).toEqual([...inside.slice(1), "manifest.json"].sort());
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("removes a live process's staging folder older than an hour (pids are reused), never this process's", async () => {
    const now = Date.now();
    const live = `.gamma-prompt-tmp-dist-${process.ppid}-ab12`;
    const own = `.gamma-prompt-tmp-dist-${process.pid}-ab12`;
    const parent = await withStaging([live, own], now - STALE_STAGING_MS - 1000);
    expect(removeStaleStaging(join(parent, "dist"), now)).toEqual([live]);
    expect(readdirSync(parent).sort()).toEqual([own, "dist"].sort());
    const young = await withStaging([live], now - STALE_STAGING_MS + 60_000);
    expect(removeStaleStaging(join(young, "dist"), now)).toEqual([]);
  });

  it("keeps the staging folders of another output folder whose name is as long, and names with more after the random part", async () => {
    const dead = deadPid();
    // `docs` is as long as `dist`: what follows its prefix reads like a pid and a random part.
    const names = [`.gamma-prompt-tmp-docs-${dead}-ab12`, `.gamma-prompt-tmp-dist-${dead}-ab12.old`, `.gamma-prompt-tmp-dist-${dead}-ab12-x`];
    const parent = await withStaging(names);
    expect(removeStaleStaging(join(parent, "dist"))).toEqual([]);
    expect(readdirSync(parent).sort()).toEqual(["dist", ...names].sort());
  });

  it("removes a live process's staging folder exactly an hour old", async () => {
    const live = `.gamma-prompt-tmp-dist-${process.ppid}-ab12`;
    const parent = await withStaging([live]);
    const { mtimeMs } = lstatSync(join(parent, live));
    expect(removeStaleStaging(join(parent, "dist"), mtimeMs + STALE_STAGING_MS - 1)).toEqual([]);
    expect(removeStaleStaging(join(parent, "dist"), mtimeMs + STALE_STAGING_MS)).toEqual([live]);
  });

  it("names what it removed in sorted order, whatever order the folder lists them in", async () => {
    const dead = deadPid();
    const names = ["c6", "f9", "60", "a4"].map((random) => `.gamma-prompt-tmp-dist-${dead}-${random}`);
    const parent = await withStaging(names);
    expect(withListing((listed) => [...listed].sort().reverse(), () => removeStaleStaging(join(parent, "dist")))).toEqual([...names].sort());
  });

  it("passes over a staging folder another process removes between the listing and its look at it", async () => {
    const dead = deadPid();
    const [gone, left] = [`.gamma-prompt-tmp-dist-${dead}-aa`, `.gamma-prompt-tmp-dist-${dead}-bb`];
    const parent = await withStaging([gone, left]);
    const removed = withListing(
      (listed) => {
        rmSync(join(parent, gone), { recursive: true });
        return listed;
      },
      () => removeStaleStaging(join(parent, "dist")),
    );
    expect(removed).toEqual([left]);
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("finds nothing when the output folder's parent does not exist", async () => {
    const parent = await tempDir("gamma staging");
    expect(removeStaleStaging(join(parent, "missing", "dist"))).toEqual([]);
  });

  it("keeps an hour's leeway", () => {
    expect(STALE_STAGING_MS).toBe(3_600_000);
    expect(stagingPrefix("/p/out")).toBe(".gamma-prompt-tmp-out-");
  });
});

describe("the journal as readers see it", () => {
  async function distWithJournal(content?: string): Promise<string> {
    const dist = join(await tempDir("gamma journal state"), "dist");
    mkdirSync(dist, { recursive: true });
    if (content !== undefined) writeFileSync(join(dist, JOURNAL_FILE), content);
    return dist;
  }

  it("is absent without a journal", async () => {
    expect(journalState(await distWithJournal())).toEqual({ present: false });
  });

  it("names a live build, which readers wait for", async () => {
    const state = journalState(await distWithJournal(JSON.stringify({ pid: process.pid })));
    expect(state).toEqual({ present: true, pid: process.pid, live: true });
    expect(journaledMessage(state)).toBe(`a build (pid ${process.pid}) is replacing dist/ right now; load it again when that build has finished`);
  });

  it("tells an interrupted build by its dead pid", async () => {
    const pid = deadPid();
    const state = journalState(await distWithJournal(JSON.stringify({ pid })));
    expect(state).toEqual({ present: true, pid, live: false });
    expect(journaledMessage(state)).toBe("an interrupted build left dist/ half-replaced; run gamma-prompt build");
  });

  it.each([["{"], ["null"], ['{"pid":0}'], ['{"pid":-4}'], ['{"pid":1.5}'], ['{"pid":"12"}'], ["{}"]])("takes a journal without a usable pid (%s) for an interrupted build", async (content) => {
    expect(journalState(await distWithJournal(content))).toEqual({ present: true, live: false });
  });

  it("reads a journal longer than a line, and never one through a symlink", async () => {
    const long = JSON.stringify({ format: JOURNAL_FORMAT, pid: process.pid, startedAt: "2026-12-04T10:00:00.000Z", staging: ".gamma-prompt-tmp-dist-1-ab12", manifestSha256: null, changes: [] });
    expect(long.length).toBeGreaterThan(64);
    expect(journalState(await distWithJournal(long))).toEqual({ present: true, pid: process.pid, live: true });
    const dist = await distWithJournal();
    writeFileSync(join(dist, "..", "journal.json"), long);
    symlinkSync(join(dist, "..", "journal.json"), join(dist, JOURNAL_FILE));
    expect(journalState(dist)).toEqual({ present: true, live: false });
  });

  it("is written in a format named v1, which every later build must read or refuse by name", () => {
    expect(JOURNAL_FORMAT).toBe("gamma-prompt/dist-journal/v1");
  });

  it("takes anything else at the journal's name for an interrupted build", async () => {
    const dist = await distWithJournal();
    mkdirSync(join(dist, JOURNAL_FILE));
    expect(journalState(dist)).toEqual({ present: true, live: false });
    expect(journaledMessage({ present: false })).toBe("an interrupted build left dist/ half-replaced; run gamma-prompt build");
  });

  it("judges a process alive when signalling it is refused (EPERM: it exists, owned by another user)", () => {
    const refused = Object.assign(new Error("kill EPERM"), { code: "EPERM" });
    const gone = Object.assign(new Error("kill ESRCH"), { code: "ESRCH" });
    const kill = vi.spyOn(process, "kill");
    try {
      kill.mockImplementation(() => {
        throw refused;
      });
      expect(isProcessAlive(4_000_000)).toBe(true);
      kill.mockImplementation(() => {
        throw gone;
      });
      expect(isProcessAlive(4_000_000)).toBe(false);
    } finally {
      kill.mockRestore();
    }
  });

  it("judges a process alive by its pid: this one, a live one, a dead one", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(process.ppid)).toBe(true);
    expect(isProcessAlive(deadPid())).toBe(false);
  });
});
