// This module is browser compatible.
/**
 * Conditions explained for traces (`docs/bundle-format.md`, "Traces"):
 * {@link describeCondition} describes a `when` as written, node by node;
 * {@link explanationOf} compiles that description into a program, and
 * {@link explainCondition} runs it against a request and returns the
 * {@link ConditionTrace}. A program reads each path through the compiled
 * bundle's path table (own properties of plain objects only, as the
 * compiled tests do), compares as `_compile_condition.ts` does, and tests
 * every child of `and`/`or` (no short-circuit: a trace shows every leaf).
 * Programs are made on a target's first trace (`_trace_plan.ts`), so
 * `evaluate` never pays for them.
 *
 * @module
 */
import {
  type ConditionDescription,
  type ConditionTrace,
  type LeafDescription,
  type LeafTrace,
  MAX_TRACED_STRING,
  MAX_TRACED_VALUES,
  type TracedValue,
  type TracedValueSummary,
} from "./condition_trace.ts";
import {
  isConditionValue,
  isPlainObject,
  isRecord,
  MAX_CONDITION_DEPTH,
  toComparableNumber,
} from "../_internal/guards.ts";
import { type PathTable, readPath } from "./_path_table.ts";
import { compareLeaf, leafOperation, NEVER, ROLLOUT } from "./_condition_code.ts";
import type { Test } from "./compile_condition.ts";
import { rolloutBucket, type RolloutOperand } from "./operators/rollout.ts";
import { checkedConditionProblems } from "./operators/checked_condition.ts";
import { ADDED_OPERATORS } from "../public/vocabulary.ts";

/** The operators of leaves (`ne` is the legacy spelling of `neq`). */
const LEAF_OPERATORS = new Set<string>([
  "eq",
  "neq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "exists",
  ...ADDED_OPERATORS,
]);

/**
 * A condition as written, node by node, with what makes a node false
 * whatever the context. Nesting beyond `MAX_CONDITION_DEPTH` (which no
 * compiled bundle has: compiling refuses it) is described as invalid.
 */
export function describeCondition(node: unknown, depth = 1): ConditionDescription {
  if (depth > MAX_CONDITION_DEPTH) {
    return { kind: "invalid", op: null, problem: `nested over ${MAX_CONDITION_DEPTH} deep` };
  }
  if (!isRecord(node)) {
    return { kind: "invalid", op: null, problem: "not an object" };
  }
  const op = node.op;
  if (typeof op !== "string") return { kind: "invalid", op: null, problem: "no op" };
  switch (op) {
    case "and":
    case "or": {
      const list = node.conditions !== undefined ? node.conditions : node.args;
      if (!Array.isArray(list) || list.length === 0) {
        return { kind: "invalid", op, problem: `${op} without a non-empty conditions list` };
      }
      return { kind: op, conditions: list.map((child) => describeCondition(child, depth + 1)) };
    }
    case "not": {
      const child = node.condition !== undefined ? node.condition : node.arg;
      if (!isRecord(child)) return { kind: "invalid", op, problem: "not without a condition" };
      return { kind: "not", condition: describeCondition(child, depth + 1) };
    }
  }
  if (typeof node.path !== "string") {
    return {
      kind: "invalid",
      op,
      problem: LEAF_OPERATORS.has(op) ? `${op} without a string path` : `unknown operator ${op}`,
    };
  }
  return describeLeaf(op, node.path, node);
}

function describeLeaf(op: string, path: string, node: Record<string, unknown>): LeafDescription {
  const leaf = (operand: LeafDescription["operand"], problem: string | null): LeafDescription => ({
    kind: "leaf",
    op,
    path,
    operand,
    operandCount: null,
    problem,
  });
  switch (op) {
    case "eq":
    case "neq":
    case "ne":
      return isConditionValue(node.value)
        ? leaf(tracedValue(node.value), null)
        : leaf(operandOf(node.value), unusable("value", "not a JSON primitive", node.value));
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return Number.isNaN(toComparableNumber(node.value))
        ? leaf(operandOf(node.value), unusable("value", "not a number", node.value))
        : leaf(tracedValue(node.value), null);
    case "in": {
      const values = node.values;
      if (!Array.isArray(values)) {
        return leaf(operandOf(values), unusable("values", "not an array", values));
      }
      const shown: TracedValue[] = [];
      for (let i = 0; i < values.length && i < MAX_TRACED_VALUES; i++) {
        shown.push(tracedValue(values[i]));
      }
      return { ...leaf(shown, null), operandCount: values.length };
    }
    case "exists":
      return leaf(null, null);
    case "contains":
    case "containsAny":
    case "containsAll":
    case "startsWith":
    case "endsWith":
    case "like":
    case "semver":
    case "rollout":
      return describeAddedLeaf(op, node, leaf);
    default:
      return leaf(
        operandOf(node.value !== undefined ? node.value : node.values),
        `unknown operator ${op}: always false`,
      );
  }
}

