import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { explainRule, formatExplanation, isRuleId, ruleIds } from "../diagnostics/rules/explain.js";
import { packageRoot } from "../package-paths.js";
import { MANIFEST_FILE } from "../protocol/dist-manifest.js";
import { readBuiltOutput, verificationSummary } from "../compiled-prompt.js";
import { readRegularFile } from "../protocol/regular-file.js";
import { MAX_SOURCE_BYTES } from "../pipeline/discover/read-source.js";
import { echoed, ToolInputError, type McpProject } from "./project.js";
import { statIfPossible } from "../protocol/regular-file.js";

/**
 * The resources: every rule's documentation page (from the package), and the
 * project's output folder: its manifest and compiled variants (listed), and
 * any other file in it by URI. A URI that leads outside the project root, or
 * to anything but a regular file, is refused.
 */

/**
 * A resource URI that is well formed but names nothing: the protocol's
 * "resource not found" (-32002, with the URI as its data), which a client can
 * tell from a URI it got wrong.
 */
export class ResourceNotFoundError extends ToolInputError {
  constructor(
    message: string,
    readonly uri: string,
  ) {
    super(message);
  }
}

export const RULE_SCHEME_PREFIX = "gamma-prompt://rules/";
export const PROJECT_SCHEME_PREFIX = "gamma-prompt://project/";
/** Compiled artifacts can be large (a whole catalog); past this a read is refused rather than sent. */
const MAX_RESOURCE_BYTES = 8 * MAX_SOURCE_BYTES;

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

export function listResources(project: McpProject): ResourceEntry[] {
  const rules = ruleIds().map((id) => ({ uri: `${RULE_SCHEME_PREFIX}${id}`, name: id, description: explainRule(id).description, mimeType: "text/markdown" }));
  const output: ResourceEntry[] = [];
  let outRel: string | undefined;
  try {
    outRel = project.place(project.outDir, { what: "the output folder", exists: false }).rel;
  } catch {
    // An output folder outside the project root (--out) is not served.
  }
  const manifestRead = outRel === undefined ? undefined : readRegularFile(`${project.outDir}/${MANIFEST_FILE}`, { maxBytes: MAX_RESOURCE_BYTES });
  if (outRel !== undefined && manifestRead?.kind === "file") output.push(...outputResources(project.outDir, outRel));
  return [...output, ...rules];
}

/**
 * The output folder's manifest and variants, only as far as the folder passes
 * verification, as every command that reads it requires: one that fails is
 * listed by its manifest alone, whose description says what failed, so a
 * client neither gets an internal error nor reads a variant the manifest does not vouch for.
 */
function outputResources(outDir: string, outRel: string): ResourceEntry[] {
  const manifestUri = projectUri(`${outRel}/${MANIFEST_FILE}`);
  const manifestName = `${outRel}/${MANIFEST_FILE}`;
  const output = readBuiltOutput(outDir);
  if (output.kind !== "verified") {
    const failed = output.kind === "failed" ? verificationSummary(output.problems) : "no manifest";
    const description = `The output folder ${outRel}/ failed verification (${failed}); run \`gamma-prompt build\`. Its variants are not listed until it passes.`;
    return [{ uri: manifestUri, name: manifestName, description, mimeType: "application/json" }];
  }
  const variants = Object.keys(output.artifacts.variants).sort();
  return [
    { uri: manifestUri, name: manifestName, description: "The build's manifest: every artifact with its sha256, the skills, variants and token counts.", mimeType: "application/json" },
    ...variants.map((variant) => ({ uri: projectUri(`${outRel}/variants/${variant}.md`), name: `${outRel}/variants/${variant}.md`, description: `The compiled system prompt of variant ${variant}, as last built.`, mimeType: "text/markdown" })),
  ];
}

/** The URI of a root-relative path, each part percent-encoded as a read decodes it (a `%`, space or `#` in a folder's name). */
function projectUri(path: string): string {
  return `${PROJECT_SCHEME_PREFIX}${path.split("/").map(encodeURIComponent).join("/")}`;
}

export const RESOURCE_TEMPLATES = [
  { uriTemplate: `${RULE_SCHEME_PREFIX}{rule}`, name: "rule", description: "A rule's documentation page, e.g. gamma-prompt://rules/skill/description-trigger.", mimeType: "text/markdown" },
  { uriTemplate: `${PROJECT_SCHEME_PREFIX}{+path}`, name: "output-file", description: "A file of the project's output folder (dist/ by default), e.g. gamma-prompt://project/dist/cache-plan.json.", mimeType: "text/plain" },
];

