import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { ProjectRootError } from "../../src/pipeline/discover/discover.js";
import { watch, type WatchBuildEvent, type WatchEvent, type WatchHandle } from "../../src/watch.js";
import { copyProject, distProblems, pause, readTree, removeTempProjects, repoRoot, saveAtomically, waitFor, withDescription } from "./helpers.js";

interface Session {
  root: string;
  dist: string;
  handle: WatchHandle;
  events: WatchEvent[];
  /** Build events after the initial one. */
  rebuilds: () => WatchBuildEvent[];
  skillPath: (name: string) => string;
}

const open: WatchHandle[] = [];

const initial = (session: Session) => session.events.find((event): event is WatchBuildEvent => event.type === "initial");

async function startSession(): Promise<Session> {
  const root = await copyProject();
  const events: WatchEvent[] = [];
  const handle = await watch({ root, onEvent: (event) => events.push(event) });
  open.push(handle);
  return {
    root,
    dist: join(root, "dist"),
    handle,
    events,
    rebuilds: () => events.filter((event): event is WatchBuildEvent => event.type === "rebuild"),
    skillPath: (name) => join(root, "skills", name, "SKILL.md"),
  };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
  await removeTempProjects();
});

describe("watch", () => {
  it("builds once on start, before the handle is returned", async () => {
    const session = await startSession();
    expect(session.events).toHaveLength(1);
    const initial = session.events[0];
    expect(initial).toMatchObject({ type: "initial", ok: true, changedPaths: [], errorCount: 0 });
    expect(initial?.type === "initial" && initial.written).toContain("manifest.json");
    // A first build replaces no cached prefix, so it raises no invalidation warning.
    expect(initial?.type === "initial" && initial.prefixChange).toBeUndefined();
    expect(await distProblems(session.dist)).toEqual([]);
  });

  it("says which folders it watches: the fixed ones, the config's skill layout's, and every folder once a layout pattern starts with a glob", async () => {
    const session = await startSession();
    expect(session.handle.watching).toEqual(["skills", "prompts", "schemas", "knowledge"]);
    await writeFile(join(session.root, "gamma-prompt.config.json"), `${JSON.stringify({ skills: ["skills/*", "plugins/*/skills/*"] }, null, 2)}\n`);
    await waitFor("the rebuild after the config changed", () => session.rebuilds().length > 0);
    expect(session.handle.watching).toEqual(["skills", "prompts", "schemas", "knowledge", "plugins"]);
    await writeFile(join(session.root, "gamma-prompt.config.json"), `${JSON.stringify({ skills: ["skills/*", "*/skills/*"] }, null, 2)}\n`);
    await waitFor("the second rebuild", () => session.rebuilds().length > 1);
    expect(session.handle.watching).toBe("any");
  });

  it("sees a save made right after the initial event in a large project (real process)", async () => {
    const root = await copyProject();
    const count = 1000;
    await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const name = `synthetic-${String(index).padStart(4, "0")}`;
        await mkdir(join(root, "skills", name), { recursive: true });
        await writeFile(join(root, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: Use when testing ${name}.\ntype: reference\n---\n# ${name}\n\nReference text.\n`);
      }),
    );
    const lastName = `synthetic-${String(count - 1).padStart(4, "0")}`;
    const last = join(root, "skills", lastName, "SKILL.md");
    // A whole process, as an author runs it: its first build is fast enough to finish before the
    // watcher has listed a thousand folders, which is where a save used to be lost.
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "watch", "--root", root, "--format", "json"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const events: Array<{ type: string; changedPaths: string[] }> = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      const event = JSON.parse(line) as { type: string; changedPaths: string[] };
      events.push(event);
      // The author saves the moment watch says it has built: that save must not be lost.
      if (event.type === "initial") void saveAtomically(last, withDescription(`---\nname: ${lastName}\ndescription: x\ntype: reference\n---\n# edited\n`, "Use when the save lands right away."));
    });
    try {
      await waitFor("the rebuild of the saved skill", () =>
        events.some((event) => event.type === "rebuild" && event.changedPaths.includes(`skills/${lastName}/SKILL.md`)),
      );
    } finally {
      child.kill("SIGINT");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("rebuilds after a description edit, rewrites the catalog and flags the prefix change", async () => {
    const session = await startSession();
    const catalogBefore = await readFile(join(session.dist, "catalog.xml"), "utf8");
    const skill = session.skillPath("gml-cli");
    const text = await readFile(skill, "utf8");
    // Longer than before, so the prefix grows by a known direction.
    const description = `${/^description: (.*)$/m.exec(text)?.[1]} Also use when a gml command exits non-zero.`;
    await saveAtomically(skill, withDescription(text, description));

    await waitFor("a rebuild", () => session.rebuilds().length > 0);
    await session.handle.close();
    // The rebuild's staging folder is removed after it returns, and close() waits for that.
    expect((await readdir(session.root)).filter((name) => name.startsWith(".gamma-prompt-"))).toEqual([]);
    const rebuild = session.rebuilds()[0];
    expect(rebuild).toMatchObject({ ok: true, changedPaths: ["skills/gml-cli/SKILL.md"] });
    expect(rebuild?.written).toEqual(expect.arrayContaining(["catalog.xml", "prefix.md", "manifest.json"]));
    const catalogAfter = await readFile(join(session.dist, "catalog.xml"), "utf8");
    expect(catalogAfter).not.toBe(catalogBefore);
    expect(catalogAfter).toContain(description);
    expect(rebuild?.prefixChange?.cacheKeyBefore).toEqual(expect.any(String));
    expect(rebuild?.prefixChange?.cacheKeyAfter).not.toBe(rebuild?.prefixChange?.cacheKeyBefore);
    expect(rebuild?.prefixChange?.tokensAfter).toBeGreaterThan(rebuild?.prefixChange?.tokensBefore ?? Infinity);
    // What the edit costs: every variant's blocks from the static prefix on are written again.
    expect(rebuild?.invalidation?.map((entry) => entry.variant)).toEqual(["base", "deck-generation", "import"]);
    expect(rebuild?.invalidation?.[0]?.tokens).toBe(rebuild?.prefixChange?.tokensAfter);
    expect(initial(session)?.invalidation).toBeUndefined();
    expect(await distProblems(session.dist)).toEqual([]);
  });

  it("rewrites only what a body edit touches and keeps the static prefix", async () => {
    const session = await startSession();
    const skill = session.skillPath("gml-cli");
    await saveAtomically(skill, `${await readFile(skill, "utf8")}\nA line added to the body.\n`);

    await waitFor("a rebuild", () => session.rebuilds().length > 0);
    await session.handle.close();
    const rebuild = session.rebuilds()[0];
    expect(rebuild?.ok).toBe(true);
    expect(rebuild?.written).toContain("skills/gml-cli.md");
    expect(rebuild?.written).not.toContain("prefix.md");
    expect(rebuild?.written).not.toContain("catalog.xml");
    expect(rebuild?.prefixChange).toBeUndefined();
    expect(await readFile(join(session.dist, "skills", "gml-cli.md"), "utf8")).toContain("A line added to the body.");
  });

  it("ignores editor scratch files, dist/ and files outside the sources", async () => {
    const session = await startSession();
    const folder = join(session.root, "skills", "gml-cli");
    await writeFile(join(folder, ".SKILL.md.swp"), "swap");
    await writeFile(join(folder, "SKILL.md~"), "backup");
    await writeFile(join(folder, "4913"), "");
    await writeFile(join(session.root, "README.md"), "# notes\n");
    await writeFile(join(session.dist, "stray.txt"), "not ours");
    // A real edit after the noise: had any of it counted, it would show up in this batch or an earlier one.
    const skill = join(folder, "SKILL.md");
    await saveAtomically(skill, `${await readFile(skill, "utf8")}\nA real edit.\n`);

    await waitFor("a rebuild", () => session.rebuilds().length > 0);
    expect(session.rebuilds()[0]?.changedPaths).toEqual(["skills/gml-cli/SKILL.md"]);
  });

  it("lists only the skill after `sed -i` edits it (sed's own temporary file is not a changed path)", async () => {
    const session = await startSession();
    const skill = session.skillPath("gml-cli");
    // GNU sed -i writes the new text to a temporary `sedXXXXXX` beside the file, then renames it over the file.
    const sed = spawn("sed", ["-i", "s/^# /# Edited: /", skill], { stdio: "ignore" });
    expect(await new Promise((resolveExit) => sed.once("exit", resolveExit))).toBe(0);

    await waitFor("a rebuild", () => session.rebuilds().length > 0);
    await pause(300);
    expect(session.rebuilds().flatMap((rebuild) => rebuild.changedPaths)).toEqual(["skills/gml-cli/SKILL.md"]);
  });

  it("rebuilds after an editor's atomic save (temp file renamed over the skill)", async () => {
    const session = await startSession();
    const skill = session.skillPath("gml-cli");
    const temp = join(session.root, "skills", "gml-cli", ".SKILL.md.tmp");
    await writeFile(temp, `${await readFile(skill, "utf8")}\nSaved through a rename.\n`);
    await rename(temp, skill);

    await waitFor("a rebuild", () => session.rebuilds().length > 0);
    await session.handle.close();
    expect(session.rebuilds()[0]).toMatchObject({ ok: true, changedPaths: ["skills/gml-cli/SKILL.md"] });
    expect(await readFile(join(session.dist, "skills", "gml-cli.md"), "utf8")).toContain("Saved through a rename.");
  });

  it("keeps the last good dist/ on a broken save, stays alive, and rebuilds on the fix", async () => {
    const session = await startSession();
    const distBefore = await readTree(session.dist);
    const skill = session.skillPath("gml-authoring");
    const good = await readFile(skill, "utf8");
    // A half-finished frontmatter edit: an unclosed quote.
    await saveAtomically(skill, good.replace(/^description: /m, 'description: "Use BEFORE '));

    await waitFor("the failed rebuild", () => session.rebuilds().length > 0);
    const failed = session.rebuilds()[0];
    expect(failed).toMatchObject({ ok: false, written: [], removed: [] });
    expect(failed?.errorCount).toBeGreaterThan(0);
    const diagnostic = failed?.diagnostics.find((d) => d.severity === "error");
    expect(diagnostic?.file).toBe("skills/gml-authoring/SKILL.md");
    expect(diagnostic?.line).toBeGreaterThan(1);
    expect(await readTree(session.dist)).toEqual(distBefore);

    const fixed = withDescription(good, "Use BEFORE writing any GML, for the syntax of decks, cards, layouts and themes.");
    await saveAtomically(skill, fixed);
    await waitFor("the repairing rebuild", () => session.rebuilds().length > 1);
    await session.handle.close();
    expect(session.rebuilds()[1]).toMatchObject({ ok: true });
    expect(await readFile(join(session.dist, "catalog.xml"), "utf8")).toContain("syntax of decks, cards, layouts and themes.");
  });

  it("removes a deleted skill's artifacts and adds a new skill's", async () => {
    const session = await startSession();
    await rm(join(session.root, "skills", "gml-editing"), { recursive: true });
    await waitFor("gml-editing to leave dist/", () => session.rebuilds().some((event) => event.removed.includes("skills/gml-editing.md")));
    expect(existsSync(join(session.dist, "skills", "gml-editing.md"))).toBe(false);
    expect(await readFile(join(session.dist, "catalog.xml"), "utf8")).not.toContain('name="gml-editing"');

    const added = join(session.root, "skills", "speaker-notes");
    await mkdir(added);
    await writeFile(
      join(added, "SKILL.md"),
      [
        "---",
        "name: speaker-notes",
        "type: reference",
        "description: Use when writing or revising the speaker notes of a card.",
        "---",
        "",
        "# Speaker notes",
        "",
        "Keep notes under 120 words per card and write them as spoken sentences.",
        "",
      ].join("\n"),
    );
    await waitFor("speaker-notes to enter dist/", () => session.rebuilds().some((event) => event.written.includes("skills/speaker-notes.md")));
    await session.handle.close();
    expect(await readFile(join(session.dist, "catalog.xml"), "utf8")).toContain('name="speaker-notes"');
    expect(await distProblems(session.dist)).toEqual([]);
  });

  it("sees a skill whose folder is named like an editor's scratch file (sed's sedXXXXXX), and its later edits", async () => {
    const session = await startSession();
    const added = join(session.root, "skills", "sedan2024");
    await mkdir(added);
    const text = (description: string) => ["---", "name: sedan2024", "type: reference", `description: ${description}`, "---", "", "# Sedan 2024", "", "The fleet's 2024 sedan: specifications for cards about it.", ""].join("\n");
    await writeFile(join(added, "SKILL.md"), text("Use when a card shows the 2024 sedan's specifications."));
    await waitFor("sedan2024 to enter dist/", () => session.rebuilds().some((event) => event.written.includes("skills/sedan2024.md")));
    const before = session.rebuilds().length;
    await writeFile(join(added, "SKILL.md"), text("Use when a card compares the 2024 sedan with another model."));
    await waitFor("the edit to be built", () => session.rebuilds().slice(before).some((event) => event.changedPaths.includes("skills/sedan2024/SKILL.md")));
    await session.handle.close();
    expect(await readFile(join(session.dist, "catalog.xml"), "utf8")).toContain("Use when a card compares the 2024 sedan with another model.");
  });

  it("rebuilds when an empty skill folder is made and when it is removed, as a clean build reports it only while it is there", async () => {
    const session = await startSession();
    await mkdir(join(session.root, "skills", "empty"));
    await waitFor("the empty folder's finding", () => session.rebuilds().some((event) => event.diagnostics.some((diagnostic) => diagnostic.ruleId === "skill/missing-skill-file")));
    const before = session.rebuilds().length;
    await rmdir(join(session.root, "skills", "empty"));
    await waitFor("a rebuild after its removal", () => session.rebuilds().length > before);
    expect(session.rebuilds().at(-1)?.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/missing-skill-file")).toEqual([]);
  });

  // `ln -sfn`, or a deploy script's switch: a link made under a temporary name and renamed over the old one.
  // The folder's name never leaves skills/, so nothing but the link's target says the skill changed.
  it("follows a symlinked skill folder pointed at another folder, and edits there after", async () => {
    const root = await copyProject();
    const shared = join(root, "shared");
    await mkdir(shared);
    await rename(join(root, "skills", "gml-cli"), join(shared, "first"));
    await cp(join(shared, "first"), join(shared, "second"), { recursive: true });
    const text = await readFile(join(shared, "first", "SKILL.md"), "utf8");
    await writeFile(join(shared, "second", "SKILL.md"), withDescription(text, "Use BEFORE running any gml command (the second folder)."));
    await symlink(join("..", "shared", "first"), join(root, "skills", "gml-cli"));
    const events: WatchEvent[] = [];
    const handle = await watch({ root, onEvent: (event) => events.push(event) });
    open.push(handle);
    const catalog = () => readFile(join(root, "dist", "catalog.xml"), "utf8");
    expect(await catalog()).not.toContain("(the second folder)");

    await symlink(join("..", "shared", "second"), join(root, "skills", ".gml-cli.relinking"));
    await rename(join(root, "skills", ".gml-cli.relinking"), join(root, "skills", "gml-cli"));
    await waitFor("the second folder's description in dist/", async () => (await catalog()).includes("(the second folder)"));
    const relinked = events.find((event): event is WatchBuildEvent => event.type === "rebuild" && event.written.includes("catalog.xml"));
    expect(relinked).toMatchObject({ ok: true });
    expect(relinked?.changedPaths).toContain("skills/gml-cli/SKILL.md");

    await saveAtomically(join(shared, "second", "SKILL.md"), withDescription(text, "Use BEFORE running any gml command (edited after the switch)."));
    await waitFor("the edit in the new target in dist/", async () => (await catalog()).includes("(edited after the switch)"));
    await handle.close();
    const fresh = await build({ root, outDir: "fresh" });
    expect(fresh.ok).toBe(true);
    expect(await readTree(join(root, "dist"))).toEqual(await readTree(join(root, "fresh")));
  });

  // A skill folder linked in from vendor/ whose target goes away and comes back, comes only after watch
  // started (an uninitialised submodule), or is deleted and written again: the link itself never changes.
  describe("follows a linked skill folder whose target", () => {
    const skillText = (marker: string) =>
      `---\nname: vendor-notes\ndescription: Use when the user asks about the vendored notes (${marker}).\nmetadata:\n  gamma-type: reference\n---\n\n# Vendored notes\n\nFacts the vendor keeps.\n`;
    async function linkedProject(options: { targetAtStart: boolean }) {
      const root = await copyProject();
      const target = join(root, "vendor", "notes");
      const saved = join(root, ".saved-notes");
      await mkdir(saved, { recursive: true });
      await writeFile(join(saved, "SKILL.md"), skillText("as vendored"));
      await mkdir(join(root, "vendor"));
      if (options.targetAtStart) await cp(saved, target, { recursive: true });
      await symlink(join("..", "vendor", "notes"), join(root, "skills", "vendor-notes"));
      const handle = await watch({ root, onEvent: () => undefined });
      open.push(handle);
      const catalog = () => readFile(join(root, "dist", "catalog.xml"), "utf8");
      const finish = async () => {
        await handle.close();
        const fresh = await build({ root, outDir: "fresh" });
        expect(fresh.ok).toBe(true);
        expect(await readTree(join(root, "dist"))).toEqual(await readTree(join(root, "fresh")));
      };
      return { target, saved, catalog, finish };
    }

    it("moves away and back, then sees an edit made there", async () => {
      const project = await linkedProject({ targetAtStart: true });
      expect(await project.catalog()).toContain("(as vendored)");
      await rename(project.target, `${project.target}-away`);
      await waitFor("dist/ without the skill", async () => !(await project.catalog()).includes("(as vendored)"));
      await rename(`${project.target}-away`, project.target);
      await waitFor("dist/ with the skill again", async () => (await project.catalog()).includes("(as vendored)"));
      await writeFile(join(project.target, "SKILL.md"), skillText("edited after it came back"));
      await waitFor("the edit in dist/", async () => (await project.catalog()).includes("(edited after it came back)"));
      await project.finish();
    });

    it("appears only after watch started, then sees an edit made there", async () => {
      const project = await linkedProject({ targetAtStart: false });
      expect(await project.catalog()).not.toContain("vendor-notes");
      await cp(project.saved, project.target, { recursive: true });
      await waitFor("dist/ with the skill", async () => (await project.catalog()).includes("(as vendored)"));
      await writeFile(join(project.target, "SKILL.md"), skillText("edited after it appeared"));
      await waitFor("the edit in dist/", async () => (await project.catalog()).includes("(edited after it appeared)"));
      await project.finish();
    });

    it("is deleted and written again, then sees an edit made there", async () => {
      const project = await linkedProject({ targetAtStart: true });
      await rm(project.target, { recursive: true });
      await mkdir(project.target);
      await writeFile(join(project.target, "SKILL.md"), skillText("written again"));
      await waitFor("the rewritten folder in dist/", async () => (await project.catalog()).includes("(written again)"));
      await writeFile(join(project.target, "SKILL.md"), skillText("edited after it was written again"));
      await waitFor("the edit in dist/", async () => (await project.catalog()).includes("(edited after it was written again)"));
      await project.finish();
    });
  });

  it("reports an error event when skills/ vanishes, and recovers when it comes back", async () => {
    const session = await startSession();
    const skills = join(session.root, "skills");
    await rm(skills, { recursive: true });
    await waitFor("the error event", () => session.events.some((event) => event.type === "error"));
    expect(await distProblems(session.dist)).toEqual([]);

    await cp(join(repoRoot, "skills"), skills, { recursive: true });
    await waitFor("a good rebuild", () => session.events.at(-1)?.type === "rebuild" && session.rebuilds().at(-1)?.ok === true);
    await session.handle.close();
    expect(await distProblems(session.dist)).toEqual([]);
  });

  it("rejects a root without skills/ instead of watching nothing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "gamma watch empty "));
    try {
      await expect(watch({ root: empty, onEvent: () => undefined })).rejects.toBeInstanceOf(ProjectRootError);
      await expect(watch({ root: join(empty, "missing"), onEvent: () => undefined })).rejects.toBeInstanceOf(ProjectRootError);
    } finally {
      await rm(empty, { recursive: true });
    }
  });

  // How a burst is batched into builds is the queue's contract, tested without timing in queue.test.ts;
  // here real file events must end in a clean build's bytes, however the machine's load spreads them.
  // The saves are in place (truncate, then write): whichever of them a build reads half-written, the
  // assertions below hold, so this is where in-place saves are covered.
  it("ends a burst of 50 saves in a clean build's bytes", async () => {
    const session = await startSession();
    const skill = session.skillPath("gml-cli");
    const original = await readFile(skill, "utf8");
    for (let i = 0; i < 50; i++) {
      await writeFile(skill, withDescription(original, `Use BEFORE running any gml command (burst ${i}).`));
      await pause(4);
    }
    // Artifacts are replaced atomically: reading one while a build runs never fails.
    await waitFor("the last save in dist/", async () => (await readFile(join(session.dist, "catalog.xml"), "utf8")).includes("(burst 49)"));
    await session.handle.close();
    expect(session.rebuilds().length).toBeGreaterThan(0);
    for (const rebuild of session.rebuilds()) expect(rebuild.changedPaths).toEqual(["skills/gml-cli/SKILL.md"]);

    const clean = await copyProject(session.root);
    const result = await build({ root: clean });
    expect(result.ok).toBe(true);
    expect(await readTree(session.dist)).toEqual(await readTree(join(clean, "dist")));
  });
});