/**
 * A leaf of an operator added after the specification's. A malformed one
 * (which validation refuses, but `formatCondition` may be shown) is false
 * whatever the context, and says why: the first field that is wrong.
 */
function describeAddedLeaf(
  op: string,
  node: Record<string, unknown>,
  leaf: (operand: LeafDescription["operand"], problem: string | null) => LeafDescription,
): LeafDescription {
  const list = op === "containsAny" || op === "containsAll";
  const written = op === "rollout"
    ? null
    : op === "like"
    ? node.pattern
    : list
    ? node.values
    : node.value;
  const [wrong] = checkedConditionProblems(op, node);
  if (wrong !== undefined) return leaf(operandOf(written), `${wrong.message}: always false`);
  if (list) {
    const values = written as unknown[];
    const shown = values.slice(0, MAX_TRACED_VALUES).map(tracedValue);
    return { ...leaf(shown, null), operandCount: values.length };
  }
  if (op === "semver") return { ...leaf(tracedValue(written), null), cmp: node.cmp as string };
  if (op === "rollout") {
    return {
      ...leaf(null, null),
      rollout: {
        salt: tracedValue(node.salt),
        from: node.from === undefined ? 0 : node.from as number,
        to: node.to as number,
        bucketing: node.bucketing === undefined ? "fraction" : node.bucketing as string,
      },
    };
  }
  return leaf(tracedValue(written), null);
}

/** A leaf's operand as written: missing is shown as such (null is the JSON value null). */
function operandOf(value: unknown): TracedValue {
  return value === undefined
    ? { type: "missing", preview: "(missing)", length: null }
    : tracedValue(value);
}

/** Why a leaf's operand makes it false whatever the context. */
function unusable(field: string, what: string, value: unknown): string {
  return `${field} is ${value === undefined ? "missing" : what}: always false`;
}

/**
 * A condition compiled for explanation: a tree of steps that
 * {@link explainCondition} walks with direct calls (no closure per node).
 */
export type ExplanationProgram = Step;

/** Opcodes of {@link Step}: the leaf comparisons, then the other nodes. */
const LEAF = 0, AND = 1, OR = 2, NOT = 3, INVALID = 4;

/** One node of an {@link ExplanationProgram}. Every step has every field (one shape). */
interface Step {
  readonly op: number;
  /** A leaf's description (a malformed one too); null for other nodes. */
  readonly leaf: LeafDescription | null;
  /** An invalid node's `op` and problem. */
  readonly invalidOp: string | null;
  readonly problem: string;
  /** AND, OR: the children; NOT: the one child. Empty for the rest. */
  readonly children: readonly Step[];
  /** A leaf's path slot. */
  readonly slot: number;
  /** A leaf's comparison (`_condition_code.ts`); NEVER for a malformed leaf. */
  readonly kind: number;
  readonly operand: unknown;
}

/**
 * The explanation programs of a compiled bundle, shared between rules whose
 * conditions compiled to the same test (so they behave the same) and are
 * described the same (so they read the same: `ne` and `neq` share a test,
 * not a program): many targets with the same conditions share their
 * programs and the descriptions they hold, as they share compiled tests.
 */
export type ExplainerCache = Map<Test, Map<string, ExplanationProgram>>;

/**
 * The explanation program of a rule's `when`, whose compiled test is
 * `test`, from `cache` when one was made for the same test and description.
 */
