import { lstatSync } from "node:fs";
import { join } from "node:path";
import { createDiagnostic, FILE_START, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import {
  CONFIG_FILE,
  INJECTIONS_FILE,
  KNOWLEDGE_SOURCE_DIR,
  NAMESPACE_FILE,
  NAMESPACE_TOOLS_DIR,
  NAMESPACES_DIR,
  PARTIALS_DIR,
  PREFIX_TEMPLATE,
  TOOL_ORDER_FILE,
  TOOLS_DIR,
  VARIANT_TEMPLATE,
  VARIANTS_FILE,
} from "./source-paths.js";
import { defineSlot, type BuildSession } from "../session/build-session.js";
import { compareCodeUnits, isDiagnostic, listFiles, listFolders, readPromptSource, unlistableFolder, type UnreadableFolder } from "./sources.js";
import type { SourceOverrides } from "./read-source.js";

/** Every non-skill source of a build, read and normalised. */
export interface ProjectSources {
  prefix?: SourceFile;
  variant?: SourceFile;
  partials: SourceFile[];
  variants?: SourceFile;
  injections?: SourceFile;
  toolFiles: SourceFile[];
  toolOrder?: SourceFile;
  config?: SourceFile;
  /** knowledge/*.md, sorted by path; undefined when the project has no note. */
  knowledgeFiles?: SourceFile[];
  /** Every file under schemas/namespaces/ (declarations and tools), sorted by path; undefined when the project has none. */
  namespaceFiles?: SourceFile[];
}

export const REQUIRED_SOURCES = [PREFIX_TEMPLATE, VARIANT_TEMPLATE, VARIANTS_FILE] as const;
/** Read when present: without injections.yaml the project defines no runtime injections. */
export const OPTIONAL_SOURCES = [INJECTIONS_FILE, CONFIG_FILE] as const;

/**
 * Root-relative paths of every non-skill source, sorted. Folders are listed
 * fresh each time; one that exists but cannot be listed is added to
 * `unreadable`. What a folder of sources holds that the build never reads (a
 * sub-folder, a file of another extension) is added to `ignored`.
 */
export async function listProjectSourcePaths(root: string, unreadable: UnreadableFolder[] = [], ignored?: string[]): Promise<string[]> {
  const partials = (await listFiles(root, PARTIALS_DIR, ".hbs", unreadable, ignored)).map((name) => `${PARTIALS_DIR}/${name}`);
  const tools = (await listFiles(root, TOOLS_DIR, ".json", unreadable, ignored)).map((name) => `${TOOLS_DIR}/${name}`);
  const knowledge = (await listFiles(root, KNOWLEDGE_SOURCE_DIR, ".md", unreadable, ignored)).map((name) => `${KNOWLEDGE_SOURCE_DIR}/${name}`);
  const namespaces = await listNamespaceSourcePaths(root, unreadable, ignored);
  ignored?.sort(compareCodeUnits);
  return [...REQUIRED_SOURCES, ...OPTIONAL_SOURCES, ...partials, ...tools, ...knowledge, ...namespaces].sort();
}

/** `schemas/namespaces/<name>/namespace.json` (listed even when absent, so its absence is reported) and `<name>/tools/*.json`. */
async function listNamespaceSourcePaths(root: string, unreadable: UnreadableFolder[], ignored: string[] | undefined): Promise<string[]> {
  const paths: string[] = [];
  for (const folder of await listFolders(root, NAMESPACES_DIR, unreadable)) {
    const dir = `${NAMESPACES_DIR}/${folder}`;
    paths.push(`${dir}/${NAMESPACE_FILE}`);
    const toolsDir = `${dir}/${NAMESPACE_TOOLS_DIR}`;
    for (const name of await listFiles(root, toolsDir, ".json", unreadable, ignored)) paths.push(`${toolsDir}/${name}`);
  }
  return paths;
}

/** What each folder of sources reads (files of one extension), as an ignored entry's finding says it. */
const SOURCE_FOLDERS: ReadonlyArray<{ dir: RegExp; extension: string; expected: string }> = [
  { dir: /^knowledge\/[^/]+\/?$/, extension: ".md", expected: "knowledge notes as knowledge/<id>.md, directly in knowledge/" },
  { dir: /^prompts\/partials\/[^/]+\/?$/, extension: ".hbs", expected: "partials as prompts/partials/<name>.hbs, directly in prompts/partials/" },
  { dir: /^schemas\/tools\/[^/]+\/?$/, extension: ".json", expected: "tool schemas as schemas/tools/<name>.json, directly in schemas/tools/" },
  { dir: /^schemas\/namespaces\/[^/]+\/tools\/[^/]+\/?$/, extension: ".json", expected: "a namespace's tool schemas as <namespace>/tools/<name>.json, directly in its tools/ folder" },
];

/** `source/ignored-file`: an entry of a folder of sources that the build never reads, so what it holds never reaches the agent. */
export function ignoredSourceDiagnostic(path: string): Diagnostic {
  const folder = path.endsWith("/");
  const read = SOURCE_FOLDERS.find((candidate) => candidate.dir.test(path));
  const expected = read?.expected ?? "the sources the build reads";
  const name = path.slice(path.lastIndexOf("/", path.length - 2) + 1).replace(/\/$/, "");
  const extension = name.includes(".") ? name.slice(name.lastIndexOf(".")) : "";
  const wanted = read?.extension ?? "";
  const cased = !folder && extension !== wanted && extension.toLowerCase() === wanted ? ` (the extension is ${wanted}, in lower case)` : "";
  return createDiagnostic("source/ignored-file", folder ? path.slice(0, -1) : path, FILE_START, `Unexpected ${folder ? "folder" : "file"} ${path} that the build does not read${cased}, expected ${expected}`);
}

/** Prompt sources by path as last read. */
export const PROJECT_SOURCES = defineSlot<Map<string, SourceFile>>("project sources");

/**
 * Reads the sources. With a list of changed paths (watch), files the session
 * read before and not named in the list are taken unread.
 */
export async function loadProjectSources(
  root: string,
  session: BuildSession,
  changedPaths?: readonly string[],
  overrides?: SourceOverrides,
): Promise<{
  sources: ProjectSources;
  diagnostics: Diagnostic[];
  /** Files listed but refused by the reader, each with its own finding (not UTF-8, too large, unreadable): present, not read. */
  refused: ReadonlySet<string>;
}> {
  const cache = session.keep(PROJECT_SOURCES, () => new Map<string, SourceFile>());
  const unlisted: UnreadableFolder[] = [];
  const ignored: string[] = [];
  const paths = await listProjectSourcePaths(root, unlisted, ignored);
  const changed = changedPaths ? new Set(changedPaths) : undefined;
  // The sources in a folder that cannot be listed are unknown: an error, so a build keeps dist/ rather than render without them.
  const diagnostics: Diagnostic[] = [...unlisted.map(({ folder, code }) => unlistableFolder("source/unreadable-file", folder, code)), ...ignored.map(ignoredSourceDiagnostic)];
  const files = new Map<string, SourceFile>();
  const refused = new Set<string>();
  await Promise.all(
    paths.map(async (path) => {
      // An override is never remembered as read: once it ends, the caller names the path as changed.
      const override = overrides?.get(path);
      if (override !== undefined) {
        if (isDiagnostic(override)) diagnostics.push(override);
        else files.set(path, override);
        return;
      }
      const cached = changed && !changed.has(path) ? cache.get(path) : undefined;
      const result = cached ?? (await readPromptSource(root, path));
      if (result === undefined) {
        cache.delete(path);
        // Listed, then missing: deleted meanwhile, or a link to nothing. A link is a source its author meant to
        // have: left out quietly, the build would lose a note, a partial or a tool.
        if (isLinkToNothing(join(root, path))) diagnostics.push(createDiagnostic("source/unreadable-file", path, FILE_START, "Unexpected symbolic link to a file that does not exist, expected a readable file"));
        return;
      }
      if (isDiagnostic(result)) {
        cache.delete(path);
        diagnostics.push(result);
        refused.add(path);
        return;
      }
      files.set(path, result);
      cache.set(path, result);
    }),
  );
  for (const path of REQUIRED_SOURCES) {
    if (!files.has(path) && !diagnostics.some((diagnostic) => diagnostic.file === path)) {
      diagnostics.push(createDiagnostic("source/missing-file", path, FILE_START, `Unexpected missing ${path}, expected the file to exist`));
    }
  }
  const under = (dir: string): SourceFile[] => [...files.values()].filter((file) => file.path.startsWith(`${dir}/`)).sort((a, b) => (a.path < b.path ? -1 : 1));
  const sources: ProjectSources = {
    partials: under(PARTIALS_DIR),
    toolFiles: under(TOOLS_DIR).filter((file) => file.path !== TOOL_ORDER_FILE),
  };
  assign(sources, "prefix", files.get(PREFIX_TEMPLATE));
  assign(sources, "variant", files.get(VARIANT_TEMPLATE));
  assign(sources, "variants", files.get(VARIANTS_FILE));
  assign(sources, "injections", files.get(INJECTIONS_FILE));
  assign(sources, "toolOrder", files.get(TOOL_ORDER_FILE));
  assign(sources, "config", files.get(CONFIG_FILE));
  const knowledge = under(KNOWLEDGE_SOURCE_DIR);
  if (knowledge.length > 0) sources.knowledgeFiles = knowledge;
  const namespaces = under(NAMESPACES_DIR);
  if (namespaces.length > 0 || paths.some((path) => path.startsWith(`${NAMESPACES_DIR}/`))) sources.namespaceFiles = namespaces;
  return { sources, diagnostics, refused };
}

function assign<K extends keyof ProjectSources>(target: ProjectSources, key: K, value: ProjectSources[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

/** Whether `path` is a symbolic link (whose target, the caller found, is not there). */
function isLinkToNothing(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
