/**
 * The pages a user follows (README.md, docs/guide/*.md and docs/reference/library.md) run as written
 * against the package a user installs: `npm pack` once per test run,
 * installed into a temporary ESM project (`"type": "module"`) with the Pi
 * packages, outside the repository. Each page starts in an empty folder of
 * that project; its transcripts run command by command (output compared,
 * `...` leaving lines out), its shell blocks run, its code samples run with
 * node, what they print is compared with the block marked as their output,
 * and a step only a checkout can run must say so on the page. The convention:
 * docs/reference/doc-samples.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PI_REQUIREMENT } from "../../src/protocol/pi-requirement.js";
import { checkoutMentions, pageSamples, samplePages, type DocSample } from "../helpers/doc-samples.js";
import { installPackedPackage, linkInstalled } from "../helpers/packed-package.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { startPostgres, type TemporaryPostgres } from "../../scripts/postgres-server.mjs";

let postgres: TemporaryPostgres | undefined;
afterAll(async () => {
  await postgres?.stop();
  await removeTempDirs();
}, 60_000);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const pages = samplePages();

let project = "";
let env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  project = (await installPackedPackage({ pi: true, name: "gamma doc samples" })).project;
  // `npx X` runs the project's own installed X, never a download (the page means the package just installed).
  const shims = join(project, ".sample-bin");
  mkdirSync(shims);
  const bin = join(project, "node_modules", ".bin");
  writeFileSync(join(shims, "npx"), `#!/bin/sh\nif [ -x "${bin}/$1" ]; then name="$1"; shift; exec "${bin}/$name" "$@"; fi\necho "npx: $1 is not installed in the sample project" >&2\nexit 127\n`, { mode: 0o755 });
  env = { ...process.env, PATH: `${shims}:${bin}:${process.env["PATH"] ?? ""}`, NO_COLOR: "1", FORCE_COLOR: "0" };
  // A sample that needs a provider's key says so (skip); none may reach a real provider by accident.
  for (const name of Object.keys(env)) if (/_API_KEY$|_OAUTH_TOKEN$/.test(name)) delete env[name];
  // A page whose samples name `$DATABASE_URL` gets what its reader has: node-postgres installed (`npm install pg`) and a real PostgreSQL server.
  if (pages.some((page) => pageSamples(page).some((sample) => !isHandedOff(sample) && sample.text.includes("DATABASE_URL")))) {
    linkInstalled(project, ["pg"]);
    postgres = await startPostgres();
    env["DATABASE_URL"] = postgres.url;
  } else delete env["DATABASE_URL"];
}, 420_000);

describe("the pages' samples: how each is marked", () => {
  it("every block is a transcript, shell commands, a code sample, an output, a file or data, marked as docs/reference/doc-samples.md says", () => {
    const problems = pages.flatMap((page) => pageSamples(page).flatMap((sample) => (sample.problem === undefined ? [] : [`${page}:${sample.line}: ${sample.problem}`])));
    expect(problems).toEqual([]);
  });

  it("names a step only a checkout of the repository can run (npm run …, the repository's scripts/ and examples/) only in a paragraph that says so", () => {
    const unmarked = pages.flatMap((page) => checkoutMentions(page).filter(({ paragraph }) => !/\bcheckout\b/i.test(paragraph)).map(({ mention }) => `${page}: ${mention}`));
    expect(unmarked).toEqual([]);
  });

  it("installs what the package needs: the install command names gamma-prompt and the Pi packages at the versions the runtime requires", () => {
    const installs = pages.flatMap((page) => pageSamples(page).filter((sample) => sample.directives.some((directive) => directive.name === "install")));
    expect(installs.length).toBeGreaterThan(0);
    // What beforeAll does instead: the packed tarball for gamma-prompt, the repository's pinned Pi for the rest.
    for (const sample of installs) expect(sample.text, `${sample.page}:${sample.line}`).toBe(`npm install gamma-prompt ${PI_REQUIREMENT.packages.join(" ")}\n`);
  });

  it("hands a block to another test only when that test exists and reads the page", () => {
    const missing = pages.flatMap((page) =>
      pageSamples(page).flatMap((sample) =>
        sample.directives.flatMap((directive) => {
          if (directive.name !== "elsewhere") return [];
          const test = join(repoRoot, directive.test);
          return existsSync(test) && readFileSync(test, "utf8").includes(page) ? [] : [`${page}:${sample.line}: ${directive.test} does not read ${page}`];
        }),
      ),
    );
    expect(missing).toEqual([]);
  });
});

describe("the pages' samples, run against the installed package", () => {
  for (const page of pages) {
    it(`${page} runs as written`, async () => {
      const folder = join(project, "pages", page.replace(/[^\w]+/g, "-"));
      mkdirSync(folder, { recursive: true });
      const state: PageState = { cwd: folder, lastOutput: undefined, ran: 0 };
      for (const sample of pageSamples(page)) runSample(sample, state);
      // A page with nothing to run is fine; one whose blocks are all skipped is not what a reader expects.
      expect(state.ran + pageSamples(page).filter((sample) => sample.kind === "data" || isHandedOff(sample)).length).toBeGreaterThan(0);
    }, 300_000);
  }
});

interface PageState {
  cwd: string;
  /** What the last code sample or command printed, for an output block after it. */
  lastOutput: { text: string; from: string } | undefined;
  ran: number;
}

