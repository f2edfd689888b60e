/**
 * Files beside a SKILL.md are artifacts: copied byte for byte into
 * dist/skills/<name>/, hashed in the manifest, verified by loadArtifacts and
 * covered by check.
 */
import { execFileSync } from "node:child_process";
import { appendFile, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { build, createBuildCache } from "../../src/build.js";
import { check } from "../../src/check.js";
import { init } from "../../src/init.js";
import { lint } from "../../src/lint.js";
import { ArtifactVerificationError, loadArtifacts, readSkillFile } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { isIgnoredSource } from "../../src/watch/paths.js";
import { removeTempDirs, repoRoot, tempDir } from "../build/helpers.js";

afterAll(removeTempDirs);

/** Bytes no text normalisation would keep: NUL, CR, CRLF, a lone BOM, invalid UTF-8. */
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0xef, 0xbb, 0xbf, 0xc3, 0x28, 0x0a, 0x00]);
const CRLF_TEXT = Buffer.from("\uFEFFline one\r\nline two\r\n", "utf8");
/** The same text as an LF checkout has it: what dist/ holds for either (the BOM is kept). */
const LF_TEXT = Buffer.from("\uFEFFline one\nline two\n", "utf8");

async function projectWithFiles(): Promise<string> {
  const root = await tempDir();
  expect((await init({ dir: root })).ok).toBe(true);
  const skill = join(root, "skills/style-guide");
  await mkdir(join(skill, "assets/fonts/deep"), { recursive: true });
  await mkdir(join(skill, ".git"), { recursive: true });
  await writeFile(join(skill, "assets/fonts/deep/glyphs.ttf"), BINARY);
  await writeFile(join(skill, "notes.txt"), CRLF_TEXT);
  await writeFile(join(skill, "scripts.sh"), "#!/bin/sh\necho ok\n");
  await writeFile(join(skill, ".DS_Store"), "tooling");
  await writeFile(join(skill, ".git/HEAD"), "ref: refs/heads/main\n");
  // What tools write beside sources on one machine: never an artifact, so a clean checkout builds the same dist/.
  await mkdir(join(skill, "scripts/__pycache__"), { recursive: true });
  await mkdir(join(skill, "scripts/node_modules/left-pad"), { recursive: true });
  await writeFile(join(skill, "scripts/__pycache__/count.cpython-311.pyc"), BINARY);
  await writeFile(join(skill, "scripts/node_modules/left-pad/index.js"), "module.exports = 1;\n");
  for (const name of ["scripts.sh~", "scripts.sh.orig", "scripts.sh.rej", "legacy.pyc", "Thumbs.db", "desktop.ini", "Icon\r"]) await writeFile(join(skill, name), "byproduct");
  // The body names its files, so none is an unreferenced-file note.
  await appendFile(join(skill, "SKILL.md"), "\nThe house font is assets/fonts/deep/glyphs.ttf; notes.txt and scripts.sh hold the house notes.\n");
  return root;
}

const COPIED = ["assets/fonts/deep/glyphs.ttf", "notes.txt", "references/checklist.md", "scripts.sh"];

