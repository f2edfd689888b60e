import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { createProjectAnalyzer, type ProjectAnalysis, type ProjectAnalyzer } from "../analyze.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { toLspDiagnostic } from "./diagnostics.js";
import { ProjectPaths } from "./locations.js";
import { fileStartsWith } from "../protocol/regular-file.js";
import { messageOf } from "../protocol/error-message.js";
import { detectProfile } from "../pipeline/validate/lint-config.js";

/**
 * The server's view of one project: the open buffers, the latest analysis
 * and what was published from it. Every analysis runs through one queue, and
 * every request first waits for the queue to take in the edits made before
 * it (a pending debounce is cut short), so an answer never lags behind an
 * edit the client already sent.
 */

export interface WorkspaceOptions {
  root: string;
  /**
   * Quiet period after an edit before the project is analysed again. 0 (the default): an edit made while
   * nothing runs is analysed at once, and the edits made during an analysis are taken together by the
   * next one, which starts as soon as it ends.
   */
  debounceMs: number;
  /** The client reports file changes on disk, so an analysis needs to look only at the paths named. */
  reportsFileChanges: () => boolean;
  publish(uri: string, diagnostics: LspDiagnostic[]): void;
  log(message: string): void;
}

/** The open documents, as the server's document manager holds them. */
export interface OpenDocuments {
  all(): TextDocument[];
  get(uri: string): TextDocument | undefined;
}

/**
 * The first analysis waits this long at least: editors open their buffers right after initializing, and
 * those are then part of it.
 */
const FIRST_ANALYSIS_DELAY_MS = 50;

export class ProjectWorkspace {
  readonly paths: ProjectPaths;
  private readonly analyzer: ProjectAnalyzer;
  private readonly changed = new Set<string>();
  /** The next analysis checks every file's stamp instead of reading only the paths named (start-up, a save without reports of disk changes). */
  private rescanNext = true;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** An analysis is in the queue and has not started: later edits join it. */
  private waiting = false;
  private latest: ProjectAnalysis | undefined;
  /** The buffers (path → version) the latest analysis read. */
  private analysedVersions = new Map<string, number>();
  /** The buffers (path → text) the latest analysis read. */
  private buffers: ReadonlyMap<string, string> = new Map();
  private readonly published = new Map<string, string>();
  private readonly listeners: Array<(analysis: ProjectAnalysis) => void> = [];
  /** The editor no longer shows the project: nothing is analysed or published any more. */
  private closed = false;
  /** Compiles the buffers as `build` does when lint's profile is not the build's (see compiled); its runs follow one another. */
  private buildAnalyzer: ProjectAnalyzer | undefined;
  private buildRuns: Promise<unknown> = Promise.resolve();
  /** Where the latest analysis's sources reached through a link really are (see changedOnDisk); worked out when first needed after it. */
  private links: LinkedSource[] | undefined;

  constructor(
    private readonly options: WorkspaceOptions,
    private readonly documents: OpenDocuments,
  ) {
    this.paths = new ProjectPaths(options.root);
    this.analyzer = createProjectAnalyzer({ root: options.root });
  }

  /** Something at `relPath` changed (a buffer edited, opened or closed, a file on disk): analyse again after the debounce. */
  touch(relPath: string): void {
    this.changed.add(relPath);
    this.schedule();
  }

  /**
   * The client reports a change on disk at `relPath`. An editor's watcher names a file by its own path: one in
   * a skill folder linked in from elsewhere (`vendor/shared/SKILL.md` for `skills/shared -> ../vendor/shared`), or
   * the target of a SKILL.md that is a link, is also a change to every source that reaches it through the link.
   */
  changedOnDisk(relPath: string): void {
    this.changed.add(relPath);
    for (const path of this.throughLinks(relPath)) this.changed.add(path);
    this.schedule();
  }

  /**
   * A buffer was saved. A client that reports changes on disk reports this one
   * too; without such reports, a save is when the server looks at the whole
   * disk again (edits made outside the editor included).
   */
  saved(relPath: string): void {
    if (!this.options.reportsFileChanges()) this.rescanNext = true;
    this.touch(relPath);
  }

  /** Files moved (a folder renamed in the editor): the next analysis checks every file's stamp. */
  rescan(): void {
    this.rescanNext = true;
    this.schedule();
  }

  /**
   * The first analysis, after one debounce: editors open their buffers right
   * after initializing, and those are then part of it (and of the skill
   * findings it publishes first) instead of waiting for it to finish.
   */
  start(): void {
    this.schedule(Math.max(this.options.debounceMs, FIRST_ANALYSIS_DELAY_MS));
  }