export function explanationOf(
  when: unknown,
  test: Test,
  paths: PathTable,
  cache: ExplainerCache,
): ExplanationProgram {
  const description = describeCondition(when);
  const key = JSON.stringify(description);
  let described = cache.get(test);
  if (described === undefined) cache.set(test, described = new Map());
  let program = described.get(key);
  if (program === undefined) described.set(key, program = compileStep(description, when, paths));
  return program;
}

const NO_STEP: Step = {
  op: INVALID,
  leaf: null,
  invalidOp: null,
  problem: "",
  children: [],
  slot: -1,
  kind: NEVER,
  operand: null,
};

/** The step of `description` (made from `node`, the condition as written). */
function compileStep(description: ConditionDescription, node: unknown, paths: PathTable): Step {
  switch (description.kind) {
    case "invalid":
      return { ...NO_STEP, invalidOp: description.op, problem: description.problem };
    case "not": {
      const raw = node as Record<string, unknown>;
      const child = raw.condition !== undefined ? raw.condition : raw.arg;
      return { ...NO_STEP, op: NOT, children: [compileStep(description.condition, child, paths)] };
    }
    case "and":
    case "or": {
      const raw = node as Record<string, unknown>;
      const list = (raw.conditions !== undefined ? raw.conditions : raw.args) as unknown[];
      return {
        ...NO_STEP,
        op: description.kind === "and" ? AND : OR,
        children: description.conditions.map((d, i) => compileStep(d, list[i], paths)),
      };
    }
    case "leaf": {
      const leaf = description;
      const raw = node as Record<string, unknown>;
      const operation = leaf.problem === null ? leafOperation(raw) : null;
      return {
        ...NO_STEP,
        op: LEAF,
        leaf,
        slot: paths.slotOf(leaf.path),
        kind: operation === null ? NEVER : operation.kind,
        operand: operation === null ? null : operation.operand,
      };
    }
  }
}

/**
 * Tests a request against a condition's program and explains it. Every
 * leaf is read through the path table (a trace tests every leaf, so many
 * read the same path: each is read, and its ownership proven, once per
 * trace) and compared with the semantics of `_compile_condition.ts`
 * (docs/bundle-format.md "Conditions"); `and`/`or` test every child.
 * Recursion is bounded: conditions nest at most `MAX_CONDITION_DEPTH` deep.
 */
export function explainCondition(
  step: Step,
  paths: PathTable,
  ctx: Record<string, unknown>,
): ConditionTrace {
  const op = step.op;
  if (op === LEAF) return leafTrace(step, readPath(paths, step.slot, ctx));
  if (op === NOT) {
    const condition = explainCondition(step.children[0]!, paths, ctx);
    return { kind: "not", condition, outcome: !condition.outcome };
  }
  if (op === INVALID) return invalidTrace(step);
  const all = op === AND;
  const children = step.children;
  const n = children.length;
  if (n === 2) {
    // The most common group, without a loop.
    const a = explainCondition(children[0]!, paths, ctx);
    const b = explainCondition(children[1]!, paths, ctx);
    const outcome = all ? a.outcome && b.outcome : a.outcome || b.outcome;
    return { kind: all ? "and" : "or", conditions: [a, b], outcome };
  }
  // At its final length: never grown.
  const conditions: ConditionTrace[] = new Array(n);
  let outcome = all;
  for (let i = 0; i < n; i++) {
    const child = explainCondition(children[i]!, paths, ctx);
    conditions[i] = child;
    if (child.outcome !== all) outcome = !all;
  }
  return { kind: all ? "and" : "or", conditions, outcome };
}

function invalidTrace(step: Step): ConditionTrace {
  return { kind: "invalid", op: step.invalidOp, problem: step.problem, outcome: false };
}

/** A leaf's trace for the value read at its path (undefined: absent). */
function leafTrace(step: Step, v: unknown): ConditionTrace {
  const outcome = compareLeaf(step.kind, v, step.operand);
  const leaf = step.leaf!;
  const trace: LeafTrace = {
    kind: "leaf",
    op: leaf.op,
    path: leaf.path,
    operand: leaf.operand,
    operandCount: leaf.operandCount,
    problem: leaf.problem,
    value: v === undefined ? null : tracedValue(v),
    absent: v === undefined,
    outcome,
  };
  if (leaf.cmp !== undefined) trace.cmp = leaf.cmp;
  if (leaf.rollout !== undefined) trace.rollout = leaf.rollout;
  if (step.kind === ROLLOUT) {
    const bucket = rolloutBucket(step.operand as RolloutOperand, v);
    trace.bucket = bucket < 0 ? null : bucket;
  }
  return trace;
}

