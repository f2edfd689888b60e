import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, posix, relative, resolve, sep } from "node:path";
import { createProjectAnalyzer, type ProjectAnalyzer } from "../analyze.js";
import { ignoringEntry, layoutTakesSkillFolder, newSkillFolder, type SkillLayout } from "../pipeline/discover/skill-folders.js";
import { readLintConfig } from "../pipeline/validate/lint-config.js";
import { findProject, isProject, namedProjectsBelow } from "../project-root.js";
import { describeEntry, statIfPossible } from "../protocol/regular-file.js";
import { isWithin } from "../protocol/within.js";

/** Past this many characters an argument is quoted by its start only: an error must not carry a megabyte back to the agent. */
export const MAX_ECHOED_CHARACTERS = 100;

/** An argument as an error quotes it (in JSON quotes, or as it is): whole when short, else its start and its length. */
export function echoed(value: string, quoted = true): string {
  const shown = (text: string): string => (quoted ? JSON.stringify(text) : text);
  return value.length > MAX_ECHOED_CHARACTERS ? `${shown(value.slice(0, MAX_ECHOED_CHARACTERS))}… (${value.length} characters)` : shown(value);
}

/**
 * The one project an MCP server serves: its root, its output folder, a warm
 * analyzer for unsaved text and in-memory builds, and the guard every path
 * argument passes. A path is taken only inside the root (after following
 * links), and only when it names what the tool reads: a regular file or a
 * folder, never a FIFO, socket or device (reading one would block or never
 * end).
 */

/** Bad input to a tool: its message goes back to the agent as a tool error, and the server goes on. */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}

export interface ProjectPath {
  /** Root-relative, forward slashes ("" for the root itself). */
  rel: string;
  abs: string;
}

export class McpProject {
  readonly root: string;
  readonly outDir: string;
  private readonly realRoot: string;
  private analyzerInstance: ProjectAnalyzer | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(root: string, outDir = "dist") {
    this.root = resolve(root);
    this.outDir = resolve(this.root, outDir);
    this.realRoot = realpathOrSelf(this.root);
  }

  /**
   * Refuses a tool that reads the project when the root holds none (the
   * server started at a monorepo's root, or where no project is yet): the
   * answer names the project a path argument lies in, else the projects
   * below the root as the CLI names them, and the argument that picks one,
   * instead of advice that would turn the root into a project.
   */
  requireProject(tool: string, path?: string): void {
    if (isProject(this.root)) return;
    const none = `${tool}: ${this.root} holds no project (a folder with gamma-prompt.config.json or skills/)`;
    const owner = path === undefined ? undefined : this.projectHolding(path);
    if (owner !== undefined && path !== undefined) throw new ToolInputError(`${none}; the path ${echoed(path)} lies in the project ${owner}: start the server there, or add "--root", "${owner}" to its arguments`);
    const named = namedProjectsBelow(this.root);
    if (named !== undefined) {
      const first = named.split(", ")[0] ?? named;
      throw new ToolInputError(`${none}; projects below it: ${named}; start the server in one, or add "--root" and its folder to the server's arguments (such as "--root", "${first}")`);
    }
    // `--root` given the project's skills/ (or another folder inside it): the project is the folder above.
    const above = dirname(this.root);
    if (above !== this.root && isProject(above)) throw new ToolInputError(`${none}; the folder above it, ${above}, is one: add "--root", "${above}" to the server's arguments instead`);
    throw new ToolInputError(`${none}, and none below it; create skills/ (one folder per skill, skills/<name>/SKILL.md) to start one, or add "--root" and a project's folder to the server's arguments`);
  }

  /** The root-relative folder of the project below the root that holds `path` (found from it up), if any. */
  private projectHolding(path: string): string | undefined {
    if (path.includes("\u0000")) return undefined;
    const abs = resolve(this.root, path);
    if (!isWithin(this.root, abs)) return undefined;
    const found = findProject(statIfPossible(abs)?.isDirectory() === true ? abs : dirname(abs));
    if (found === undefined || found.root === this.root || !isWithin(this.root, found.root)) return undefined;
    return relative(this.root, found.root).split(sep).join("/");
  }

  /** The analyzer keeps its parsed files between calls: a second lint of unchanged text reads nothing again. */
  get analyzer(): ProjectAnalyzer {
    this.analyzerInstance ??= createProjectAnalyzer({ root: this.root, outDir: this.outDir });
    return this.analyzerInstance;
  }

