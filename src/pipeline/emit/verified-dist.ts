import { join } from "node:path";
import type { DistManifest, ToolSchemaArtifact } from "../../protocol/dist-manifest.js";
import { isRecord } from "../../protocol/records.js";
import { readRegularFile } from "../../protocol/regular-file.js";
import { withLfLineEndings } from "../../protocol/line-endings.js";
import { sha256Hex } from "../discover/read-source.js";
import { SKILL_TOOL } from "../validate/tools.js";

/**
 * A built dist/ read for what it can vouch for: its manifest, and each file
 * only when its sha256 is the one the manifest lists. `check` takes token
 * counts and accepted tool parameter schemas from it (recorded-build.ts);
 * `lint` takes the accepted schemas alone, so neither compiles again a schema
 * the build accepted byte for byte. Kept apart from the token counts so lint
 * loads none of the render stages.
 */
export interface VerifiedDist {
  manifest: Partial<DistManifest>;
  /** The file's bytes when the manifest lists it with exactly their sha256 (read once per file). */
  verified(file: unknown): Buffer | undefined;
}

/** Larger artifacts are not worth reading for a record. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** Undefined without a readable manifest. */
export function readVerifiedDist(outDir: string): VerifiedDist | undefined {
  const manifest = parseJson(readRegular(join(outDir, "manifest.json"))) as Partial<DistManifest> | undefined;
  if (!isRecord(manifest)) return undefined;
  const artifacts = isRecord(manifest.artifacts) ? manifest.artifacts : {};
  // Each file is read and hashed once, however many records ask for it (check reads the namespaces for their tools and their counts).
  const known = new Map<string, Buffer | undefined>();
  const verified = (file: unknown): Buffer | undefined => {
    if (typeof file !== "string" || !Object.prototype.hasOwnProperty.call(artifacts, file)) return undefined;
    if (known.has(file)) return known.get(file);
    const entry = artifacts[file];
    const bytes = readRegular(join(outDir, file));
    const trusted = bytes && isRecord(entry) && entry.sha256 === sha256Hex(bytes) ? bytes : undefined;
    known.set(file, trusted);
    return trusted;
  };
  return { manifest, verified };
}

/** True when dist/'s tool lists hold this tool with exactly these parameters, as the build accepted them. */
export function acceptedToolParametersOf({ manifest, verified }: VerifiedDist): (tool: ToolSchemaArtifact) => boolean {
  const accepted = new Map<string, string>();
  const tools = isRecord(manifest.tools) ? parseJson(verified(manifest.tools.file)) : undefined;
  // Tool names are unique across the stable set and the namespaces (a build with a duplicate writes nothing).
  const namespaceFiles = Object.values(isRecord(manifest.namespaces) ? manifest.namespaces : {}).map((info) => (isRecord(info) ? parseJson(verified(info.file)) : undefined));
  const namespaceTools = namespaceFiles.flatMap((namespace) => (isRecord(namespace) && Array.isArray(namespace.tools) ? (namespace.tools as unknown[]) : []));
  for (const tool of [...(Array.isArray(tools) ? (tools as unknown[]) : []), ...namespaceTools]) {
    if (isRecord(tool) && typeof tool.name === "string" && isRecord(tool.parameters)) accepted.set(tool.name, JSON.stringify(sourceParameters(tool.name, tool.parameters)));
  }
  return (tool) => {
    const recorded = accepted.get(tool.name);
    if (recorded === undefined) return false;
    // The skill tool's name enum is the build's own addition; an author's enum there is checked, never assumed.
    if (tool.name === SKILL_TOOL && isRecord(nameProperty(tool.parameters)) && "enum" in (nameProperty(tool.parameters) as Record<string, unknown>)) return false;
    return JSON.stringify(tool.parameters) === recorded;
  };
}

/** The tool parameter schemas the build in `outDir` accepted (see acceptedToolParametersOf); none without a readable manifest. */
export function acceptedToolParametersIn(outDir: string): (tool: ToolSchemaArtifact) => boolean {
  const dist = readVerifiedDist(outDir);
  return dist === undefined ? () => false : acceptedToolParametersOf(dist);
}

/** The parameters as the author wrote them: the skill tool's name enum, which the build adds, taken out again. */
function sourceParameters(name: string, parameters: Record<string, unknown>): Record<string, unknown> {
  const property = nameProperty(parameters);
  if (name !== SKILL_TOOL || !isRecord(property) || !("enum" in property)) return parameters;
  const { enum: _added, ...authored } = property;
  return { ...parameters, properties: { ...(parameters.properties as Record<string, unknown>), name: authored } };
}

function nameProperty(parameters: Record<string, unknown>): unknown {
  return isRecord(parameters.properties) ? parameters.properties.name : undefined;
}

/** The file's bytes when it is a regular file of sensible size; never blocks on a FIFO or device. */
function readRegular(path: string): Buffer | undefined {
  const read = readRegularFile(path, { maxBytes: MAX_RECORD_BYTES });
  // As built: a checkout's CRLF line endings (core.autocrlf) are undone first (protocol/line-endings.ts).
  return read.kind === "file" ? withLfLineEndings(read.bytes) : undefined;
}

export function parseJson(bytes: Buffer | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
