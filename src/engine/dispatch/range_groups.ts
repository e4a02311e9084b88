// This module is browser compatible.
/**
 * The index of a program's ordering tests on one path (`gt`, `gte`, `lt`,
 * `lte`, and the intervals of `and`/`or` of them): the bounds of their
 * intervals, sorted, cut the number line into regions (each bound a region
 * of its own, and the open intervals between): within a region, the same
 * tests can be true. Each region keeps the numbers of the instructions whose
 * interval holds it, ascending; an evaluation finds the region of the value
 * read with one binary search. A group holds at most {@link GROUP_SIZE}
 * intervals (a path with more has several groups), so that its regions'
 * lists stay small: their total is at most about `GROUP_SIZE²`, and memory
 * grows linearly with the tests.
 *
 * @module
 */

/** Intervals per group, at most. */
export const GROUP_SIZE = 32;

/** An interval of an instruction's test: `low <(=) x <(=) high`. */
export interface Interval {
  readonly instruction: number;
  readonly low: number;
  readonly lowOpen: boolean;
  readonly high: number;
  readonly highOpen: boolean;
}

/** One group of a path's intervals (see the module's description). */
export class RangeGroup {
  constructor(
    /** The distinct finite bounds, ascending. */
    readonly bounds: Float64Array,
    /**
     * Per region (2 × bounds + 1: below the first bound, the first bound,
     * between the first and the second, …, above the last), the
     * instructions it admits, ascending. Equal neighbours share one array.
     */
    readonly regions: readonly Int32Array[],
  ) {}
}

/** The groups of a path's intervals (given in ascending instruction order). */
export function rangeGroups(intervals: readonly Interval[]): RangeGroup[] {
  const groups: RangeGroup[] = [];
  for (let i = 0; i < intervals.length; i += GROUP_SIZE) {
    groups.push(group(intervals.slice(i, i + GROUP_SIZE)));
  }
  return groups;
}

function group(intervals: readonly Interval[]): RangeGroup {
  const finite = new Set<number>();
  for (const { low, high } of intervals) {
    if (low !== -Infinity) finite.add(low === 0 ? 0 : low); // -0 and 0: one bound
    if (high !== Infinity) finite.add(high === 0 ? 0 : high);
  }
  const bounds = Float64Array.from([...finite].sort((a, b) => a - b));
  const regions: Int32Array[] = [];
  let previous: Int32Array | null = null;
  for (let r = 0; r <= bounds.length * 2; r++) {
    const admitted: number[] = [];
    for (const interval of intervals) {
      if (holds(interval, bounds, r) && admitted.at(-1) !== interval.instruction) {
        admitted.push(interval.instruction);
      }
    }
    const list: Int32Array = previous !== null && sameList(previous, admitted)
      ? previous
      : Int32Array.from(admitted);
    regions.push(list);
    previous = list;
  }
  return new RangeGroup(bounds, regions);
}

/**
 * Whether region `r` lies in the interval. A region between two bounds is
 * open and holds neither, and every bound of an interval is one of the
 * group's: it lies wholly inside or wholly outside.
 */
function holds(interval: Interval, bounds: Float64Array, r: number): boolean {
  const { low, lowOpen, high, highOpen } = interval;
  if ((r & 1) === 1) {
    const x = bounds[r >> 1]!;
    return (lowOpen ? low < x : low <= x) && (highOpen ? x < high : x <= high);
  }
  const below = r === 0 ? -Infinity : bounds[(r >> 1) - 1]!;
  const above = r === bounds.length * 2 ? Infinity : bounds[r >> 1]!;
  return low <= below && above <= high;
}

function sameList(list: Int32Array, numbers: readonly number[]): boolean {
  if (list.length !== numbers.length) return false;
  for (let i = 0; i < list.length; i++) if (list[i] !== numbers[i]) return false;
  return true;
}

/** The instructions admitted for the number `x` (finite). */
export function admittedAt(group: RangeGroup, x: number): Int32Array {
  const bounds = group.bounds;
  // The number of bounds below x.
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return group.regions[lo < bounds.length && bounds[lo] === x ? 2 * lo + 1 : 2 * lo]!;
}
