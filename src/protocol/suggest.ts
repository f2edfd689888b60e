/**
 * "Did you mean" for near misses such as `requireSkills` or `requires_skills`.
 * Case, `-` and `_` are ignored first; then the closest candidate within a
 * small edit distance wins (ties go to the earlier candidate).
 */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  const folded = fold(input);
  const exact = candidates.find((candidate) => fold(candidate) === folded);
  if (exact !== undefined) return exact;
  const limit = Math.max(1, Math.min(3, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(folded, fold(candidate), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean "x"?` or the empty string. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const match = suggest(input, candidates);
  return match === undefined ? "" : `; did you mean "${match}"?`;
}

function fold(text: string): string {
  return text.toLowerCase().replace(/[-_\s]/g, "");
}

/** Optimal string alignment distance (adjacent swaps count as one edit), cut off above `ceiling`. */
export function editDistance(a: string, b: string, ceiling = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) >= ceiling) return ceiling;
  let twoBack: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, column) => column);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    let rowMinimum = row;
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let value = Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, (previous[column - 1] ?? 0) + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        value = Math.min(value, (twoBack[column - 2] ?? 0) + 1);
      }
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum >= ceiling) return ceiling;
    twoBack = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
