// The statistics every benchmark reports with, runtime-neutral (the peer
// benchmark also runs under Node): one definition of a quantile for all the
// tables of docs/performance.md.

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