  /** The project left the workspace: its pending analysis is dropped and every finding it published withdrawn. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const clean = JSON.stringify([]);
    for (const [uri, key] of this.published) if (key !== clean) this.options.publish(uri, []);
    this.published.clear();
  }

  private schedule(delayMs = this.options.debounceMs): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    if (delayMs <= 0) {
      this.timer = undefined;
      this.enqueue();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.enqueue();
    }, delayMs);
  }

  /** The analysis of every edit sent so far; undefined when the project cannot be analysed. */
  async current(): Promise<ProjectAnalysis | undefined> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.enqueue();
    }
    await this.queue;
    return this.latest;
  }

  /**
   * The sources as `build` compiles them, for the compiled-prompt view: the
   * latest analysis when it compiled them, else a compile of the buffers it
   * read. An agent whose config gives lint the agentskills profile is still
   * built with the build's own rules; its lint analysis compiles nothing, and
   * the view would show the output folder's copy as if the sources had errors.
   */
  async compiled(): Promise<ProjectAnalysis | undefined> {
    const latest = await this.current();
    if (latest === undefined || latest.profile === "gamma" || detectProfile(this.options.root) !== "gamma") return latest;
    const analyzer = (this.buildAnalyzer ??= createProjectAnalyzer({ root: this.options.root }));
    const buffers = this.buffers;
    const run = this.buildRuns.then(() => analyzer.analyze({ buffers, build: true }));
    this.buildRuns = run.catch(() => undefined);
    return run;
  }

  /** The version of a buffer the latest analysis read (undefined: it read the disk). */
  analysedVersion(relPath: string): number | undefined {
    return this.analysedVersions.get(relPath);
  }

  /** The unsaved text (path → text) the latest analysis read. */
  analysedBuffers(): ReadonlyMap<string, string> {
    return this.buffers;
  }

  /** Called after every analysis (code lenses refresh from it). */
  onAnalysed(listener: (analysis: ProjectAnalysis) => void): void {
    this.listeners.push(listener);
  }

  /** The text of a project file as the server sees it: the open buffer, else undefined (the caller reads the disk). */
  bufferText(relPath: string): string | undefined {
    return this.openDocument(relPath)?.getText();
  }

  /**
   * The open buffer of a root-relative path, found by the path its URI names: editors spell URIs their own
   * way (VS Code encodes `(` as `%28`, Neovim writes `%c3%a9` in lower case), so a URI rebuilt from the path
   * may name the same file in other letters.
   */
  openDocument(relPath: string): TextDocument | undefined {
    for (const document of this.documents.all()) if (this.paths.pathOf(document.uri) === relPath) return document;
    return undefined;
  }

  /** The paths through links at which the latest analysis read (or looked for) what lies at `relPath`. */
  private throughLinks(relPath: string): string[] {
    const latest = this.latest;
    if (latest === undefined) return [];
    this.links ??= linkedSources(this.options.root, latest);
    const paths = new Set<string>();
    for (const { target, through } of this.links) {
      if (relPath === target) paths.add(through);
      else if (relPath.startsWith(`${target}/`)) paths.add(`${through}${relPath.slice(target.length)}`);
    }
    paths.delete(relPath);
    return [...paths];
  }

  private enqueue(): Promise<void> {
    // One analysis waiting is enough: it reads every buffer and every change noted when it starts.
    if (this.waiting) return this.queue;
    this.waiting = true;
    // A failure is logged and the queue goes on: one bad run must not fail every later request.
    this.queue = this.queue
      .then(() => {
        this.waiting = false;
        return this.analyse();
      })
      .catch((error: unknown) => this.options.log(`gamma-prompt: analysis failed: ${messageOf(error)}`));
    return this.queue;
  }

  private async analyse(): Promise<void> {
    if (this.closed) return;
    const buffers = new Map<string, string>();
    const versions = new Map<string, number>();
    for (const document of this.documents.all()) {
      const path = this.paths.pathOf(document.uri);
      if (path === undefined) continue;
      buffers.set(path, withFileBom(join(this.options.root, path), document.getText()));
      versions.set(path, document.version);
    }
    // On the first run, and after a save when the client reports no changes on disk, every file's stamp decides what is read again.
    const changedPaths = this.rescanNext ? undefined : [...this.changed];
    this.changed.clear();
    this.rescanNext = false;
    let analysis: ProjectAnalysis;
    try {
      // The connection sends on a later turn of the event loop, so after publishing the analysis waits for one:
      // else what it publishes would leave only when the rest of the analysis is done.
      const publishNow = async (diagnostics: readonly Diagnostic[]): Promise<void> => {
        if (this.closed) return;
        this.publishDiagnostics(diagnostics, versions);
        await new Promise((resolve) => setImmediate(resolve));
      };
      if (changedPaths === undefined && this.latest === undefined) {
        // The first analysis of a large project: the skill findings are published before the build's checks finish.
        const skills = await this.analyzer.analyze({ buffers, scope: "skills" });
        if (this.closed) return;
        await publishNow(skills.diagnostics);
        if (this.closed) return;
      }
      // The findings go out once they are final; what the build would write (for the cost lens, the compiled
      // prompt) is made after. Requests still wait for the whole analysis.
      analysis = await this.analyzer.analyze({ buffers, ...(changedPaths ? { changedPaths } : {}), onFindings: publishNow });
    } catch (error) {
      // No skills/ folder, a root that went away: nothing to publish, and the next edit tries again.
      this.options.log(`gamma-prompt: the project at ${this.options.root} could not be analysed: ${messageOf(error)}`);
      this.rescanNext = true;
      return;
    }
    if (this.closed) return;
    this.latest = analysis;
    this.links = undefined;
    this.analysedVersions = versions;
    this.buffers = buffers;
    this.publishDiagnostics(analysis.diagnostics, versions);
    for (const listener of this.listeners) listener(analysis);
  }

  /** Publishes every file whose findings changed, one empty list for a file that went clean, and one for a buffer opened clean. */
  private publishDiagnostics(diagnostics: readonly Diagnostic[], versions: ReadonlyMap<string, number>): void {
    const byFile = new Map<string, Diagnostic[]>();
    for (const diagnostic of diagnostics) {
      const list = byFile.get(diagnostic.file);
      if (list) list.push(diagnostic);
      else byFile.set(diagnostic.file, [diagnostic]);
    }
    for (const [file, findings] of byFile) {
      const converted = findings.map((finding) => toLspDiagnostic(finding, this.paths, versions.get(file)));
      const key = JSON.stringify(converted);
      const uri = this.paths.uriOf(file);
      if (this.published.get(uri) === key) continue;
      this.published.set(uri, key);
      this.options.publish(uri, converted);
    }
    const clean = JSON.stringify([]);
    for (const [uri, key] of [...this.published]) {
      const path = this.paths.pathOf(uri);
      if (path !== undefined && byFile.has(path)) continue;
      if (key !== clean) this.options.publish(uri, []);
      // An open buffer is remembered as clean, so it is told once; any other file is forgotten.
      if (path !== undefined && versions.has(path)) this.published.set(uri, clean);
      else this.published.delete(uri);
    }
    // A buffer opened clean is told so once: the editor then knows its findings are current.
    for (const path of versions.keys()) {
      const uri = this.paths.uriOf(path);
      if (byFile.has(path) || this.published.has(uri)) continue;
      this.published.set(uri, clean);
      this.options.publish(uri, []);
    }
  }
}

