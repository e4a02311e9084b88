// This module is browser compatible.
// The trie in which sharedConditionCompiler finds identical conditions again:
// keyed part by part by exactly what compiling reads of a condition (operator,
// path, value with its type, the children's shared tests). No key string is
// built, so sharing costs a few map lookups per condition node.

/** A path or value that compiles like any other of its kind: not a string, or not a primitive. */
const OTHER = Symbol("other");
/** An optional field left out (which compiles to its default, unlike a malformed value). */
const ABSENT = Symbol("absent");
/** The end of a list of values or children. */
const END = Symbol("end");
/** `in` (and `containsAny`, `containsAll`) lists longer than this are compiled on their own. */
const MAX_SHARED_IN_VALUES = 64;

/** A trie node: the value recorded for the parts that lead here, and the next parts. */
export class TrieNode<T> {
  value: T | undefined = undefined;
  #next: Map<unknown, TrieNode<T>> | null = null;

  /** The node after `part` (a primitive, a symbol or a shared test); made when missing. */
  at(part: unknown): TrieNode<T> {
    const next = this.#next ??= new Map();
    let node = next.get(part);
    if (node === undefined) next.set(part, node = new TrieNode());
    return node;
  }

  /** The node after every part of `parts` in turn, then an end mark (so lists nest unambiguously). */
  atEach(parts: readonly unknown[]): TrieNode<T> {
    return parts.reduce<TrieNode<T>>((node, part) => node.at(part), this).at(END);
  }
}

/**
 * The node of a leaf condition (one that reads the context, no children):
 * its operator (`ne` as `neq`), its path, and its value or values with their
 * types. Map keys keep `"5"`, `5` and `true` apart and `0` and `-0` together,
 * as the comparisons do. Unknown operators all compile to false: one node.
 */
export function leafNode<T>(root: TrieNode<T>, node: Record<string, unknown>): TrieNode<T> {
  const op = node.op;
  switch (op) {
    case "eq":
    case "neq":
    case "ne":
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return root.at(op === "ne" ? "neq" : op).at(pathPart(node.path)).at(valuePart(node.value));
    case "in": {
      const at = root.at(op).at(pathPart(node.path));
      const values = node.values;
      if (!Array.isArray(values)) return at.at(OTHER);
      // A long list is not shared: a trie node per value would cost more than
      // the list's own test, and a hostile bundle could hold millions.
      if (values.length > MAX_SHARED_IN_VALUES) return new TrieNode();
      let list = at;
      for (let i = 0; i < values.length; i++) list = list.at(valuePart(values[i]));
      return list.at(END);
    }
    case "exists":
      return root.at(op).at(pathPart(node.path));
    case "contains":
    case "startsWith":
    case "endsWith":
      return root.at(op).at(pathPart(node.path)).at(valuePart(node.value));
    case "containsAny":
    case "containsAll": {
      const at = root.at(op).at(pathPart(node.path));
      const values = node.values;
      if (!Array.isArray(values)) return at.at(OTHER);
      if (values.length > MAX_SHARED_IN_VALUES) return new TrieNode();
      return at.atEach(values.map(valuePart));
    }
    case "like":
      return root.at(op).at(pathPart(node.path)).at(valuePart(node.pattern));
    case "semver":
      return root.at(op).at(pathPart(node.path)).at(valuePart(node.cmp)).at(valuePart(node.value));
    case "rollout":
      // An absent `from` or `bucketing` is its own part (not 0 or "fraction"): identical tests
      // then stand for conditions written alike (`_bundle_builder.ts` keeps one of them).
      return root.at(op).at(pathPart(node.path)).at(valuePart(node.salt))
        .at(optionalPart(node.from)).at(valuePart(node.to)).at(optionalPart(node.bucketing));
    default:
      return root.at(OTHER);
  }
}

function optionalPart(value: unknown): unknown {
  return value === undefined ? ABSENT : valuePart(value);
}

function pathPart(path: unknown): unknown {
  return typeof path === "string" ? path : OTHER;
}

/** Objects, arrays and absent values never compare equal to anything: they are all one part. */
function valuePart(value: unknown): unknown {
  return value === null || typeof value === "string" || typeof value === "number" ||
      typeof value === "boolean"
    ? value
    : OTHER;
}
