/**
 * A `lint --fix` killed between writing a fixed file's temporary copy and
 * renaming it over the file leaves `.SKILL.md.<pid>.<time>.tmp` beside it.
 * Such a leftover is never a source: lint does not report it as an
 * unreferenced file, build does not copy it into dist/. The next
 * `lint --fix` removes the leftovers of processes that are gone (and any
 * older than an hour, since pids are reused), never one a live process may
 * still rename.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { lint } from "../../src/lint.js";
import { removeStaleTempFiles } from "../../src/pipeline/fix/replace-file.js";
import { copyProject } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const project = fileURLToPath(new URL("../fixtures/fix/insert-type/project", import.meta.url));

afterAll(removeTempDirs);

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid;
}

/** A leftover of process `pid` beside `file`, holding a whole copy of it, `ageMs` old. */
function leftover(file: string, pid: number, ageMs = 0): string {
  const name = `.${file.split("/").at(-1) as string}.${pid}.mxbggwe3.tmp`;
  const path = join(file, "..", name);
  writeFileSync(path, readFileSync(file));
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
  return name;
}

describe("a temporary file a killed lint --fix left beside SKILL.md", () => {
  it("is no source: lint reports nothing about it, build copies nothing of it into dist/", async () => {
    const root = await copyProject("basic");
    const folder = join(root, "skills/import-file");
    const name = leftover(join(folder, "SKILL.md"), deadPid());
    const linted = await lint({ root });
    expect(linted.diagnostics.filter((d) => JSON.stringify(d).includes(".tmp"))).toEqual([]);
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const dist = readdirSync(join(root, "dist"), { recursive: true }) as string[];
    expect(dist.filter((path) => path.includes(".tmp"))).toEqual([]);
    expect(readdirSync(folder)).toContain(name);
  });

  it("is removed by the next lint --fix when its process is gone; one of a live process stays until it is an hour old", async () => {
    const root = await tempDir("fix leftovers");
    cpSync(project, root, { recursive: true });
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await new Promise((resolve) => live.once("spawn", resolve));
    try {
      const installer = join(root, "skills/installer");
      const glossary = join(root, "skills/glossary");
      const dead = leftover(join(installer, "SKILL.md"), deadPid());
      const running = leftover(join(glossary, "SKILL.md"), live.pid as number);
      const old = leftover(join(installer, "SKILL.md"), live.pid as number, 2 * 60 * 60 * 1000);
      // A name of the same shape beside no file of that name is not ours to remove.
      const notes = `.notes.md.${deadPid()}.abc.tmp`;
      writeFileSync(join(installer, notes), "mine\n");
      const plain = await runCliInProcessFrom(root, "lint");
      expect(`${plain.stdout}${plain.stderr}`).not.toContain(".tmp");
      expect(readdirSync(installer)).toContain(dead);
      const fixed = await runCliInProcessFrom(root, "lint", "--fix");
      expect(`${fixed.stdout}${fixed.stderr}`).not.toContain(".tmp");
      expect(readdirSync(installer).filter((name) => name.endsWith(".tmp")).sort()).toEqual([notes]);
      expect(readdirSync(installer)).not.toContain(old);
      expect(readdirSync(glossary)).toContain(running);
    } finally {
      live.kill("SIGKILL");
    }
  });

  it("never removes this process's own temporary files", async () => {
    const root = await tempDir("fix leftovers own");
    writeFileSync(join(root, "SKILL.md"), "x\n");
    const mine = leftover(join(root, "SKILL.md"), process.pid, 2 * 60 * 60 * 1000);
    expect(removeStaleTempFiles(root)).toEqual([]);
    expect(readdirSync(root)).toContain(mine);
  });
});
