/**
 * The library's Errors table (docs/reference/library.md) as a contract: every
 * class it lists is exported from `gamma-prompt`, which loads without Pi, so a
 * caller tests what `audit` or `collectReport` threw with `instanceof` without
 * importing `gamma-prompt/runtime`. The verification errors are the runtime's
 * own classes, so one `instanceof` holds whichever entry the class came from.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as library from "../../src/index.js";
import { JOURNAL_FILE } from "../../src/protocol/dist-journal.js";
import { docPage } from "../helpers/docs.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const page = docPage("docs/reference/library.md");

/** The classes in the first column of the page's Errors table. */
function tabledClasses(): string[] {
  const section = page.text.slice(page.text.indexOf("\n## Errors\n"));
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return rows.flatMap((row) => [...(row.split("|")[1] as string).matchAll(/`(\w+)`/g)].map((match) => match[1] as string));
}

/** A project with one skill and no build: its dist/ is what `dist` writes into it. */
async function project(dist?: (dir: string) => void): Promise<string> {
  const root = await tempDir("gamma-library-errors");
  mkdirSync(join(root, "skills", "a"), { recursive: true });
  writeFileSync(join(root, "skills", "a", "SKILL.md"), "---\nname: a\ndescription: Use when testing.\n---\n\nBody.\n");
  if (dist !== undefined) {
    mkdirSync(join(root, "dist"));
    dist(join(root, "dist"));
  }
  return root;
}

describe("the errors the library's functions throw", () => {
  it("are each exported from gamma-prompt, as the Errors table lists them", () => {
    const listed = tabledClasses().filter((name) => name !== "TypeError" && name !== "RangeError");
    expect(listed).toEqual(expect.arrayContaining(["ArtifactVerificationError", "InterruptedBuildError", "AuditUsageError"]));
    const exported = library as unknown as Record<string, unknown>;
    expect(listed.filter((name) => typeof exported[name] !== "function")).toEqual([]);
  });

  it("for an output folder that fails verification, are the runtime's own classes", async () => {
    const runtime = await import("../../src/runtime/index.js");
    expect(library.ArtifactVerificationError).toBe(runtime.ArtifactVerificationError);
    expect(library.InterruptedBuildError).toBe(runtime.InterruptedBuildError);
  });

  it("audit and collectReport on a project never built reject with gamma-prompt's ArtifactVerificationError", async () => {
    const root = await project();
    await expect(library.audit({ root, files: [] })).rejects.toBeInstanceOf(library.ArtifactVerificationError);
    await expect(library.collectReport({ root })).rejects.toBeInstanceOf(library.ArtifactVerificationError);
  });

  it("audit and collectReport on an output folder an interrupted build left reject with gamma-prompt's InterruptedBuildError", async () => {
    const root = await project((dist) => writeFileSync(join(dist, JOURNAL_FILE), "{}"));
    await expect(library.audit({ root, files: [] })).rejects.toBeInstanceOf(library.InterruptedBuildError);
    await expect(library.collectReport({ root })).rejects.toBeInstanceOf(library.InterruptedBuildError);
  });
});
