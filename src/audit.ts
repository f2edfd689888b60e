/**
 * `gamma-prompt audit`: the runtime's completion audit, run offline over
 * recorded transcripts (the runtime's session logs and Pi's session files),
 * with findings as diagnostics at the transcript line of each one.
 */
import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { compareDiagnostics, countDiagnostics, createDiagnostic, type Diagnostic } from "./diagnostics/diagnostic.js";
import { loadArtifacts, type LoadedArtifacts } from "./runtime/artifacts.js";
import { auditTranscript, type AuditReport } from "./runtime/audit/audit.js";
import { readTranscriptText, type TranscriptFormat } from "./runtime/audit/readers.js";
import type { PositionedEvent } from "./runtime/audit/transcript.js";

export interface AuditOptions {
  /** Transcript files (JSONL): runtime session logs or Pi session files. */
  files: readonly string[];
  /** The dist/ whose checklists the audit judges against (default: the package's embedded default). */
  distDir?: string;
  /** The variant for a Pi session file that does not name one (default "base"). */
  variant?: string;
  /** Paths in findings are relative to this folder (default: the current one). */
  cwd?: string;
}

export interface AuditedTranscript {
  file: string;
  format?: TranscriptFormat;
  /** One report per yield, in order. */
  reports: AuditReport[];
}

export interface AuditResult {
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  transcripts: AuditedTranscript[];
}

export async function audit(options: AuditOptions): Promise<AuditResult> {
  const artifacts = loadArtifacts(options.distDir === undefined ? {} : { distDir: options.distDir });
  const cwd = options.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [];
  const transcripts: AuditedTranscript[] = [];
  for (const path of options.files) {
    const file = relative(cwd, resolve(cwd, path)).split(sep).join("/");
    const at = (line: number) => ({ start: { line, column: 1 }, end: { line, column: 1 } });
    let text: string;
    try {
      text = await readFile(resolve(cwd, path), "utf8");
    } catch (error) {
      diagnostics.push(createDiagnostic("audit/transcript-format", file, at(1), `Unexpected unreadable transcript (${(error as NodeJS.ErrnoException).code ?? "error"}), expected a readable JSONL file`));
      transcripts.push({ file, reports: [] });
      continue;
    }
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
    const events = read.format === "pi-session" ? [sessionStart(artifacts, read.variant ?? options.variant ?? "base"), ...read.events] : read.events;
    const reports = auditTranscript(events, artifacts.skills);
    const seen = new Set<string>();
    for (const report of reports) {
      for (const finding of report.findings) {
        const key = `${finding.ruleId}\u0000${finding.position}\u0000${finding.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        diagnostics.push(createDiagnostic(finding.ruleId, file, at(Math.max(1, finding.position)), `${finding.message} (audit of the yield at line ${report.position})`));
      }
    }
    transcripts.push({ file, format: read.format, reports });
  }
  diagnostics.sort(compareDiagnostics);
  return { diagnostics, ...countDiagnostics(diagnostics), transcripts };
}

/** A Pi session file has no variant line: the preloaded skills come from the manifest. */
function sessionStart(artifacts: LoadedArtifacts, variant: string): PositionedEvent {
  const preloadedSkills = [...(artifacts.manifest.variants[variant]?.preloadedSkills ?? [])];
  return { type: "session", variant, preloadedSkills, position: 0 };
}
