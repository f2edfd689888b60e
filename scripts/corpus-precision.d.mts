/** Types of corpus-precision.mjs for the tests that import it. */
import type { Diagnostic } from "../src/diagnostics/diagnostic.js";

export interface CorpusCollection {
  name: string;
  repository: string;
  commit: string;
  licence: string;
  licenceFiles: string[];
  skills: string[];
  exclude?: Record<string, string>;
}

export interface KeyedFinding {
  finding: Diagnostic;
  rule: string;
  file: string;
  key: string;
  flagged: string;
}

export interface Label {
  rule: string;
  file: string;
  key: string;
  label: "true" | "false" | "?";
  reason: string;
  line: number;
}

export interface PrecisionRow {
  rule: string;
  severity: string;
  findings: number;
  true: number;
  false: number;
}

export declare const CORPUS: string;
export declare const LABELS_FILE: string;
export declare function corpusCollections(corpus?: string): CorpusCollection[];
export declare function lintCorpus(lint: (options: { root: string; profile: "agentskills" }) => Promise<{ diagnostics: Diagnostic[]; skillFileCount: number }>, corpus?: string): Promise<Diagnostic[] & { skillCounts: Map<string, number> }>;
export declare function collectionTable(skillCounts: Map<string, number>, corpus?: string): string;
export declare function flaggedText(finding: Diagnostic, corpus?: string): string;
export declare function keyFindings(findings: readonly Diagnostic[], corpus?: string): KeyedFinding[];
export declare function readLabels(path?: string): Map<string, Label>;
export declare function matchLabels(keyed: readonly KeyedFinding[], labels: Map<string, Label>): { labelled: Array<KeyedFinding & { label: boolean; reason: string }>; unlabelled: KeyedFinding[]; stale: Label[] };
export declare function precisionRows(labelled: ReadonlyArray<KeyedFinding & { label: boolean }>, registry: Record<string, { severity: string }>): PrecisionRow[];
export declare function precisionByRule(rows: readonly PrecisionRow[]): Map<string, PrecisionRow>;
export declare function formatPrecision(row: { true: number; findings: number }): string;
export declare function precisionCell(row: PrecisionRow | undefined): string;
export declare function formatTable(rows: readonly PrecisionRow[]): string;
