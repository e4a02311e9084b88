// This module is browser compatible.
/**
 * A box: a set of contexts given path by path, each path holding a
 * {@link ValueSet} (a path not listed may hold anything). Boxes
 * over-approximate the contexts on which a condition is true, or false:
 * `and` intersects its operands' boxes, `or` widens them into one box (the
 * smallest box holding them all, or more). A box with an empty path holds
 * no context: the condition can never be true (or never false).
 *
 * Correlations between paths (`a` absent makes `a.b` absent) are ignored:
 * that only makes boxes larger, never wrongly empty.
 *
 * @module
 */
import type { ValueSet } from "./_value_set.ts";

/** A set of contexts, path by path. */
export class Box {
  private constructor(
    /** Normalized path → values; a path not listed may hold anything. */
    readonly paths: ReadonlyMap<string, ValueSet>,
    /** When no context is in the box: the path that has no value left ("" when unknown). */
    readonly emptyAt: string | null,
  ) {}

  /** Every context. */
  static readonly TOP: Box = new Box(new Map(), null);

  /** No context, because no value at `path` fits. */
  static empty(path: string): Box {
    return new Box(new Map(), path);
  }

  /** The contexts whose value at `path` is in `values`. */
  static at(path: string, values: ValueSet): Box {
    return values.isEmpty() ? Box.empty(path) : new Box(new Map([[path, values]]), null);
  }

  /** True when the box holds no context. */
  get isEmpty(): boolean {
    return this.emptyAt !== null;
  }

  /** A finished box from paths being built: empty when one of the changed paths is. */
  static finish(paths: Map<string, ValueSet>, changed: Iterable<string>): Box {
    for (const path of changed) if (paths.get(path)!.isEmpty()) return Box.empty(path);
    return new Box(paths, null);
  }
}

/**
 * Builds the intersection of boxes: the contexts in all of them. Costs the
 * sum of the boxes' sizes.
 */
export class Intersection {
  #paths = new Map<string, ValueSet>();
  #owned = new Set<string>();
  #emptyAt: string | null = null;

  /** Intersects with `box`. */
  add(box: Box): void {
    if (this.#emptyAt !== null) return;
    if (box.isEmpty) {
      this.#emptyAt = box.emptyAt;
      return;
    }
    for (const [path, values] of box.paths) {
      const mine = this.#paths.get(path);
      if (mine === undefined) {
        this.#paths.set(path, values);
        continue;
      }
      const owned = this.#owned.has(path) ? mine : mine.clone();
      if (owned !== mine) {
        this.#paths.set(path, owned);
        this.#owned.add(path);
      }
      owned.intersectWith(values);
    }
  }

  /** True when a box added was empty (cheap: says nothing about paths that became empty). */
  get knownEmpty(): boolean {
    return this.#emptyAt !== null;
  }

  /** The intersection; checks every path that two boxes constrained for emptiness. */
  finish(): Box {
    if (this.#emptyAt !== null) return Box.empty(this.#emptyAt);
    return Box.finish(this.#paths, this.#owned);
  }
}

/**
 * Builds a box holding every context of several boxes (their union, widened
 * to a box). Costs the sum of the boxes' sizes.
 */
export class Widening {
  #paths: Map<string, ValueSet> | null = null;
  #owned = new Set<string>();
  #emptyAt: string | null = null;

  /** Widens to hold `box` too. */
  add(box: Box): void {
    if (box.isEmpty) {
      this.#emptyAt ??= box.emptyAt;
      return;
    }
    if (this.#paths === null) {
      this.#paths = new Map(box.paths);
      return;
    }
    // Only paths every box constrains stay constrained: visit the smaller side.
    const mine = this.#paths;
    if (mine.size > box.paths.size) {
      const kept = new Map<string, ValueSet>();
      for (const [path, values] of box.paths) {
        const current = mine.get(path);
        if (current !== undefined) kept.set(path, this.#widen(path, current, values));
      }
      this.#paths = kept;
    } else {
      for (const [path, current] of mine) {
        const values = box.paths.get(path);
        if (values === undefined) mine.delete(path);
        else mine.set(path, this.#widen(path, current, values));
      }
    }
  }

  #widen(path: string, current: ValueSet, values: ValueSet): ValueSet {
    const owned = this.#owned.has(path) ? current : current.clone();
    this.#owned.add(path);
    owned.widenWith(values);
    return owned;
  }

  /** The widened box (empty when every box added was). */
  finish(): Box {
    if (this.#paths === null) return Box.empty(this.#emptyAt ?? "");
    // Widening never empties a path.
    return Box.finish(this.#paths, []);
  }
}