  /**
   * Runs `task` after every earlier one: analyses must not overlap, and a fix
   * must not race a lint. A task whose call was cancelled while it waited
   * never starts (it rejects with the signal's reason).
   */
  serial<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const run = async (): Promise<T> => {
      // The task before this one never waited for I/O: a turn of the event loop reads what the client sent
      // meanwhile (a cancel, its closed output) before this one starts.
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      return task();
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * A path argument as a place inside the root; `exists: false` accepts a path
   * with nothing there yet (unsaved text). An absolute path may spell the root
   * either way (through a link to it, or as the folder the link leads to).
   * Every link on the way is followed, up to the nearest part that exists: a
   * path that leads out of the root through one is refused, whether or not
   * its last part exists yet.
   */
  place(path: string, expect: { what: string; exists: boolean }): ProjectPath {
    if (path.includes("\u0000")) throw new ToolInputError(`Unexpected NUL character in path ${echoed(path.replace(/\u0000/g, "\\0"))}, expected ${expect.what} inside the project root ${this.root}`);
    const given = resolve(this.root, path);
    const abs = isWithin(this.root, given) ? given : this.respelled(given);
    if (abs === undefined) throw new ToolInputError(`Unexpected path ${echoed(path)}: outside the project root ${this.root}; expected ${expect.what} inside it`);
    if (statIfPossible(abs) === undefined && expect.exists) throw new ToolInputError(`Unexpected path ${echoed(path)}: nothing there under the project root ${this.root}; expected ${expect.what}`);
    if (!isWithin(this.realRoot, realOfNearest(abs))) {
      throw new ToolInputError(`Unexpected path ${echoed(path)}: it leads outside the project root ${this.root} (through a symbolic link); expected ${expect.what} inside it`);
    }
    return { rel: relative(this.root, abs).split(sep).join("/"), abs };
  }

  /** `abs` (outside the root as written) under the root's own spelling, when one of its folders is the root by another spelling. */
  private respelled(abs: string): string | undefined {
    for (let folder = abs, rest = ""; ; rest = join(basename(folder), rest), folder = dirname(folder)) {
      if (statIfPossible(folder) !== undefined && realpathOrSelf(folder) === this.realRoot) return join(this.root, rest);
      if (dirname(folder) === folder) return undefined;
    }
  }

  /** The skill folders the project's config names (its `skills` and `ignore` globs), as lint and build read them. */
  layout(): SkillLayout {
    const outRel = relative(this.root, this.outDir).split(sep).join("/");
    return { ...readLintConfig(this.root).config.layout, outDir: outRel || "." };
  }

  /**
   * The SKILL.md at `place` as lint and build see it: under its own path, or,
   * reached through a symbolic link inside the root, under its real path. A
   * file in no skill folder the config names is refused: lint and build never
   * read it, so "no findings" would be a false all-clear.
   */
  skillFile(place: ProjectPath, options: { unsaved: boolean }): ProjectPath {
    const layout = this.layout();
    const real = this.realPlace(place);
    for (const candidate of real.rel === place.rel ? [place] : [place, real]) {
      if (basename(candidate.rel) === "SKILL.md" && layoutTakesSkillFolder(this.root, layout, posix.dirname(candidate.rel), options)) return candidate;
    }
    const through = real.rel === place.rel ? "" : ` (through a symbolic link: ${echoed(real.rel, false)})`;
    const ignoredBy = [real, place].map((candidate) => (basename(candidate.rel) === "SKILL.md" ? ignoringEntry(layout, posix.dirname(candidate.rel)) : undefined)).find((entry) => entry !== undefined);
    if (ignoredBy !== undefined) {
      throw new ToolInputError(
        `Unexpected path ${echoed(place.rel)}${through}: its skill folder is left out by the entry ${echoed(ignoredBy)} of the project's \`ignore\` in gamma-prompt.config.json, so lint and build never read it; expected a SKILL.md in a folder it does not leave out, or that entry removed`,
      );
    }
    throw new ToolInputError(
      `Unexpected path ${echoed(place.rel)}${through}: not a SKILL.md in a skill folder the project's \`skills\` globs name (${layout.skills.join(", ")}), so lint and build never read it; expected a SKILL.md in such a folder, or a glob for it in gamma-prompt.config.json`,
    );
  }

  /** Where a new skill named `name` goes: the one folder the `skills` globs allow, or none when they leave the choice open. */
  newSkillFile(name: string): string | undefined {
    const folder = newSkillFolder(this.layout(), name);
    return folder === undefined ? undefined : `${folder}/SKILL.md`;
  }

  /** `place` with every link on its way followed (as far as the path exists), relative to the real root. */
  realPlace(place: ProjectPath): ProjectPath {
    const abs = realOfNearest(place.abs);
    if (!isWithin(this.realRoot, abs)) return place;
    return { rel: relative(this.realRoot, abs).split(sep).join("/"), abs: join(this.root, relative(this.realRoot, abs)) };
  }

  /** What a path holds, refusing anything but the kinds a tool reads. */
  kindOf(place: ProjectPath, allowed: ReadonlyArray<"file" | "folder">, what: string): "file" | "folder" {
    const stats = statIfPossible(place.abs);
    if (stats?.isFile() && allowed.includes("file")) return "file";
    if (stats?.isDirectory() && allowed.includes("folder")) return "folder";
    throw new ToolInputError(`Unexpected ${stats ? describeEntry(stats) : "nothing"} at ${JSON.stringify(place.rel || ".")}, expected ${what}`);
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `path` with every link on its way followed, as far as it exists; the parts that do not exist yet are kept as written. */
function realOfNearest(path: string, links = 0): string {
  let existing = path;
  const rest: string[] = [];
  while (statIfPossible(existing, { noFollow: true }) === undefined && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  // A link to nothing (yet): where it leads is where a file written through it would land.
  // (A loop of links leads nowhere: past the system's own limit of 40 it is taken as written.)
  if (links < 40 && statIfPossible(existing) === undefined && statIfPossible(existing, { noFollow: true })?.isSymbolicLink() === true) {
    return join(realOfNearest(resolve(dirname(existing), readlinkSync(existing)), links + 1), ...rest);
  }
  return join(realpathOrSelf(existing), ...rest);
}
