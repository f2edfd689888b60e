/**
 * A link, a path mention and a supporting file name match only when each
 * segment is spelled as the folder lists it, letter case and Unicode form
 * included, on every file system: a file system that ignores case or
 * Unicode form (Windows, macOS) gives the same findings as one that does
 * not, and a finding about a name that matches only up to case or form
 * names the file as it is spelled on disk.
 */
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { build } from "../../src/build.js";
import { lint } from "../../src/lint.js";
import { PathProbes, probesStillHold } from "../../src/pipeline/discover/path-probes.js";
import { loadArtifacts, readSkillFile } from "../../src/runtime/artifacts.js";
import { copyProject, removeTempDirs } from "../build/helpers.js";

const machine = vi.hoisted(() => ({ ignoresSpelling: false }));

/** A stat that, while `machine.ignoresSpelling`, finds a path whose segments match an entry up to letter case and Unicode form, as APFS and NTFS do. */
vi.mock("node:fs", async (original) => {
  const actual = await original<typeof import("node:fs")>();
  const fold = (name: string): string => name.normalize("NFC").toLowerCase();
  const statSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
    const found = actual.statSync(path, options);
    if (found !== undefined || !machine.ignoresSpelling || typeof path !== "string") return found;
    const segments = path.split(sep);
    let at = segments[0] === "" ? sep : segments[0] ?? "";
    for (const segment of segments.slice(1)) {
      if (segment === "") continue;
      let names: string[];
      try {
        names = actual.readdirSync(at);
      } catch {
        return found;
      }
      const match = names.find((name) => name === segment) ?? names.find((name) => fold(name) === fold(segment));
      if (match === undefined) return found;
      at = join(at, match);
    }
    return actual.statSync(at, options);
  }) as typeof actual.statSync;
  return { ...actual, statSync, default: { ...actual, statSync } };
});

const made: string[] = [];
afterAll(async () => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
  await removeTempDirs();
});

const composed = "r\u00e9sum\u00e9.md";
const decomposed = composed.normalize("NFD");

/** A skill whose body names `references/résumé.md` (composed) and `references/tone.md`; the files are `résumé.md` decomposed and `Tone.md`. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "gp-link-spelling-"));
  made.push(root);
  mkdirSync(join(root, "skills", "style", "references"), { recursive: true });
  writeFileSync(
    join(root, "skills", "style", "SKILL.md"),
    [
      "---",
      "name: style",
      "type: reference",
      "description: Use when the user asks how to style a document.",
      "---",
      "",
      "# Style",
      "",
      `See [the notes](references/${composed}) and [the tone](references/tone.md).`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(root, "skills", "style", "references", decomposed), "# Notes\n");
  writeFileSync(join(root, "skills", "style", "references", "Tone.md"), "# Tone\n");
  return root;
}

describe("names that match only up to letter case or Unicode form", () => {
  it("are broken links whose message names the file as spelled on disk and the encodings", async () => {
    const root = project();
    const result = await lint({ root, profile: "gamma" });
    const shown = result.diagnostics.map((diagnostic) => `${diagnostic.severity} ${diagnostic.ruleId} ${diagnostic.message}`);
    expect(shown).toEqual([
      `note skill/unreferenced-file Unreferenced folder "references/" (2 files): neither the body nor a file it references names it or a file in it; the body names them only with other letter case or in another Unicode form, and names must match exactly, letter case and Unicode form included, expected a link or path such as references/ where the skill uses them (or remove them)`,
      `error skill/broken-link Unexpected link to "references/${composed}", which names no file as written, expected "references/${decomposed}" (the file is named references/${decomposed}, the same letters in another Unicode form (NFD on disk, NFC as written): names must match exactly, letter case and Unicode form included)`,
      `error skill/broken-link Unexpected link to "references/tone.md", which names no file as written, expected "references/Tone.md" (the file is named references/Tone.md: names must match exactly, letter case and Unicode form included)`,
    ]);
  });

  it("give the same findings on a file system that ignores case and Unicode form", async () => {
    const root = project();
    const strict = await lint({ root, profile: "gamma" });
    machine.ignoresSpelling = true;
    try {
      // The simulated file system does find the file under the other spelling.
      expect(fs.statSync(join(root, "skills", "style", "references", "tone.md"), { throwIfNoEntry: false })?.isFile()).toBe(true);
      const lenient = await lint({ root, profile: "gamma" });
      expect(lenient.diagnostics).toEqual(strict.diagnostics);
      expect(lenient.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/broken-link")).toHaveLength(2);
    } finally {
      machine.ignoresSpelling = false;
    }
  });

  it("are absent to the lookups a persisted build trusts again, on either kind of file system", () => {
    const root = project();
    const recorded: Array<[string, "absent" | "file"]> = [
      ["skills/style/references/tone.md", "absent"],
      ["skills/style/references/Tone.md", "file"],
    ];
    for (const ignoresSpelling of [false, true]) {
      machine.ignoresSpelling = ignoresSpelling;
      try {
        const probes = new PathProbes(root);
        expect(probes.exists("skills/style/references/tone.md")).toBe("absent");
        expect(probes.exists(`skills/style/references/${composed}`)).toBe("absent");
        expect(probes.nearMatch("skills/style/references/tone.md")).toBe("skills/style/references/Tone.md");
        expect(probes.nearMatch("skills/style/references/absent.md")).toBeUndefined();
        expect(probesStillHold(root, recorded)).toBe(true);
      } finally {
        machine.ignoresSpelling = false;
      }
    }
  });

  it("are fine once the link is spelled as the file is", async () => {
    const root = project();
    writeFileSync(join(root, "skills", "style", "SKILL.md"), ["---", "name: style", "type: reference", "description: Use when the user asks how to style a document.", "---", "", `See [the notes](references/${decomposed}) and [the tone](references/Tone.md).`, ""].join("\n"));
    const result = await lint({ root, profile: "gamma" });
    expect(result.diagnostics).toEqual([]);
  });
});

describe("supporting files in dist/ and at runtime", () => {
  it("keep the spelling on disk, and readSkillFile serves a file only under that spelling", async () => {
    const root = await copyProject("basic");
    const skill = join(root, "skills", "card-style");
    mkdirSync(join(skill, "references"), { recursive: true });
    writeFileSync(join(skill, "references", "Tone.md"), "# Tone\n");
    writeFileSync(join(skill, "references", decomposed), "# Notes\n");
    const body = fs.readFileSync(join(skill, "SKILL.md"), "utf8");
    writeFileSync(join(skill, "SKILL.md"), `${body.trimEnd()}\n\nSee [the tone](references/Tone.md) and [the notes](references/${decomposed}).\n`);
    const result = await build({ root, persistentCache: false });
    expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
    expect(fs.readdirSync(join(root, "dist", "skills", "card-style", "references")).sort()).toEqual(["Tone.md", decomposed]);
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(readSkillFile(artifacts, "skills/card-style/references/Tone.md")?.path).toBe("references/Tone.md");
    expect(readSkillFile(artifacts, `skills/card-style/references/${decomposed}`)?.path).toBe(`references/${decomposed}`);
    machine.ignoresSpelling = true;
    try {
      expect(readSkillFile(artifacts, "skills/card-style/references/tone.md")).toBeUndefined();
      expect(readSkillFile(artifacts, `skills/card-style/references/${composed}`)).toBeUndefined();
    } finally {
      machine.ignoresSpelling = false;
    }
  });
});
