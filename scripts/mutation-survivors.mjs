// Reads a Stryker mutation.json report against a module's accepted survivors
// (test/mutation/accepted-survivors/<module>.json): which survivors no test
// kills and nobody explained, and which accepted entries no longer describe a
// survivor. A mutant and an entry match on file, mutator, original text and
// replacement; line and column only pick between several equal matches, since
// lines drift as the file changes.

/** Statuses a test detected: they count for the score. */
const DETECTED = new Set(["Killed", "Timeout"]);
/** Statuses no test detected: each needs a test or an accepted entry. */
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

/**
 * @typedef {{ file: string, line: number, column: number, mutator: string, original: string, replacement: string, status: string }} ReportedMutant
 * @typedef {{ file: string, line: number, column: number, mutator: string, original: string, replacement: string, reason: string }} AcceptedSurvivor
 * @typedef {{ module: string, survivors: AcceptedSurvivor[] }} AcceptedSurvivors
 */

/**
 * Every mutant of the report with the source text it replaced.
 * @param {{ files: Record<string, { source: string, mutants: Array<{ mutatorName: string, replacement?: string, status: string, location: { start: { line: number, column: number }, end: { line: number, column: number } } }> }> }} report
 * @returns {ReportedMutant[]}
 */
export function reportedMutants(report) {
  const mutants = [];
  for (const [file, entry] of Object.entries(report.files).sort(([a], [b]) => compareText(a, b))) {
    const lines = entry.source.split("\n");
    for (const mutant of entry.mutants) {
      const { start, end } = mutant.location;
      mutants.push({
        file,
        line: start.line,
        column: start.column,
        mutator: mutant.mutatorName,
        original: textBetween(lines, start, end),
        replacement: mutant.replacement ?? "",
        status: mutant.status,
      });
    }
  }
  return mutants.sort((a, b) => compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.mutator, b.mutator));
}

/** Report locations are 1-based lines and columns; the end column is exclusive. */
function textBetween(lines, start, end) {
  if (start.line === end.line) return (lines[start.line - 1] ?? "").slice(start.column - 1, end.column - 1);
  const first = (lines[start.line - 1] ?? "").slice(start.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  const last = (lines[end.line - 1] ?? "").slice(0, end.column - 1);
  return [first, ...middle, last].join("\n");
}

/**
 * The report judged against the accepted survivors.
 * @param {Parameters<typeof reportedMutants>[0]} report
 * @param {AcceptedSurvivors} accepted
 * @param {{ partial?: boolean }} [options] partial: the run mutated only part of the module, so an entry is stale only when the report shows its mutant killed on the entry's line
 */
export function checkSurvivors(report, accepted, options = {}) {
  const mutants = reportedMutants(report);
  const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length;
  const undetected = mutants.filter((mutant) => UNDETECTED.has(mutant.status));
  const counts = {
    mutants: mutants.length,
    killed: mutants.filter((mutant) => mutant.status === "Killed").length,
    timeout: mutants.filter((mutant) => mutant.status === "Timeout").length,
    survived: mutants.filter((mutant) => mutant.status === "Survived").length,
    noCoverage: mutants.filter((mutant) => mutant.status === "NoCoverage").length,
    compileError: mutants.filter((mutant) => mutant.status === "CompileError").length,
  };
  const valid = detected + undetected.length;

  // Each entry explains at most one survivor and each survivor takes at most one entry, the nearest pairs first, so
  // two identical mutants need two entries and line drift never swaps them.
  const same = (mutant, entry) => mutant.file === entry.file && mutant.mutator === entry.mutator && mutant.original === entry.original && mutant.replacement === entry.replacement;
  const pairs = [];
  for (const [entryIndex, entry] of accepted.survivors.entries()) {
    for (const mutant of undetected) if (same(mutant, entry)) pairs.push({ entryIndex, mutant, distance: distance(mutant, entry) });
  }
  pairs.sort((a, b) => a.distance - b.distance || a.entryIndex - b.entryIndex);
  const unmatched = new Set(undetected);
  const matchedEntries = new Set();
  for (const pair of pairs) {
    if (matchedEntries.has(pair.entryIndex) || !unmatched.has(pair.mutant)) continue;
    matchedEntries.add(pair.entryIndex);
    unmatched.delete(pair.mutant);
  }
  const stale = [];
  const unjudged = [];
  for (const [entryIndex, entry] of accepted.survivors.entries()) {
    if (matchedEntries.has(entryIndex)) continue;
    // A partial run judges an entry only when it shows that very mutant killed, on the entry's own line: an equal
    // mutant killed elsewhere (`true` -> `false` is everywhere) says nothing about one the run did not mutate.
    const killedHere = mutants.some((mutant) => same(mutant, entry) && mutant.line === entry.line && DETECTED.has(mutant.status));
    if (options.partial === true && !killedHere) unjudged.push(entry);
    else stale.push(entry);
  }
  const unexplained = undetected.filter((mutant) => unmatched.has(mutant));
  return {
    counts,
    accepted: matchedEntries.size,
    /** Killed and timed-out mutants over all valid ones (compile errors excluded), as Stryker computes it. */
    score: valid === 0 ? 100 : (100 * detected) / valid,
    /** The same with the accepted survivors counted as detected. */
    explainedScore: valid === 0 ? 100 : (100 * (detected + matchedEntries.size)) / valid,
    unexplained,
    stale,
    unjudged,
  };
}

function distance(mutant, entry) {
  return Math.abs(mutant.line - entry.line) * 1000 + Math.abs(mutant.column - entry.column);
}

/** The checker's verdict as the terminal shows it. */
export function formatCheck(module, result) {
  const { counts } = result;
  const out = [
    `mutation module ${module}: score ${result.score.toFixed(2)}% (${counts.mutants} mutants: ${counts.killed} killed, ${counts.timeout} timeout, ${counts.survived} survived, ${counts.noCoverage} no coverage, ${counts.compileError} compile error)`,
    `accepted survivors: ${result.accepted}; score with them counted as detected ${result.explainedScore.toFixed(2)}%`,
  ];
  if (result.unexplained.length > 0) {
    out.push(`${result.unexplained.length} survivor(s) neither killed nor accepted:`);
    for (const mutant of result.unexplained) {
      out.push(`  ${mutant.file}:${mutant.line}:${mutant.column} ${mutant.mutator}${mutant.status === "NoCoverage" ? " (no coverage)" : ""}: ${oneLine(mutant.original)} -> ${oneLine(mutant.replacement)}`);
    }
  }
  if (result.stale.length > 0) {
    out.push(`${result.stale.length} accepted entr${result.stale.length === 1 ? "y matches" : "ies match"} no survivor (killed now, or the code changed): remove or update:`);
    for (const entry of result.stale) out.push(`  ${entry.file}:${entry.line}:${entry.column} ${entry.mutator}: ${oneLine(entry.original)} -> ${oneLine(entry.replacement)}`);
  }
  if (result.unjudged.length > 0) out.push(`${result.unjudged.length} accepted entr${result.unjudged.length === 1 ? "y" : "ies"} outside this partial run, not judged`);
  return out.join("\n");
}

function oneLine(text) {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}

function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
