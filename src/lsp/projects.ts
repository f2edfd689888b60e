import { basename, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ProjectAnalysis } from "../analyze.js";
import { describeMarker, findProject, namedProjectsBelow } from "../project-root.js";
import { isInside } from "../protocol/within.js";
import { ProjectWorkspace, type OpenDocuments, type WorkspaceOptions } from "./workspace.js";

/**
 * The projects the server analyses. Each workspace folder's project is found
 * the way the CLI finds one from the working folder: the folder itself, or
 * the nearest folder above it with gamma-prompt.config.json or the sources.
 * A file opened elsewhere (a monorepo's package, when the editor opened the
 * monorepo's root) belongs to the project found the same way from its own
 * folder; a file inside a project already open belongs to the innermost
 * such project, so a config whose `skills` globs reach into subfolders keeps
 * its files. Each project is analysed on its own, with the buffers it holds.
 */

export type ProjectOptions = Omit<WorkspaceOptions, "root">;

/** What the workspace folders hold: the folders in which, and above which, no project was found. */
export interface FolderSearch {
  withoutProject: string[];
}

export class WorkspaceProjects {
  private readonly byRoot = new Map<string, ProjectWorkspace>();
  private readonly listeners: Array<(analysis: ProjectAnalysis) => void> = [];
  private started = false;

  constructor(
    private readonly options: ProjectOptions,
    private readonly documents: OpenDocuments,
  ) {}

  /** Opens the project of each folder (found from it up); the folders without one are returned. */
  addFolders(folders: readonly string[]): FolderSearch {
    const withoutProject: string[] = [];
    for (const folder of folders) {
      const found = findProject(folder);
      if (found === undefined) {
        withoutProject.push(folder);
        continue;
      }
      if (found.root !== resolve(folder)) this.options.log(`gamma-prompt: using the project in ${found.root} (${describeMarker(found.marker)}) for the workspace folder ${folder}`);
      this.projectAt(found.root);
    }
    return { withoutProject };
  }

  /**
   * Closes the projects no remaining folder holds and no open buffer belongs to (a workspace folder the
   * editor removed): their findings are withdrawn.
   */
  retain(folders: readonly string[]): void {
    const kept = new Set(folders.flatMap((folder) => findProject(folder)?.root ?? []));
    for (const document of this.documents.all()) {
      const root = this.ownerRoot(document.uri);
      if (root !== undefined) kept.add(root);
    }
    for (const [root, project] of [...this.byRoot]) {
      if (kept.has(root)) continue;
      this.byRoot.delete(root);
      project.close();
    }
  }

  /** The project that holds the file at `uri`, opened on first use (`open`); undefined for a file in no project. */
  forUri(uri: string, open = true): ProjectWorkspace | undefined {
    const root = this.ownerRoot(uri);
    if (root === undefined) return undefined;
    return open ? this.projectAt(root) : this.byRoot.get(root);
  }

  /** The open project whose root is the folder at `uri` (a file URI). */
  atRoot(uri: string): ProjectWorkspace | undefined {
    const root = filePath(uri);
    return root === undefined ? undefined : this.byRoot.get(resolve(root));
  }

  /** The root's file URI of a project other than the first: what the compiled prompt views name it by. */
  nameOf(project: ProjectWorkspace): string | undefined {
    return project === this.primary() ? undefined : pathToFileURL(project.paths.root).href;
  }

  /** The projects, the workspace folders' first. */
  all(): ProjectWorkspace[] {
    return [...this.byRoot.values()];
  }

  /** The first workspace folder's project (else the first opened): the one a compiled prompt view shows unless it names another. */
  primary(): ProjectWorkspace | undefined {
    return this.byRoot.values().next().value;
  }

  /** Starts the first analysis of every project, and of each project opened later as it opens. */
  start(): void {
    this.started = true;
    for (const project of this.byRoot.values()) project.start();
  }

  /** Called after every analysis of any project. */
  onAnalysed(listener: (analysis: ProjectAnalysis) => void): void {
    this.listeners.push(listener);
    for (const project of this.byRoot.values()) project.onAnalysed(listener);
  }

  private ownerRoot(uri: string): string | undefined {
    const file = filePath(uri);
    if (file === undefined) return undefined;
    let inner: string | undefined;
    for (const root of this.byRoot.keys()) {
      if (isInside(root, file) && (inner === undefined || root.length > inner.length)) inner = root;
    }
    return inner ?? findProject(dirname(file))?.root;
  }

  private projectAt(root: string): ProjectWorkspace {
    let project = this.byRoot.get(root);
    if (project !== undefined) return project;
    const documents: OpenDocuments = {
      all: () => this.documents.all().filter((document) => this.ownerRoot(document.uri) === root),
      get: (uri) => this.documents.get(uri),
    };
    project = new ProjectWorkspace({ ...this.options, root }, documents);
    this.byRoot.set(root, project);
    for (const listener of this.listeners) project.onAnalysed(listener);
    if (this.started) project.start();
    return project;
  }
}

/**
 * What the editor is told when no workspace folder holds a project: the
 * projects below each folder, as the CLI names them, else that there are none.
 */
export function noProjectMessage(folders: readonly string[]): string {
  const prefix = folders.length > 1;
  const below = folders.flatMap((folder) => {
    const named = namedProjectsBelow(folder);
    if (named === undefined) return [];
    return [prefix ? named.split(", ").map((name) => (name === "and more" ? name : `${basename(folder)}/${name}`)).join(", ") : named];
  });
  const where = folders.length === 1 ? `the workspace folder ${folders[0]}` : `the workspace folders (${folders.join(", ")})`;
  const none = `gamma-prompt: no project in ${where} or above it (a folder with gamma-prompt.config.json or skills/)`;
  if (below.length === 0) return `${none}, and none below it: nothing is analysed until a file in a project is opened`;
  return `${none}; projects below it: ${below.join(", ")}. A file opened in one is analysed in its project; open that folder to see all of its findings`;
}

function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

