import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, normalize, relative, resolve, sep } from "node:path";
import { describeMarker, findProject, namedProjectsBelow } from "../project-root.js";
import { folderProblem } from "../protocol/path-problem.js";

/** The text after `--root` in each command's help: what it defaults to. */
export const ROOT_DEFAULT = "default: the nearest folder from the working folder up with gamma-prompt.config.json or skills/";

/**
 * The project root a command works on: `--root` as given (an empty one, or
 * one that is missing, a file or a folder this user may not enter, is a
 * usage error that says which), else the project
 * found from the working folder up (see pipeline/discover/project-root.ts),
 * or from the folder a package manager was started in (INIT_CWD) up to it,
 * named on stderr when it is not the working folder itself. Without one:
 * the working folder when the command can work without sources (`optional`),
 * else a one-line usage error, which names the projects below the working
 * folder (a monorepo's packages) when there are any. A command that reads
 * only a build (`outDir`: its output folder as given) works without a
 * project only on an output folder named elsewhere: with the default
 * `dist`, there is no build to read (one would have been found), and the
 * error is the same as every other command's.
 */
export async function commandRoot(command: string, given: string | undefined, options: { build?: boolean; optional?: boolean; outDir?: string } = {}): Promise<{ root: string; found: boolean } | { error: string }> {
  // An empty --root (`--root "$AGENT_DIR"` with the variable unset) names no folder: said as a usage error, never read as the working folder.
  if (given === "") return { error: `gamma-prompt ${command}: --root names no folder (an empty name); pass --root with the project's folder, or leave it out to use the project found from the working folder up` };
  if (given !== undefined) {
    // Said as it is, in every command: a root that is missing, a file or closed to this user is never "no build" or "no skills/".
    const problem = folderProblem(given);
    return problem === undefined ? { root: given, found: true } : { error: `gamma-prompt ${command}: project root "${given}" ${problem}; pass --root with the project's folder` };
  }
  const cwd = process.cwd();
  const lookFor = options.build === true ? { build: true } : {};
  const found = findProject(cwd, lookFor) ?? findFromStartingFolder(cwd, lookFor);
  if (found === undefined) {
    // An output folder named elsewhere that holds something is read without a project; one that does not exist
    // is no build either, and the projects below are the better advice.
    const defaultOut = options.outDir !== undefined && normalize(options.outDir).replace(/[\\/]+$/, "") === "dist";
    const outMissing = options.outDir !== undefined && !existsSync(resolve(cwd, options.outDir));
    if (options.optional === true && !defaultOut && !outMissing) return { root: ".", found: false };
    const named = namedProjectsBelow(cwd);
    const hint = named === undefined ? "" : `; projects below it: ${named}`;
    return { error: `gamma-prompt ${command}: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/)${hint}; pass --root with the project's folder` };
  }
  const shown = relative(cwd, found.root).split("\\").join("/") || ".";
  if (shown !== ".") process.stderr.write(`gamma-prompt ${command}: using the project in ${shown}/ (${describeMarker(found.marker)})\n`);
  return { root: shown, found: true };
}

/**
 * `pnpm exec gamma-prompt` and `yarn gamma-prompt` run the bin in the
 * package's root, not where they were typed; npm, pnpm and Yarn all keep that
 * folder in INIT_CWD. When the working folder holds no project, one found
 * from there up (so at or below the working folder) is the project meant.
 */
function findFromStartingFolder(cwd: string, lookFor: Parameters<typeof findProject>[1]): ReturnType<typeof findProject> {
  const started = process.env["INIT_CWD"];
  if (started === undefined || started === "") return undefined;
  const inside = relative(cwd, resolve(started));
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return undefined;
  return findProject(resolve(started), lookFor);
}

/**
 * A file named on the command line (`--profile traffic.json`): relative to the working folder, as a shell
 * completes it; a name found only under the project root is taken from there, as before the root was found
 * by walking up.
 */
export function inputFile(root: string, file: string): string {
  const fromHere = resolve(file);
  return existsSync(fromHere) || !existsSync(resolve(root, file)) ? fromHere : resolve(root, file);
}

/**
 * The project and the root-relative paths of files or folders named on the command line (`lint
 * skills/x/SKILL.md`, as a pre-commit hook passes its staged files). With `--root` the paths must lie
 * inside it; without, the project is the nearest one at or above the paths (a folder named that is a
 * project is its own root: `lint vendor/collection`), and all of them must be in the same one. A path
 * that does not exist is a usage error, never a silent pass.
 */
export async function namedPathsRoot(command: string, paths: readonly string[], given: string | undefined): Promise<{ root: string; paths: string[] } | { error: string }> {
  const cwd = process.cwd();
  for (const path of paths) {
    if (path === "") return { error: `gamma-prompt ${command}: a path names nothing (an empty name); name files or folders of the project, or none to check it whole` };
    if (!existsSync(path)) return { error: `gamma-prompt ${command}: "${path}" does not exist; name files or folders of the project, or none to check it whole` };
  }
  let root: string;
  let marker = "";
  if (given !== undefined) {
    const located = await commandRoot(command, given);
    if ("error" in located) return located;
    root = resolve(located.root);
  } else {
    const roots = new Map<string, string>();
    for (const path of paths) {
      const folder = statSync(path).isDirectory() ? resolve(path) : dirname(resolve(path));
      const found = findProject(folder);
      if (found === undefined) {
        // `lint .` at a monorepo's top: the projects below are where to look, as for a command run there without paths.
        const named = statSync(path).isDirectory() ? namedProjectsBelow(folder) : undefined;
        const hint = named === undefined ? "" : `; projects below it: ${named}`;
        return { error: `gamma-prompt ${command}: "${path}" is in no project (no folder at or above it has gamma-prompt.config.json or skills/)${hint}; pass --root with the project's folder, or name files in it` };
      }
      roots.set(found.root, describeMarker(found.marker));
    }
    if (roots.size > 1) {
      const shown = [...roots.keys()].map((folder) => `${relative(cwd, folder).split(sep).join("/") || "."}/`).join(", ");
      return { error: `gamma-prompt ${command}: the paths are in ${roots.size} projects (${shown}); run it once per project` };
    }
    [[root, marker]] = [...roots] as [[string, string]];
  }
  const inside: string[] = [];
  for (const path of paths) {
    const from = relative(root, resolve(path));
    if (from === ".." || from.startsWith(`..${sep}`) || isAbsolute(from)) {
      return { error: `gamma-prompt ${command}: "${path}" is outside the project root ${relative(cwd, root).split(sep).join("/") || "."}/; name files or folders inside it` };
    }
    inside.push(from === "" ? "." : from.split(sep).join("/"));
  }
  const shown = relative(cwd, root).split(sep).join("/") || ".";
  if (given === undefined && shown !== "." && !inside.includes(".")) {
    process.stderr.write(`gamma-prompt ${command}: using the project in ${shown}/ (${marker})\n`);
  }
  return { root: shown, paths: inside };
}