describe("supporting files", () => {
  it("are copied at any depth (byte for byte, but a text file's CRLF line endings as LF), dotfiles and tool byproducts skipped, hashed and listed in the manifest", async () => {
    const root = await projectWithFiles();
    const built = await build({ root });
    expect(built.diagnostics).toEqual([]);
    expect(built.manifest?.skills["style-guide"]?.files).toEqual(COPIED);
    expect(built.manifest?.skills["draft-outline"]?.files).toBeUndefined();
    for (const path of COPIED) {
      const source = await readFile(join(root, "skills/style-guide", path));
      const expected = path === "notes.txt" ? LF_TEXT : source;
      expect(await readFile(join(root, "dist/skills/style-guide", path))).toEqual(expected);
      expect(built.manifest?.artifacts[`skills/style-guide/${path}`]?.bytes).toBe(expected.length);
    }
    const schema = JSON.parse(await readFile(join(repoRoot, "schemas/manifest.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate(built.manifest), JSON.stringify(validate.errors)).toBe(true);
    await expect(readFile(join(root, "dist/skills/style-guide/.DS_Store"))).rejects.toThrow();
    await expect(readFile(join(root, "dist/skills/style-guide/SKILL.md"))).rejects.toThrow();

    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const skill = artifacts.skills.get("style-guide");
    expect(skill?.baseDir).toBe("skills/style-guide");
    expect([...(skill?.files.keys() ?? [])]).toEqual(COPIED);
    expect(skill?.files.get("assets/fonts/deep/glyphs.ttf")).toEqual(BINARY);
    expect(readSkillFile(artifacts, "skills/style-guide/notes.txt")?.bytes).toEqual(LF_TEXT);
    expect(readSkillFile(artifacts, "./skills/style-guide/notes.txt")?.path).toBe("notes.txt");
    expect(readSkillFile(artifacts, "skills/style-guide/../draft-outline.md")).toBeUndefined();
    expect(readSkillFile(artifacts, "notes.txt")).toBeUndefined();
    expect((await check({ root })).ok).toBe(true);
  });

  it("the skill tool tells the model the skill's base folder and its files", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const direct = new SessionProtocolController({ artifacts, variant: "base" }).activateSkill("style-guide");
    const texts = direct.content.map((part) => (part.type === "text" ? part.text : ""));
    expect(texts[0]).toBe(artifacts.skills.get("style-guide")?.body);
    expect(texts[1]).toBe(
      'Base folder of skill "style-guide": skills/style-guide/. Paths in the skill are relative to it; read a file with `read` at skills/style-guide/<path>, ' +
        "e.g. skills/style-guide/assets/fonts/deep/glyphs.ttf. Files (4): assets/fonts/deep/glyphs.ttf, notes.txt, references/checklist.md, scripts.sh.",
    );
    // Loaded as a requirement, the reference skill's part carries its folder too.
    const viaWorkflow = new SessionProtocolController({ artifacts, variant: "base" }).activateSkill("draft-outline");
    const parts = viaWorkflow.content.map((part) => (part.type === "text" ? part.text : ""));
    expect(parts).toHaveLength(2);
    expect(parts[1]).toContain('Base folder of skill "style-guide": skills/style-guide/.');
  });

  it("are covered by check and refused by loadArtifacts when changed, missing or extra in dist/", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const dist = join(root, "dist");
    await writeFile(join(dist, "skills/style-guide/assets/fonts/deep/glyphs.ttf"), Buffer.concat([BINARY, Buffer.from([1])]));
    const drift = await check({ root });
    expect(drift.ok).toBe(false);
    expect(drift.drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["skills/style-guide/assets/fonts/deep/glyphs.ttf", "changed"],
      ["skills/style-guide/assets/fonts/deep/glyphs.ttf", "hash-mismatch"],
    ]);
    expect(drift.drift[0]?.firstDifference).toEqual({ byteOffset: 13, line: 3, column: 2 });
    expect(() => loadArtifacts({ distDir: dist })).toThrow(ArtifactVerificationError);

    await build({ root });
    await rm(join(dist, "skills/style-guide/notes.txt"));
    await writeFile(join(dist, "skills/style-guide/extra.txt"), "x");
    expect((await check({ root })).drift.map((entry) => [entry.artifact, entry.kind])).toEqual([
      ["skills/style-guide/notes.txt", "missing"],
      ["skills/style-guide/extra.txt", "extra"],
    ]);
    let error: unknown;
    try {
      loadArtifacts({ distDir: dist });
    } catch (caught) {
      error = caught;
    }
    expect((error as ArtifactVerificationError).problems.map((problem) => [problem.file, problem.kind])).toEqual([
      ["skills/style-guide/notes.txt", "missing"],
      ["skills/style-guide/extra.txt", "unexpected"],
    ]);
  });

  it("are what watch reacts to: an editor's scratch file is neither copied nor watched, a file with a like name is both", async () => {
    const root = await tempDir();
    expect((await init({ dir: root })).ok).toBe(true);
    const skill = join(root, "skills/style-guide");
    // Emacs keeps #SKILL.md# while a buffer has unsaved changes; the others live for the length of a save.
    const scratch = ["#SKILL.md#", "SKILL.md___jb_tmp___", "SKILL.md___jb_old___", "4913", "sedAb12Cd", "sed4ab9QZ", "SKILL.md.swx", "notes.md~"];
    const sources = ["sediments", "sedation", "4913.txt", "#hashtags.md", "notes~draft.md"];
    for (const name of [...scratch, ...sources]) await writeFile(join(skill, name), "text\n");
    const built = await build({ root });
    expect(built.ok).toBe(true);
    const copied = built.manifest?.skills["style-guide"]?.files ?? [];
    for (const name of scratch) {
      expect(copied).not.toContain(name);
      expect(isIgnoredSource(`skills/style-guide/${name}`, "dist")).toBe(true);
    }
    for (const name of sources) {
      expect(copied).toContain(name);
      expect(isIgnoredSource(`skills/style-guide/${name}`, "dist")).toBe(false);
    }
    expect(built.diagnostics.filter((diagnostic) => scratch.some((name) => diagnostic.file.endsWith(`/${name}`)))).toEqual([]);
    expect((await check({ root })).ok).toBe(true);
  });

  it("over the size limit is an error that names the limit; the limit is configurable", async () => {
    const root = await projectWithFiles();
    await writeFile(join(root, "skills/style-guide/big.bin"), Buffer.alloc(1024 * 1024 + 1));
    await appendFile(join(root, "skills/style-guide/SKILL.md"), "Sample data is in big.bin.\n");
    const refused = await build({ root });
    expect(refused.ok).toBe(false);
    expect(refused.diagnostics.map((d) => [d.file, d.ruleId, d.message])).toEqual([
      ["skills/style-guide/big.bin", "skill/supporting-file-too-large", "Unexpected supporting file of 1048577 bytes, expected at most 1048576 bytes (supportingFiles.maxBytes in gamma-prompt.config.json)"],
    ]);
    await expect(readFile(join(root, "dist/manifest.json"))).rejects.toThrow();

    const config = join(root, "gamma-prompt.config.json");
    await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, "utf8")), supportingFiles: { maxBytes: 2 * 1024 * 1024 } }));
    const built = await build({ root });
    expect(built.ok).toBe(true);
    expect(built.manifest?.artifacts["skills/style-guide/big.bin"]?.bytes).toBe(1024 * 1024 + 1);
    await writeFile(config, JSON.stringify({ supportingFiles: { maxBytes: 10 } }));
    expect((await build({ root })).diagnostics.filter((d) => d.ruleId === "skill/supporting-file-too-large").map((d) => d.file)).toEqual([
      "skills/style-guide/assets/fonts/deep/glyphs.ttf",
      "skills/style-guide/big.bin",
      "skills/style-guide/notes.txt",
      "skills/style-guide/references/checklist.md",
      "skills/style-guide/scripts.sh",
    ]);
  });

  it("symbolic links and FIFOs are never followed or read: a warning, and the build goes on", async () => {
    const root = await projectWithFiles();
    const skill = join(root, "skills/style-guide");
    await symlink("/etc/hostname", join(skill, "host-link"));
    execFileSync("mkfifo", [join(skill, "pipe")]);
    const built = await build({ root });
    expect(built.ok).toBe(true);
    expect(built.diagnostics.map((d) => [d.file, d.ruleId, d.severity])).toEqual([
      ["skills/style-guide/host-link", "skill/supporting-file-skipped", "warning"],
      ["skills/style-guide/pipe", "skill/supporting-file-skipped", "warning"],
    ]);
    expect(built.manifest?.skills["style-guide"]?.files).toEqual(COPIED);
    // The no-change fast path hashes the listing without reading the FIFO either.
    expect((await build({ root })).fromCache).toBe(true);
  });

  it("a file or folder whose name is not UTF-8 is named as such, not as a read failure: a warning, and the build goes on", async () => {
    const root = await projectWithFiles();
    const skill = Buffer.from(join(root, "skills/style-guide/"));
    // "café" in Latin-1, as an archive made on an older system leaves it; and "ü" as a folder, with a file in it.
    await writeFile(Buffer.concat([skill, Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from(".txt")]), "latin-1 name");
    await mkdir(Buffer.concat([skill, Buffer.from([0xfc])]));
    await writeFile(Buffer.concat([skill, Buffer.from([0xfc]), Buffer.from("/inside.txt")]), "in a latin-1 folder");
    // A name that holds U+FFFD itself is UTF-8, and is copied.
    await writeFile(join(root, "skills/style-guide/replacement-\uFFFD.txt"), "a real U+FFFD");
    const built = await build({ root });
    expect(built.ok).toBe(true);
    // (The body names none of the three, so each is also a note of skill/unreferenced-file.)
    const warnings = built.diagnostics.filter((d) => d.severity !== "note");
    expect(warnings.map((d) => [d.file, d.ruleId, d.severity, d.message])).toEqual([
      [
        "skills/style-guide/caf\uFFFD.txt",
        "skill/supporting-file-skipped",
        "warning",
        "Unexpected file name that is not UTF-8, expected a name in UTF-8, which the manifest and every system can hold (it is not copied into dist/)",
      ],
      [
        "skills/style-guide/\uFFFD",
        "skill/supporting-file-skipped",
        "warning",
        "Unexpected folder name that is not UTF-8, expected a name in UTF-8, which the manifest and every system can hold (nothing in it is copied into dist/)",
      ],
    ]);
    expect(built.manifest?.skills["style-guide"]?.files).toEqual([...COPIED, "replacement-\uFFFD.txt"].sort());
  });

  it("files whose names differ only in letter case or Unicode form are told, since macOS and Windows keep one of them; both are copied", async () => {
    const root = await projectWithFiles();
    const skill = join(root, "skills/style-guide");
    await writeFile(join(skill, "Notes.TXT"), "upper");
    await writeFile(join(skill, "caf\u00e9.md"), "composed");
    await writeFile(join(skill, "cafe\u0301.md"), "decomposed");
    const built = await build({ root });
    expect(built.ok).toBe(true);
    const warnings = built.diagnostics.filter((d) => d.severity !== "note");
    expect(warnings.map((d) => [d.file, d.ruleId, d.severity, d.message])).toEqual([
      [
        "skills/style-guide/caf\u00e9.md",
        "skill/supporting-file-skipped",
        "warning",
        'Unexpected supporting file "caf\u00e9.md" whose name differs from "cafe\u0301.md" only in Unicode form (the same letters, composed in one name and decomposed in the other), expected names that stay apart on every system: macOS and Windows take them for one file, so a checkout there keeps one of the two and builds another dist/ (both are copied here)',
      ],
      [
        "skills/style-guide/notes.txt",
        "skill/supporting-file-skipped",
        "warning",
        'Unexpected supporting file "notes.txt" whose name differs from "Notes.TXT" only in letter case, expected names that stay apart on every system: macOS and Windows take them for one file, so a checkout there keeps one of the two and builds another dist/ (both are copied here)',
      ],
    ]);
    expect(built.manifest?.skills["style-guide"]?.files).toEqual([...COPIED, "Notes.TXT", "caf\u00e9.md", "cafe\u0301.md"].sort());
  });

  it("an edit to a supporting file is never served from a cache: persistent or watch", async () => {
    const root = await projectWithFiles();
    await build({ root });
    await writeFile(join(root, "skills/style-guide/notes.txt"), "edited\n");
    const rebuilt = await build({ root });
    expect(rebuilt.fromCache).toBe(false);
    expect(rebuilt.written).toEqual(["manifest.json", "skills/style-guide/notes.txt"]);

    const cache = createBuildCache();
    await build({ root, cache });
    await writeFile(join(root, "skills/style-guide/references/new.md"), "# New\n");
    const watched = await build({ root, cache, changedPaths: ["skills/style-guide/references/new.md"] });
    expect(watched.written).toEqual(["manifest.json", "skills/style-guide/references/new.md"]);
    await writeFile(join(root, "skills/draft-outline/SKILL.md"), (await readFile(join(root, "skills/draft-outline/SKILL.md"), "utf8")).replace("Draft an outline", "Draft the outline"));
    const untouched = await build({ root, cache, changedPaths: ["skills/draft-outline/SKILL.md"] });
    expect(untouched.manifest?.skills["style-guide"]?.files).toContain("references/new.md");
    expect((await check({ root })).ok).toBe(true);
  });
});