/** A value as a trace shows it (see {@link TracedValue}). */
export function tracedValue(value: unknown): TracedValue {
  switch (typeof value) {
    case "string":
      return value.length <= MAX_TRACED_STRING ? value : summary("string", value, value.length);
    case "number":
      // JSON has no -0: shown as 0, so that a trace survives a JSON round trip.
      return value === 0 ? 0 : Number.isFinite(value) ? value : summary("number", value, null);
    case "boolean":
      return value;
    case "object":
      if (value === null) return null;
      return Array.isArray(value)
        ? summary("array", value, value.length)
        : summary("object", value, null);
    default:
      return summary(typeof value, value, null);
  }
}

function summary(type: string, value: unknown, length: number | null): TracedValueSummary {
  const preview = new Preview();
  preview.write(value, 0);
  return { type, preview: preview.complete ? preview.text : `${preview.text}…`, length };
}

/** How deep a preview shows objects and arrays inside the value. */
const PREVIEW_DEPTH = 2;

/** The beginning of a value's JSON text, written until {@link MAX_TRACED_STRING} characters. */
class Preview {
  text = "";
  complete = true;

  add(part: string): void {
    if (!this.complete) return;
    const room = MAX_TRACED_STRING - this.text.length;
    if (part.length <= room) {
      this.text += part;
    } else {
      this.text += part.slice(0, room);
      this.complete = false;
    }
  }

  write(value: unknown, depth: number): void {
    if (!this.complete) return;
    switch (typeof value) {
      case "string":
        // Cut before quoting: a long string is never copied whole.
        this.add(JSON.stringify(value.slice(0, MAX_TRACED_STRING + 1)));
        return;
      case "number":
        this.add(Number.isFinite(value) ? JSON.stringify(value) : String(value));
        return;
      case "boolean":
        this.add(String(value));
        return;
      case "bigint":
        this.add(String(value).slice(0, MAX_TRACED_STRING + 1));
        return;
      case "object":
        break;
      default:
        this.add(typeof value);
        return;
    }
    if (value === null) return this.add("null");
    if (Array.isArray(value)) {
      if (depth >= PREVIEW_DEPTH) return this.add(value.length === 0 ? "[]" : "[…]");
      this.add("[");
      for (let i = 0; i < value.length && this.complete; i++) {
        if (i > 0) this.add(", ");
        this.write(value[i], depth + 1);
      }
      return this.add("]");
    }
    if (!isPlainObject(value)) return this.add("(not a plain object)");
    if (depth >= PREVIEW_DEPTH) return this.add("{…}");
    this.add("{");
    let first = true;
    // Own keys only, and no more of them than the preview shows: for…in stops with it.
    for (const key in value) {
      if (!this.complete) break;
      if (!Object.hasOwn(value, key)) continue;
      if (!first) this.add(", ");
      first = false;
      this.add(`${JSON.stringify(key.slice(0, MAX_TRACED_STRING + 1))}: `);
      this.write(value[key], depth + 1);
    }
    this.add("}");
  }
}

/**
 * The leaf (or invalid node) that decided that `trace` has `outcome`,
 * the first in order: for `and` false, the first false child's; for `or`
 * false, the first child's (all are false); `not` inverts; true is the
 * mirror. Null when `trace` does not have that outcome.
 */
export function decidingLeaf(trace: ConditionTrace, outcome: boolean): ConditionTrace | null {
  let node = trace;
  let wanted = outcome;
  for (;;) {
    if (node.outcome !== wanted) return null;
    switch (node.kind) {
      case "leaf":
      case "invalid":
        return node;
      case "not":
        node = node.condition;
        wanted = !wanted;
        continue;
      default: {
        // `and` is false by its first false child, `or` true by its first true one; otherwise
        // every child has the group's outcome, and the first stands for them all.
        const children = node.conditions;
        let i = 0;
        while (children[i]!.outcome !== wanted) i++;
        node = children[i]!;
      }
    }
  }
}