function isHandedOff(sample: DocSample): boolean {
  return sample.directives.some((directive) => directive.name === "checkout" || directive.name === "skip" || directive.name === "elsewhere" || directive.name === "install");
}

function runSample(sample: DocSample, state: PageState): void {
  const where = `${sample.page}:${sample.line}`;
  if (isHandedOff(sample)) return;
  for (const directive of sample.directives) {
    if (directive.name === "before") expect(shell(directive.command, state.cwd).status, `${where}: before ${directive.command}`).toBe(0);
  }
  const exitCode = sample.directives.find((directive) => directive.name === "exit");
  const expectedExit = exitCode?.name === "exit" ? exitCode.code : 0;
  switch (sample.kind) {
    case "data":
      return;
    case "file": {
      const file = sample.directives.find((directive) => directive.name === "file");
      const target = resolve(state.cwd, file?.name === "file" ? file.path : "");
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, sample.text);
      return;
    }
    case "output": {
      expect(state.lastOutput, `${where}: an output block needs a code sample or a command before it`).toBeDefined();
      expectOutput(sample.text, state.lastOutput?.text ?? "", `${where}: the output of ${state.lastOutput?.from}`);
      return;
    }
    case "shell": {
      const commands = sample.text.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
      for (const [index, command] of commands.entries()) {
        if (changeFolder(command, state, where)) continue;
        const run = shell(command, state.cwd);
        expect(run.status, `${where}: ${command}\n${run.stdout}${run.stderr}`).toBe(index === commands.length - 1 ? expectedExit : 0);
        state.lastOutput = { text: run.stdout, from: command };
      }
      state.ran += 1;
      return;
    }
    case "transcript": {
      const steps = transcriptSteps(sample.text);
      for (const [index, step] of steps.entries()) {
        if (changeFolder(step.command, state, where)) continue;
        const run = shell(step.command, state.cwd);
        expect(run.status, `${where}: $ ${step.command}\n${run.stdout}${run.stderr}`).toBe(index === steps.length - 1 ? expectedExit : 0);
        expectOutput(step.output, run.stdout, `${where}: $ ${step.command}`);
        state.lastOutput = { text: run.stdout, from: step.command };
      }
      state.ran += 1;
      return;
    }
    case "code": {
      const file = join(state.cwd, `sample-${sample.line}.${sample.language === "ts" || sample.language === "typescript" ? "ts" : "mjs"}`);
      writeFileSync(file, sample.text);
      const run = spawnSync(process.execPath, [file], { cwd: state.cwd, env, encoding: "utf8", timeout: 120_000 });
      expect(run.status, `${where}: node ${file}\n${run.stdout}${run.stderr}`).toBe(expectedExit);
      state.lastOutput = { text: run.stdout, from: `the sample at ${where}` };
      state.ran += 1;
      return;
    }
  }
}

/** `cd DIR` as a shell would do it for the page's next commands; true when the command was one. */
function changeFolder(command: string, state: PageState, where: string): boolean {
  const cd = /^cd\s+("[^"]+"|\S+)\s*$/.exec(command.trim());
  if (!cd) return false;
  const target = resolve(state.cwd, (cd[1] ?? "").replace(/^"|"$/g, ""));
  expect(existsSync(target) && statSync(target).isDirectory(), `${where}: cd ${cd[1]}: no such folder`).toBe(true);
  state.cwd = target;
  return true;
}

function shell(command: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("bash", ["-c", command], { cwd, env, encoding: "utf8", timeout: 180_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A transcript's commands (`$ ` lines) and the lines each prints. */
function transcriptSteps(text: string): Array<{ command: string; output: string }> {
  const steps: Array<{ command: string; output: string }> = [];
  for (const line of text.split("\n").slice(0, -1)) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: "" });
    else if (steps.length > 0) (steps.at(-1) as { output: string }).output += `${line}\n`;
  }
  return steps;
}

/** Exactly the same text, or, when the page leaves lines out with `...` lines, the same text around them. */
function expectOutput(shown: string, printed: string, what: string): void {
  if (!/^ *\.\.\.$/m.test(shown)) {
    expect(printed, what).toBe(shown);
    return;
  }
  const pieces = shown.split(/^ *\.\.\.\n/m);
  let at = 0;
  for (const [index, piece] of pieces.entries()) {
    const found = printed.indexOf(piece, at);
    expect(found, `${what}: the lines after the ${index}th "..." are not printed in order:\n${piece}\n--- printed:\n${printed}`).toBeGreaterThanOrEqual(at);
    if (index === 0) expect(found, `${what}: the shown lines start where the output starts`).toBe(0);
    at = found + piece.length;
  }
  if (pieces.at(-1) !== "") expect(at, `${what}: the shown lines end where the output ends`).toBe(printed.length);
}
