/**
 * A file system that opens a name that is not there and fails only when the
 * descriptor is used, as Yarn Plug'n'Play's does inside a package's zip
 * archive (openSync of a missing file succeeds, fstatSync throws ENOENT). A
 * dist/ without a journal read that way has no journal: it loads, and is not
 * taken for an interrupted build.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { JOURNAL_FILE, journalState } from "../../src/protocol/dist-journal.js";
import { readRegularFile } from "../../src/protocol/regular-file.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { removeTempDirs, tempDirSync } from "../helpers/temp-project.js";

/** Names whose open "succeeds" on a placeholder descriptor whose fstat fails with `code`. */
const archive = vi.hoisted(() => ({ absent: new Map<string, string>(), descriptors: new Map<number, string>() }));
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const openSync = ((path: string, ...rest: unknown[]) => {
    const code = archive.absent.get(String(path));
    if (code === undefined) return (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
    const descriptor = actual.openSync("/dev/null", "r");
    archive.descriptors.set(descriptor, code);
    return descriptor;
  }) as typeof actual.openSync;
  const fstatSync = ((descriptor: number, ...rest: unknown[]) => {
    const code = archive.descriptors.get(descriptor);
    if (code !== undefined) throw Object.assign(new Error(`${code}: no such file or directory, fstat`), { code });
    return (actual.fstatSync as (...args: unknown[]) => unknown)(descriptor, ...rest);
  }) as typeof actual.fstatSync;
  const closeSync = ((descriptor: number) => {
    archive.descriptors.delete(descriptor);
    actual.closeSync(descriptor);
  }) as typeof actual.closeSync;
  return { ...actual, openSync, fstatSync, closeSync };
});

afterEach(() => {
  archive.absent.clear();
  archive.descriptors.clear();
});
afterAll(removeTempDirs);

const embeddedDist = fileURLToPath(new URL("../../dist/", import.meta.url));

describe("a name that opens but is not there (Plug'n'Play's zip file system)", () => {
  it("reads as missing when fstat says ENOENT or ENOTDIR", () => {
    for (const code of ["ENOENT", "ENOTDIR"]) {
      const path = join(tempDirSync("gamma-archive"), "absent.json");
      archive.absent.set(path, code);
      expect(readRegularFile(path, { noFollow: true })).toEqual({ kind: "missing" });
    }
  });

  it("still reads as an error for any other failure", () => {
    const path = join(tempDirSync("gamma-archive"), "unreadable.json");
    archive.absent.set(path, "EIO");
    expect(readRegularFile(path)).toEqual({ kind: "error", code: "EIO" });
  });

  it("is no journal: the dist/ loads, not refused as an interrupted build", () => {
    const dist = join(tempDirSync("gamma-archive"), "dist");
    cpSync(embeddedDist, dist, { recursive: true });
    archive.absent.set(join(dist, JOURNAL_FILE), "ENOENT");
    expect(journalState(dist)).toEqual({ present: false });
    const artifacts = loadArtifacts({ distDir: dist });
    expect(artifacts.manifest.variants).toBeDefined();
  });
});