const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

/**
 * Editors take a file's byte order mark out of the buffer they send and write
 * it back on save (Neovim's 'bomb', VS Code's "UTF-8 with BOM"), so a buffer
 * is judged with the mark its file has: the findings are those lint makes on
 * the saved file. Code actions edit the buffer as sent, so no fix touches it.
 */
function withFileBom(file: string, text: string): string {
  return !text.startsWith("\uFEFF") && fileStartsWith(file, UTF8_BOM) ? `\uFEFF${text}` : text;
}

/** A source path (or a folder on the way to one) that reaches `target`, root-relative, through a link. */
interface LinkedSource {
  target: string;
  through: string;
}

/**
 * The links an analysis read through: of every SKILL.md and other source it read and the folders on their
 * way, the ones whose real place inside the project is not their own path. Worked out when the client reports
 * a change after the analysis (one realpath each), so a link whose target has just gone away maps to where it
 * points.
 */
function linkedSources(root: string, analysis: ProjectAnalysis): LinkedSource[] {
  const realRoot = realOrSelf(root);
  const paths = new Set<string>();
  const addWithFolders = (path: string): void => {
    for (let current = path; current !== "." && current !== "" && !paths.has(current); current = dirname(current)) paths.add(current);
  };
  for (const record of analysis.skillFiles) addWithFolders(record.path);
  for (const source of sourceFiles(analysis)) addWithFolders(source);
  const links: LinkedSource[] = [];
  for (const through of paths) {
    const real = realPlace(join(root, ...through.split("/")));
    if (real === undefined) continue;
    const target = relative(realRoot, real);
    if (target === "" || target.startsWith("..") || isAbsolute(target)) continue;
    const posix = target.split(sep).join("/");
    if (posix !== through) links.push({ target: posix, through });
  }
  return links;
}

function sourceFiles(analysis: ProjectAnalysis): string[] {
  const sources = analysis.sources;
  if (sources === undefined) return [];
  return Object.values(sources).flatMap((value: unknown) => (Array.isArray(value) ? value : value === undefined ? [] : [value])).map((file) => (file as { path: string }).path);
}

/** Where a path really is: through every link, or for a link to nothing, where it points. */
function realPlace(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    try {
      if (!lstatSync(path).isSymbolicLink()) return undefined;
      return resolve(realpathSync(dirname(path)), readlinkSync(path));
    } catch {
      return undefined;
    }
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