describe("a skill's files stay readable for the whole session", () => {
  const NOTE =
    'Base folder of skill "style-guide": skills/style-guide/. Paths in the skill are relative to it; read a file with `read` at skills/style-guide/<path>, ' +
    "e.g. skills/style-guide/assets/fonts/deep/glyphs.ttf. Files (4): assets/fonts/deep/glyphs.ttf, notes.txt, references/checklist.md, scripts.sh.";
  const anchorOf = (controller: SessionProtocolController): string => {
    const restored = controller.restoreContext([]);
    const anchor = restored.at(-1) as { content?: unknown } | undefined;
    return typeof anchor?.content === "string" ? anchor.content : "";
  };
  /** The `<skill name="…">` element of the anchor, opening tag to closing tag. */
  const element = (anchor: string, name: string): string => {
    const start = anchor.indexOf(`<skill name="${name}"`);
    return start < 0 ? "" : anchor.slice(start, anchor.indexOf("</skill>", start) + "</skill>".length);
  };

  it("after compaction the anchor names each restored skill's base folder and files, after its body, the same bytes every time", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const body = (artifacts.skills.get("style-guide")?.body ?? "").replace(/\n$/, "");

    // Loaded with the skill tool, and as another skill's requirement.
    const loaded = new SessionProtocolController({ artifacts, variant: "base" });
    loaded.activateSkill("draft-outline");
    const anchor = anchorOf(loaded);
    expect(element(anchor, "style-guide")).toBe(
      `<skill name="style-guide" type="reference">\nThis reference skill is active as lookup material. Apply only what is relevant.\n\n${body}\n\n${NOTE}\n</skill>`,
    );
    // A skill that ships no files has no folder line.
    expect(element(anchor, "draft-outline")).not.toContain("Base folder");
    expect(anchorOf(loaded)).toBe(anchor);

    // Activated by the host.
    const host = new SessionProtocolController({ artifacts, variant: "base" });
    host.activateSkillForHost("style-guide");
    expect(element(anchorOf(host), "style-guide")).toContain(`${body}\n\n${NOTE}\n</skill>`);
  });

  it("loading an active skill again gives its base folder and files with the confirmation", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const controller = new SessionProtocolController({ artifacts, variant: "base" });
    controller.activateSkill("style-guide");
    const again = controller.activateSkill("style-guide").content.map((part) => (part.type === "text" ? part.text : ""));
    expect(again).toEqual([
      'Skill "style-guide" is already active (loaded earlier in this session); its instructions are already in your context. Continue following them.',
      NOTE,
    ]);
    // Without files, the confirmation alone.
    controller.activateSkill("draft-outline");
    expect(controller.activateSkill("draft-outline").content).toHaveLength(1);
  });

  it("readSkillFile serves a path however the model writes it, but never one that climbs out of skills/", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const checklist = await readFile(join(root, "dist/skills/style-guide/references/checklist.md"));
    for (const path of [
      "skills/style-guide/references/checklist.md",
      "./skills/style-guide/references/checklist.md",
      "/skills/style-guide/references/checklist.md",
      "skills/style-guide/./references/checklist.md",
      "skills/style-guide//references/checklist.md",
      "skills//style-guide/references/./checklist.md",
      "skills/style-guide/assets/../references/checklist.md",
      "skills/draft-outline/../style-guide/references/checklist.md",
    ]) {
      expect(readSkillFile(artifacts, path), path).toEqual({ skill: "style-guide", path: "references/checklist.md", bytes: checklist });
    }
    expect(readSkillFile(artifacts, "skills/style-guide/assets/fonts/deep/../../../notes.txt")?.path).toBe("notes.txt");
    for (const path of [
      "../skills/style-guide/notes.txt",
      "skills/../skills/style-guide/notes.txt",
      "skills/style-guide/../../skills/style-guide/notes.txt",
      "skills/style-guide/../../../etc/passwd",
      "skills/style-guide/..",
      "skills/style-guide/references/",
      "skills/style-guide",
      "skills\\style-guide\\notes.txt",
    ]) {
      expect(readSkillFile(artifacts, path), path).toBeUndefined();
    }
  });

  it("readSkillFile serves a percent-encoded link's file, as lint resolves the link; a name as written comes first", async () => {
    const root = await projectWithFiles();
    const skill = join(root, "skills/style-guide");
    await writeFile(join(skill, "references/my notes.md"), "# Notes\n");
    await writeFile(join(skill, "references/café.md"), "# Café\n");
    await writeFile(join(skill, "references/a b.md"), "# decoded\n");
    await writeFile(join(skill, "references/a%20b.md"), "# literal\n");
    await appendFile(join(skill, "SKILL.md"), "\nSee [the notes](references/my%20notes.md), [the café list](references/caf%C3%A9.md) and [a b](references/a%20b.md).\n");
    const linted = await lint({ root });
    expect(linted.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/broken-link")).toEqual([]);
    expect((await build({ root })).ok).toBe(true);
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(readSkillFile(artifacts, "skills/style-guide/references/my%20notes.md")).toEqual({ skill: "style-guide", path: "references/my notes.md", bytes: Buffer.from("# Notes\n") });
    expect(readSkillFile(artifacts, "skills/style-guide/references/caf%C3%A9.md")?.path).toBe("references/café.md");
    expect(readSkillFile(artifacts, "skills/style-guide/references/my notes.md")?.path).toBe("references/my notes.md");
    // A file whose name holds the escape as written is that file.
    expect(readSkillFile(artifacts, "skills/style-guide/references/a%20b.md")?.bytes.toString()).toBe("# literal\n");
    // Decoded escapes are segments like any other: they never climb out of skills/; a lone % decodes to nothing.
    expect(readSkillFile(artifacts, "skills/style-guide/%2E%2E/%2E%2E/skills/style-guide/notes.txt")).toBeUndefined();
    expect(readSkillFile(artifacts, "skills%2Fstyle-guide%2Fnotes.txt")?.path).toBe("notes.txt");
    expect(readSkillFile(artifacts, "skills/style-guide/references/my%2notes.md")).toBeUndefined();
  });

  it("readSkillFile serves the catalog's skills/<name>/SKILL.md as the skill's compiled body, for a skill the model may load", async () => {
    const root = await projectWithFiles();
    await build({ root });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const catalogPaths = [...artifacts.catalog.matchAll(/path="([^"]+)"/g)].map((match) => match[1] ?? "");
    expect(catalogPaths).toEqual(["skills/draft-outline/SKILL.md", "skills/style-guide/SKILL.md"]);
    for (const path of catalogPaths) {
      const name = path.split("/")[1] ?? "";
      const body = await readFile(join(root, "dist", artifacts.manifest.skills[name]?.file ?? ""));
      expect(readSkillFile(artifacts, path), path).toEqual({ skill: name, path: "SKILL.md", bytes: body });
      expect(readSkillFile(artifacts, `./${path.replace("/SKILL.md", "/./SKILL.md")}`)?.bytes, path).toEqual(body);
    }
    // Serving the body does not make the skill active: that is what the skill tool does.
    const controller = new SessionProtocolController({ artifacts, variant: "base" });
    readSkillFile(artifacts, "skills/style-guide/SKILL.md");
    expect(controller.state.activeSkills).toEqual([]);

    // A skill kept from the model (disable-model-invocation) is as unknown here as to the skill tool.
    const skill = join(root, "skills/style-guide/SKILL.md");
    await writeFile(skill, (await readFile(skill, "utf8")).replace("metadata:\n", "disable-model-invocation: true\nmetadata:\n"));
    const hidden = await build({ root });
    expect(hidden.ok, JSON.stringify(hidden.diagnostics)).toBe(true);
    const withHidden = loadArtifacts({ distDir: join(root, "dist") });
    expect(withHidden.skills.get("style-guide")?.modelInvocable).toBe(false);
    expect(readSkillFile(withHidden, "skills/style-guide/SKILL.md")).toBeUndefined();
    expect(readSkillFile(withHidden, "skills/style-guide/notes.txt")?.bytes).toEqual(LF_TEXT);
  });
});

