// The statistics every benchmark reports with, runtime-neutral (the peer
// benchmark also runs under Node): one definition of a quantile, and one of a
// figure measured in rounds, for all the tables of docs/performance.md.
//
// The method (docs/performance.md "Method"): every figure compared is measured
// in the same number of interleaved rounds, each side of a ratio in every
// round; a table shows the median over the rounds and their spread (lowest
// and highest round). A ratio is computed round by round (both sides measured
// in the same round, moments apart) and then summarised the same way.

/** The `q` quantile of `values` (0 ≤ q ≤ 1), interpolated between the two nearest. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** A figure measured in rounds: the median over the rounds, and their spread. */
export interface Spread {
  /** The figure of the tables. */
  median: number;
  /** The lowest and the highest round. */
  min: number;
  max: number;
  /** Rounds summarised. */
  rounds: number;
}

/** The median and spread of one figure's rounds. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("no rounds to summarise");
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    rounds: values.length,
  };
}

/**
 * The ratio `a / b` measured round by round (`a[i]` and `b[i]` come from the
 * same round), summarised: the median of the per-round ratios and their
 * spread. Undefined when the two were not measured in the same rounds.
 */
export function ratioSpread(a: readonly number[], b: readonly number[]): Spread | undefined {
  if (a.length === 0 || a.length !== b.length) return undefined;
  return spread(a.map((value, i) => value / b[i]!));
}

/** A ratio for tables: two decimals under 10, whole above. */
export function formatRatio(ratio: number): string {
  return ratio >= 10 ? `${ratio.toFixed(0)}×` : `${ratio.toFixed(2)}×`;
}

/** A ratio with its spread: `2.10× (1.95–2.30)`. */
export function formatRatioSpread(s: Spread): string {
  if (s.rounds === 1) return formatRatio(s.median);
  return `${formatRatio(s.median)} (${formatRatio(s.min).slice(0, -1)}–${formatRatio(s.max)})`;
}
