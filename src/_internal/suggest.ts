// This module is browser compatible.
/**
 * "Did you mean" suggestions for mistyped commands, flags, values and field
 * names (the CLI, the clients' option checker, and the `UNKNOWN_FIELD`
 * warnings of `validateBundle`).
 *
 * @module
 */

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of
 * two neighbouring characters (optimal string alignment), so `bulid` is one
 * edit from `build`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The closest candidate to `input` when it is close enough to be a typo
 * (1 edit up to 3 characters, 2 up to 6, else 3), else undefined.
 */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const limit = input.length <= 3 ? 1 : input.length <= 6 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = input.toLowerCase();
  for (const candidate of candidates) {
    // Lengths further apart than the limit cannot be close: skipped before the
    // quadratic distance, so a long hostile name costs nothing.
    if (Math.abs(candidate.length - input.length) > limit) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `; did you mean X?` or an empty string. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = suggest(input, candidates);
  return match === undefined ? "" : `; did you mean ${match}?`;
}
