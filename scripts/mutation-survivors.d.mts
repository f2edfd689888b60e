/** Types of mutation-survivors.mjs for the tests that import it. */
export interface MutationReport {
  files: Record<
    string,
    {
      source: string;
      mutants: Array<{
        mutatorName: string;
        replacement?: string;
        status: string;
        location: { start: { line: number; column: number }; end: { line: number; column: number } };
      }>;
    }
  >;
}

/** A mutant as the report and an accepted entry both name it. */
export interface MutantPlace {
  file: string;
  line: number;
  column: number;
  mutator: string;
  /** The source text the mutant replaced. */
  original: string;
  replacement: string;
}

export interface ReportedMutant extends MutantPlace {
  status: string;
}

export interface AcceptedSurvivor extends MutantPlace {
  reason: string;
}

export interface AcceptedSurvivors {
  module: string;
  survivors: AcceptedSurvivor[];
}

export interface SurvivorCheck {
  counts: { mutants: number; killed: number; timeout: number; survived: number; noCoverage: number; compileError: number };
  accepted: number;
  score: number;
  explainedScore: number;
  unexplained: ReportedMutant[];
  stale: AcceptedSurvivor[];
  unjudged: AcceptedSurvivor[];
}

export declare function reportedMutants(report: MutationReport): ReportedMutant[];
export declare function checkSurvivors(report: MutationReport, accepted: AcceptedSurvivors, options?: { partial?: boolean }): SurvivorCheck;
export declare function formatCheck(module: string, result: SurvivorCheck): string;