describe("a preloaded skill's files", () => {
  it("are named in the variant after the skill's body, as the skill tool names them; a skill without files has no such line", async () => {
    const root = await projectWithFiles();
    const variants = join(root, "prompts/variants.yaml");
    await writeFile(variants, `${await readFile(variants, "utf8")}  outline:\n    preload: [draft-outline]\n`);
    const built = await build({ root });
    expect(built.diagnostics).toEqual([]);
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const variant = artifacts.variants["outline"] ?? "";
    const skill = artifacts.skills.get("style-guide");
    const note = new SessionProtocolController({ artifacts, variant: "base" }).activateSkill("style-guide").content.map((part) => (part.type === "text" ? part.text : ""))[1];
    expect(note).toMatch(/^Base folder of skill "style-guide": skills\/style-guide\/\./);
    expect(variant).toContain(`${skill?.body ?? "missing"}\n${note}\n</preloaded_skill>`);
    const outline = variant.slice(variant.indexOf('<preloaded_skill name="draft-outline"'));
    expect(outline.slice(0, outline.indexOf("</preloaded_skill>"))).not.toContain("Base folder");
    // A variant without preloads is the prefix alone, as before.
    expect(artifacts.variants["base"]).toBe(artifacts.prefix);

    // Asked for again, the preloaded skill's confirmation names its folder too.
    const preloaded = new SessionProtocolController({ artifacts, variant: "outline" });
    expect(preloaded.activateSkill("style-guide").content.map((part) => (part.type === "text" ? part.text : ""))).toEqual([
      'Skill "style-guide" is already active (preloaded in the system prompt); its instructions are already in your context. Continue following them.',
      note,
    ]);
    expect((await check({ root })).ok).toBe(true);
  });

  it("follow a file added or removed, in watch too: the variant lists the files the build copied", async () => {
    const root = await projectWithFiles();
    const variants = join(root, "prompts/variants.yaml");
    await writeFile(variants, `${await readFile(variants, "utf8")}  outline:\n    preload: [draft-outline]\n`);
    const cache = createBuildCache();
    await build({ root, cache });
    const outline = async (): Promise<string> => readFile(join(root, "dist/variants/outline.md"), "utf8");
    expect(await outline()).toContain("Files (4): assets/fonts/deep/glyphs.ttf, notes.txt, references/checklist.md, scripts.sh.");
    await writeFile(join(root, "skills/style-guide/references/new.md"), "# New\n");
    const added = await build({ root, cache, changedPaths: ["skills/style-guide/references/new.md"] });
    expect(added.written).toContain("variants/outline.md");
    expect(await outline()).toContain("Files (5): assets/fonts/deep/glyphs.ttf, notes.txt, references/checklist.md, references/new.md, scripts.sh.");
    await rm(join(root, "skills/style-guide/references/new.md"));
    await build({ root });
    expect(await outline()).toContain("Files (4): assets/fonts/deep/glyphs.ttf, notes.txt, references/checklist.md, scripts.sh.");
    expect((await check({ root })).ok).toBe(true);
  });
});