/** A resource's contents as MCP carries them: text, or a file's bytes in base64 when they are not UTF-8 text. */
export type ResourceContents = { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

export function readResource(project: McpProject, uri: string): ResourceContents {
  // A URI as it is, bounded: a client may send megabytes.
  const shown = echoed(uri, false);
  if (uri.startsWith(RULE_SCHEME_PREFIX)) {
    let id: string;
    try {
      id = decodeURIComponent(uri.slice(RULE_SCHEME_PREFIX.length));
    } catch {
      throw new ToolInputError(`Unexpected resource ${shown}: its rule is not valid percent-encoding`);
    }
    if (!isRuleId(id)) throw new ResourceNotFoundError(`Unexpected rule ${echoed(id)} in ${shown}, expected a rule id (resources/list names every rule's page)`, uri);
    return { uri, mimeType: "text/markdown", text: rulePage(id) };
  }
  if (!uri.startsWith(PROJECT_SCHEME_PREFIX)) throw new ToolInputError(`Unexpected resource ${shown}, expected ${RULE_SCHEME_PREFIX}RULE or ${PROJECT_SCHEME_PREFIX}PATH`);
  let path: string;
  try {
    path = decodeURIComponent(uri.slice(PROJECT_SCHEME_PREFIX.length));
  } catch {
    throw new ToolInputError(`Unexpected resource ${shown}: its path is not valid percent-encoding`);
  }
  const place = project.place(path, { what: "a file of the output folder", exists: false });
  const outDir = project.place(project.outDir, { what: "the output folder", exists: false });
  if (!under(outDir.rel, place.rel)) {
    // An empty path names the project root itself.
    const named = place.rel === "" ? "the project root" : place.rel;
    throw new ToolInputError(`Unexpected resource ${shown}: ${named} is not in the output folder ${outDir.rel}/, expected a file there (the sources are the agent's own files to read)`);
  }
  // A link inside the output folder may lead elsewhere in the root: what is served is what the link leads to.
  const real = project.realPlace(place);
  if (!under(project.realPlace(outDir).rel, real.rel)) {
    throw new ToolInputError(`Unexpected resource ${shown}: it leads outside the output folder ${outDir.rel}/ (through a symbolic link, to ${real.rel}), expected a file there`);
  }
  if (statIfPossible(place.abs) === undefined) throw new ResourceNotFoundError(`Unexpected resource ${shown}: nothing there, expected a file of the output folder ${outDir.rel}/ (resources/list names the manifest and the variants)`, uri);
  project.kindOf(place, ["file"], "a file");
  const read = readRegularFile(place.abs, { maxBytes: MAX_RESOURCE_BYTES });
  if (read.kind === "too-large") throw new ToolInputError(`Unexpected file of ${read.size} bytes at ${place.rel}, expected at most ${MAX_RESOURCE_BYTES} bytes for a resource`);
  if (read.kind !== "file") throw new ToolInputError(`Unexpected ${read.kind === "not-a-file" ? read.what : "unreadable file"} at ${place.rel}, expected a regular file`);
  // A supporting file copied as bytes (an image, a font) goes as bytes: read as text it would come back changed.
  if (!isUtf8(read.bytes)) return { uri, mimeType: "application/octet-stream", blob: read.bytes.toString("base64") };
  return { uri, mimeType: mimeTypeOf(place.rel), text: read.bytes.toString("utf8") };
}

/** Whether the root-relative `path` is `folder` or inside it (an output folder outside the root holds nothing served). */
function under(folder: string, path: string): boolean {
  if (folder === ".." || folder.startsWith("../")) return false;
  return path === folder || (folder !== "" && path.startsWith(`${folder}/`));
}

/** The page docs/rules/<id>.md in the package; the same text from the rule table if the page is missing. */
function rulePage(id: Parameters<typeof explainRule>[0]): string {
  try {
    return readFileSync(fileURLToPath(new URL(`docs/rules/${id}.md`, packageRoot)), "utf8");
  } catch {
    return formatExplanation(explainRule(id));
  }
}

/** An output file's type by its extension: the manifest and plans are JSON, prompts Markdown, the catalog XML. */
function mimeTypeOf(path: string): string {
  if (path.endsWith(".json")) return "application/json";
  if (path.endsWith(".md")) return "text/markdown";
  if (path.endsWith(".xml")) return "application/xml";
  return "text/plain";
}
