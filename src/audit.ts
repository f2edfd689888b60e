/**
 * `gamma-prompt audit`: the runtime's completion audit, run offline over
 * recorded transcripts (the runtime's session logs and Pi's session files),
 * with findings as diagnostics at the transcript line of each one. A
 * transcript is audited only against the build it ran on: its recorded cache
 * key must be the dist/'s, its variant and every skill it activated must be
 * the dist/'s, or it is a finding instead of a pass over someone else's
 * checklists.
 */
import { statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { compareDiagnostics, countDiagnostics, createDiagnostic, type Diagnostic } from "./diagnostics/diagnostic.js";
import { expectObject, expectString, expectStringArray } from "./protocol/arguments.js";
import { MAX_TEXT_FILE_BYTES, readRegularFile } from "./protocol/regular-file.js";
import { loadArtifacts, type LoadedArtifacts } from "./runtime/artifacts.js";
import { auditTranscript, type AuditReport } from "./runtime/audit/audit.js";
import { readTranscriptText, type ReadTranscript, type TranscriptFormat } from "./runtime/audit/readers.js";
import type { PositionedEvent } from "./runtime/audit/transcript.js";

export interface AuditOptions {
  /** Transcript files (JSONL): runtime session logs or Pi session files. */
  files: readonly string[];
  /** The dist/ the sessions ran on (default: `<root>/dist`). */
  distDir?: string;
  /** The project whose `dist/` is the default (default: `cwd`). */
  root?: string;
  /** The variant for a Pi session file that does not name one (default: the dist/'s only variant; required when it has several). */
  variant?: string;
  /** Paths (files, the dist/, findings) are relative to this folder (default: the current one). */
  cwd?: string;
}

export interface AuditedTranscript {
  file: string;
  format?: TranscriptFormat;
  /** One report per yield, in order; none when the transcript was not audited (unreadable, or another build's). */
  reports: AuditReport[];
}

/** What the audit judged, so a pass and a check of nothing never read the same. */
export interface AuditChecked {
  /** Transcripts audited (read, and of this build). */
  transcripts: number;
  /** Yields audited across them. */
  yields: number;
  /** Workflow skills judged at some yield, sorted. */
  workflows: string[];
  /** The dist/ audited against, as the user would type it from `cwd`. */
  distDir: string;
  /** Its static prefix's cache key. */
  cacheKey: string;
}

export interface AuditResult {
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  transcripts: AuditedTranscript[];
  checked: AuditChecked;
}

/** A request the audit cannot run at all (a `variant` the dist/ does not define): nothing was audited. */
export class AuditUsageError extends Error {
  override name = "AuditUsageError";
}

export async function audit(options: AuditOptions): Promise<AuditResult> {
  const given: unknown = options;
  expectObject(given, "audit options", 'an object such as { root: ".", files: ["sessions/deck-42.jsonl"] }');
  expectStringArray(given["files"], "files", "an array of transcript files (JSONL)");
  for (const key of ["distDir", "root", "variant", "cwd"]) {
    if (given[key] !== undefined) expectString(given[key], key, "a string", true);
  }
  const cwd = options.cwd ?? process.cwd();
  const distDir = resolve(cwd, options.distDir ?? join(options.root ?? ".", "dist"));
  const artifacts = loadArtifacts({ distDir });
  // Named as the user named it: an absolute --dist stays absolute; a relative one, or the project's own, is shown from `cwd`.
  const shownDist = `${options.distDir !== undefined && isAbsolute(options.distDir) ? distDir.split(sep).join("/") : shortest(cwd, distDir)}/`;
  const variants = Object.keys(artifacts.manifest.variants);
  if (options.variant !== undefined && !variants.includes(options.variant)) {
    throw new AuditUsageError(`Unexpected --variant ${JSON.stringify(options.variant)}, expected one of the variants ${shownDist} defines: ${variants.join(", ")}`);
  }
  const diagnostics: Diagnostic[] = [];
  const transcripts: AuditedTranscript[] = [];
  const checked: AuditChecked = { transcripts: 0, yields: 0, workflows: [], distDir: shownDist, cacheKey: artifacts.manifest.staticPrefix.cacheKey };
  for (const path of options.files) {
    // The working folder itself, given as a transcript, is named "." (a finding always names its file).
    const file = relative(cwd, resolve(cwd, path)).split(sep).join("/") || ".";
    // Never a blocking read: a FIFO where a transcript belongs is refused, found by fstat.
    const onDisk = readRegularFile(resolve(cwd, path), { maxBytes: MAX_TEXT_FILE_BYTES });
    if (onDisk.kind !== "file") {
      const what =
        onDisk.kind === "not-a-file" ? `${onDisk.what} where a transcript belongs` : onDisk.kind === "too-large" ? `transcript of ${onDisk.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text can hold` : `unreadable transcript (${onDisk.kind === "error" ? onDisk.code : missingCode(resolve(cwd, path))})`;
      diagnostics.push(createDiagnostic("audit/transcript-format", file, at(1), `Unexpected ${what}, expected a readable JSONL file`));
      transcripts.push({ file, reports: [] });
      continue;
    }
    const text = onDisk.bytes.toString("utf8");
    const read = readTranscriptText(text);
    if (read === undefined) {
      diagnostics.push(
        createDiagnostic("audit/transcript-format", file, at(1), 'Unexpected first line, expected a runtime session log ({"type":"session","variant":…}) or a Pi session file ({"type":"session","id":…})'),
      );
      transcripts.push({ file, reports: [] });
      continue;
    }
    for (const line of read.unreadable) {
      // A torn last line is what a live log looks like mid-write: a warning. Any other unreadable line lost an event: an error.
      diagnostics.push(createDiagnostic(line.torn ? "audit/transcript-torn-line" : "audit/transcript-format", file, at(line.line), line.problem));
    }
    const events = read.format === "pi-session" ? [sessionStart(artifacts, read.variant ?? options.variant ?? onlyVariant(variants, file, shownDist)), ...read.events] : read.events.map((event) => withPreloads(event, artifacts));
    const foreign = buildProblems(read, events, artifacts, shownDist).map((problem) => createDiagnostic(problem.ruleId, file, at(problem.line), problem.message));
    if (foreign.length > 0) {
      // Another build's checklists would judge another agent: the transcript is not audited, and says why.
      diagnostics.push(...foreign);
      transcripts.push({ file, format: read.format, reports: [] });
      continue;
    }
    // A session a redeploy moved to another build is judged from the move on: its earlier yields ran on another build.
    const moved = lastBuildChange(events)?.position ?? 0;
    const reports = auditTranscript(events, artifacts.skills).filter((report) => report.position > moved);
    const seen = new Set<string>();
    for (const report of reports) {
      for (const finding of report.findings) {
        const key = `${finding.ruleId}\u0000${finding.position}\u0000${finding.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        diagnostics.push(createDiagnostic(finding.ruleId, file, at(Math.max(1, finding.position)), `${finding.message} (audit of the yield at line ${report.position})`));
      }
    }
    checked.transcripts += 1;
    checked.yields += reports.length;
    checked.workflows = [...new Set([...checked.workflows, ...reports.flatMap((report) => report.workflows)])].sort();
    transcripts.push({ file, format: read.format, reports });
  }
  diagnostics.sort(compareDiagnostics);
  return { diagnostics, ...countDiagnostics(diagnostics), transcripts, checked };
}

/**
 * The variant of a Pi session file that records none, without --variant: the
 * build's only one. With several, any guess could judge the session by another
 * variant's preloads, so the audit is refused and asks for --variant.
 */
function onlyVariant(variants: readonly string[], file: string, shownDist: string): string {
  const [only, ...others] = variants;
  if (only !== undefined && others.length === 0) return only;
  throw new AuditUsageError(`Unexpected Pi session file ${file} that records no variant, expected --variant with the one it ran on, one of the variants ${shownDist} defines: ${variants.join(", ")}`);
}

/** "audited 1 transcript: 1 yield, 1 workflow (draft-outline), on dist/ (cache key 1a2b3c4d5e6f)". */
export function formatAuditChecked(checked: AuditChecked): string {
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;
  const workflows = checked.workflows.length === 0 ? "no workflow" : `${plural(checked.workflows.length, "workflow")} (${checked.workflows.join(", ")})`;
  return `audited ${plural(checked.transcripts, "transcript")}: ${plural(checked.yields, "yield")}, ${workflows}, on ${checked.distDir} (cache key ${checked.cacheKey.slice(0, 12)})`;
}

const at = (line: number) => ({ start: { line, column: 1 }, end: { line, column: 1 } });

/** The recorded build, the variant and the skills a transcript used that the dist/ does not match. */
function buildProblems(read: ReadTranscript, events: readonly PositionedEvent[], artifacts: LoadedArtifacts, shownDist: string): Array<{ ruleId: "audit/dist-mismatch" | "audit/unknown-skill"; line: number; message: string }> {
  const key = artifacts.manifest.staticPrefix.cacheKey;
  const start = events.find((event): event is Extract<PositionedEvent, { type: "session" }> => event.type === "session");
  // A Pi session file records its variant and build in its gamma.session entry; a session log on its first line.
  const line = read.format === "pi-session" ? (read.sessionLine ?? 1) : Math.max(1, start?.position ?? 1);
  const moved = lastBuildChange(events);
  const recorded = moved?.cacheKey ?? start?.cacheKey ?? read.cacheKey;
  if (recorded !== undefined && recorded !== key) {
    const ran = moved === undefined ? "the session ran on" : `the session moved to at line ${moved.position}`;
    const what = read.format === "pi-session" ? "Pi session file" : "session log";
    const message = `Unexpected ${what} of the build with cache key ${recorded.slice(0, 12)}, audited against ${shownDist} (cache key ${key.slice(0, 12)}), expected the dist/ ${ran}: pass --dist with that build`;
    return [{ ruleId: "audit/dist-mismatch", line: moved?.position ?? line, message }];
  }
  const problems: Array<{ ruleId: "audit/dist-mismatch" | "audit/unknown-skill"; line: number; message: string }> = [];
  const variants = Object.keys(artifacts.manifest.variants);
  const variant = moved?.variant ?? start?.variant;
  if (variant !== undefined && !variants.includes(variant)) {
    problems.push({ ruleId: "audit/dist-mismatch", line: moved?.position ?? line, message: `Unexpected variant "${variant}" that the dist/ does not define, expected one of ${variants.join(", ")} (the session ran on another build: pass --dist with it)` });
  }
  const known = [...artifacts.skills.keys()].sort();
  const reported = new Set<string>();
  // Skills a build the session left behind dropped are not judged: from a move on, its record names what stayed active.
  for (const event of events.filter((candidate) => candidate.position >= (moved?.position ?? 0))) {
    const names =
      event.type === "session" ? event.preloadedSkills : event.type === "skills_loaded" || event.type === "skills_required" ? event.names : event.type === "build_changed" ? event.activeSkills : [];
    for (const name of names) {
      if (artifacts.skills.has(name) || reported.has(name)) continue;
      reported.add(name);
      problems.push({
        ruleId: "audit/unknown-skill",
        line: event.position > 0 ? event.position : line,
        message: `Unexpected skill "${name}" that the dist/ does not define, expected one of ${known.join(", ")} (the session ran on another build: pass --dist with it)`,
      });
    }
  }
  return problems;
}

/** The last reopen on another build the transcript records: the build it runs on from there. */
function lastBuildChange(events: readonly PositionedEvent[]): Extract<PositionedEvent, { type: "build_changed" }> | undefined {
  return events.findLast((event): event is Extract<PositionedEvent, { type: "build_changed" }> => event.type === "build_changed");
}

/** A session log's first line without its preloaded skills: the audited build's variant preloads them (a workflow it preloads is judged). */
function withPreloads(event: PositionedEvent, artifacts: LoadedArtifacts): PositionedEvent {
  if (event.type !== "session" || event.preloadedUnrecorded !== true) return event;
  return { ...event, preloadedSkills: [...(artifacts.manifest.variants[event.variant]?.preloadedSkills ?? [])] };
}

/** A Pi session file has no variant line: the preloaded skills come from the manifest. */
function sessionStart(artifacts: LoadedArtifacts, variant: string): PositionedEvent {
  const preloadedSkills = [...(artifacts.manifest.variants[variant]?.preloadedSkills ?? [])];
  return { type: "session", variant, preloadedSkills, position: 0 };
}

/** The shorter of the relative and the absolute path: `../dist`, but `/srv/app/dist` rather than `../../../srv/app/dist`. */
function shortest(cwd: string, path: string): string {
  const relativePath = relative(cwd, path).split(sep).join("/") || ".";
  return relativePath.length <= path.length ? relativePath : path.split(sep).join("/");
}

/** Why nothing could be opened at `path`: ENOENT, ENOTDIR (a file on the way), ENAMETOOLONG. */
function missingCode(path: string): string {
  try {
    statSync(path);
    return "ENOENT";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "ENOENT";
  }
}
