/**
 * A deliberately naive evaluator written from docs/bundle-format.md alone, sharing no
 * code with the engine: it scans every rule of every policy, interprets
 * conditions recursively and sorts the candidates. Property tests compare the
 * engine against it.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isPlain = (v: unknown): v is Obj =>
  isObj(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
const isPrimitive = (v: unknown) =>
  v === null || typeof v === "string" || typeof v === "boolean" ||
  (typeof v === "number" && Number.isFinite(v));

function resolve(context: Obj, path: string): unknown {
  const segments = (path.startsWith("ctx.") ? path.slice(4) : path).split(".");
  let current: unknown = context;
  for (const segment of segments) {
    if (!isPlain(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function toNumber(v: unknown): number {
  if (typeof v === "number") return Number.isFinite(v) ? v : NaN;
  if (typeof v === "string" && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

export function referenceCondition(node: unknown, context: Obj): boolean {
  if (!isObj(node)) return false;
  const op = node.op;
  const value = () => {
    const v = resolve(context, node.path as string);
    return v === undefined ? null : v;
  };
  switch (op) {
    case "eq":
    case "neq":
    case "ne": {
      if (typeof node.path !== "string" || !isPrimitive(node.value)) return false;
      const equal = value() === node.value;
      return op === "eq" ? equal : !equal;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (typeof node.path !== "string") return false;
      const a = toNumber(resolve(context, node.path));
      const b = toNumber(node.value);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return op === "gt" ? a > b : op === "gte" ? a >= b : op === "lt" ? a < b : a <= b;
    }
    case "in": {
      if (typeof node.path !== "string" || !Array.isArray(node.values)) return false;
      const v = value();
      return node.values.some((x) => isPrimitive(x) && x === v);
    }
    case "exists": {
      if (typeof node.path !== "string") return false;
      const v = resolve(context, node.path);
      return v !== undefined && v !== null;
    }
    case "and":
    case "or": {
      const list = node.conditions !== undefined ? node.conditions : node.args;
      if (!Array.isArray(list) || list.length === 0) return false;
      return op === "and"
        ? list.every((c) => referenceCondition(c, context))
        : list.some((c) => referenceCondition(c, context));
    }
    case "not": {
      const child = node.condition !== undefined ? node.condition : node.arg;
      return isObj(child) ? !referenceCondition(child, context) : false;
    }
    default:
      return false;
  }
}

/** Traces cut strings longer than this, and show this many of an `in` list. */
const MAX_STRING = 64;
const MAX_VALUES = 16;

/** A value as docs/bundle-format.md "Traces" says a trace shows it. */
function traced(v: unknown): Json {
  const summary = (type: string, length: number | null): Json => {
    const text = previewText(v, 0);
    return {
      type,
      preview: text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…` : text,
      length,
    };
  };
  if (v === null || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v + 0 : summary("number", null);
  if (typeof v === "string") return v.length <= MAX_STRING ? v : summary("string", v.length);
  if (Array.isArray(v)) return summary("array", v.length);
  if (typeof v === "object") return summary("object", null);
  return summary(typeof v, null);
}

/** The whole JSON-like text of a preview, two levels of objects and arrays deep. */
function previewText(v: unknown, depth: number): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : String(v);
  if (v === null || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (typeof v !== "object") return typeof v;
  if (Array.isArray(v)) {
    if (depth >= 2) return v.length === 0 ? "[]" : "[…]";
    return `[${v.map((x) => previewText(x, depth + 1)).join(", ")}]`;
  }
  if (!isPlain(v)) return "(not a plain object)";
  if (depth >= 2) return "{…}";
  const entries = Object.keys(v).map((k) =>
    `${JSON.stringify(k)}: ${previewText(v[k], depth + 1)}`
  );
  return `{${entries.join(", ")}}`;
}

/**
 * A condition explained against a context as docs/bundle-format.md "Traces" describes it: every
 * node with its outcome, leaves with what they read, every child of and/or tested.
 */
export function referenceExplain(node: unknown, context: Obj): Json {
  const invalid = (op: unknown, problem: string): Json => ({
    kind: "invalid",
    op: typeof op === "string" ? op : null,
    problem,
    outcome: false,
  });
  if (!isObj(node)) return invalid(null, "not an object");
  const op = node.op;
  if (typeof op !== "string") return invalid(null, "no op");
  if (op === "and" || op === "or") {
    const list = node.conditions !== undefined ? node.conditions : node.args;
    if (!Array.isArray(list) || list.length === 0) {
      return invalid(op, `${op} without a non-empty conditions list`);
    }
    const conditions = list.map((c) => referenceExplain(c, context)) as { outcome: boolean }[];
    const outcome = op === "and"
      ? conditions.every((c) => c.outcome)
      : conditions.some((c) => c.outcome);
    return { kind: op, conditions: conditions as Json[], outcome };
  }
  if (op === "not") {
    const child = node.condition !== undefined ? node.condition : node.arg;
    if (!isObj(child)) return invalid(op, "not without a condition");
    const condition = referenceExplain(child, context) as { outcome: boolean };
    return { kind: "not", condition: condition as Json, outcome: !condition.outcome };
  }
  const known = ["eq", "neq", "ne", "gt", "gte", "lt", "lte", "in", "exists"].includes(op);
  if (typeof node.path !== "string") {
    return invalid(op, known ? `${op} without a string path` : `unknown operator ${op}`);
  }
  const read = resolve(context, node.path);
  const leaf = (operand: Json, operandCount: number | null, problem: string | null): Json => ({
    kind: "leaf",
    op,
    path: node.path as string,
    operand,
    operandCount,
    problem,
    value: read === undefined ? null : traced(read),
    absent: read === undefined,
    outcome: problem === null && referenceCondition(node, context),
  });
  const operandOf = (v: unknown): Json =>
    v === undefined ? { type: "missing", preview: "(missing)", length: null } : traced(v);
  const problem = (field: string, what: string, v: unknown) =>
    `${field} is ${v === undefined ? "missing" : what}: always false`;
  switch (op) {
    case "eq":
    case "neq":
    case "ne":
      return isPrimitive(node.value)
        ? leaf(traced(node.value), null, null)
        : leaf(operandOf(node.value), null, problem("value", "not a JSON primitive", node.value));
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return Number.isNaN(toNumber(node.value))
        ? leaf(operandOf(node.value), null, problem("value", "not a number", node.value))
        : leaf(traced(node.value), null, null);
    case "in":
      return Array.isArray(node.values)
        ? leaf(node.values.slice(0, MAX_VALUES).map(traced), node.values.length, null)
        : leaf(operandOf(node.values), null, problem("values", "not an array", node.values));
    case "exists":
      return leaf(null, null, null);
    default:
      return leaf(
        operandOf(node.value !== undefined ? node.value : node.values),
        null,
        `unknown operator ${op}: always false`,
      );
  }
}

/** The first leaf (or invalid node), in order, whose outcome decided that `node` has `outcome`. */
export function referenceDecidingLeaf(node: Json, outcome: boolean): Json {
  const n = node as { kind: string; outcome: boolean; conditions?: Json[]; condition?: Json };
  if (n.outcome !== outcome) return null;
  if (n.kind === "leaf" || n.kind === "invalid") return node;
  if (n.kind === "not") return referenceDecidingLeaf(n.condition!, !outcome);
  for (const child of n.conditions!) {
    const found = referenceDecidingLeaf(child, outcome);
    if (found !== null) return found;
  }
  return null;
}

interface Candidate {
  effect: Obj;
  customField: "value" | "customEffect";
  priority: number;
  isDefault: boolean;
  policyIndex: number;
  ruleIndex: number;
  policyKey: string;
  ruleId?: string;
}

const STRENGTH = ["kill_switch", "deny", "throttle", "allow", "custom"];

/** A trace as docs/cli.md describes it, without the decision: the slow and obvious way. */
export interface ReferenceTrace {
  policiesSeen: string[];
  rulesSeen: number;
  matchedCount: number;
  rules: Json[];
  candidates: Json[];
}

/** Every candidate that fires, strongest first, with what a trace reports. */
function referenceCandidates(
  bundle: unknown,
  target: { service: string; resource: string; action: string },
  context: Obj,
): { candidates: Candidate[]; trace: ReferenceTrace } {
  const candidates: Candidate[] = [];
  const trace: ReferenceTrace = {
    policiesSeen: [],
    rulesSeen: 0,
    matchedCount: 0,
    rules: [],
    candidates: [],
  };
  (bundle as { policies: Obj[] }).policies.forEach((policy, policyIndex) => {
    const rules = policy.rules as Obj[];
    const naming = rules.filter((r) => {
      const t = r.target as Obj;
      return t.service === target.service && t.resource === target.resource &&
        t.action === target.action;
    });
    if (naming.length === 0) return;
    trace.policiesSeen.push(policy.policyKey as string);
    let fired = false;
    for (const rule of naming) {
      trace.rulesSeen++;
      const seen = {
        policyKey: policy.policyKey as string,
        ruleId: rule.id as string,
        priority: rule.priority as number,
      };
      if (rule.status !== "active") {
        trace.rules.push({
          ...seen,
          outcome: "skipped (disabled)",
          condition: null,
          falseBecause: null,
        });
        continue;
      }
      const condition = rule.when === undefined ? null : referenceExplain(rule.when, context);
      const explained = {
        condition,
        falseBecause: condition === null ? null : referenceDecidingLeaf(condition, false),
      };
      let effect: unknown;
      let outcome: string;
      if (rule.when === undefined) {
        effect = rule.effect;
        outcome = "fired";
      } else if (referenceCondition(rule.when, context)) {
        effect = rule.thenEffect ?? rule.effect;
        outcome = "fired (when_true)";
      } else {
        effect = rule.elseEffect;
        outcome = effect === undefined ? "skipped (when_false)" : "fired (when_false)";
      }
      if (effect === undefined) {
        trace.rules.push({ ...seen, outcome, ...explained });
        continue;
      }
      fired = true;
      trace.matchedCount++;
      trace.rules.push({ ...seen, outcome, effect: (effect as Obj).type as string, ...explained });
      candidates.push({
        effect: effect as Obj,
        customField: "value",
        priority: rule.priority as number,
        isDefault: false,
        policyIndex,
        ruleIndex: rules.indexOf(rule),
        policyKey: policy.policyKey as string,
        ruleId: rule.id as string,
      });
    }
    const d = policy.defaults as Obj | undefined;
    if (!fired && d !== undefined) {
      const ignored = (d.effect === "kill_switch" && d.killSwitch === undefined) ||
        (d.effect === "throttle" && d.throttle === undefined);
      if (!ignored) {
        candidates.push({
          effect: { ...d, type: d.effect },
          customField: "customEffect",
          priority: -1,
          isDefault: true,
          policyIndex,
          ruleIndex: -1,
          policyKey: policy.policyKey as string,
        });
      }
    }
  });
  const rate = (c: Candidate) => {
    const t = c.effect.throttle as Obj;
    return (t.limit as number) / (t.windowSeconds as number);
  };
  candidates.sort((a, b) => {
    const sa = STRENGTH.indexOf(a.effect.type as string);
    const sb = STRENGTH.indexOf(b.effect.type as string);
    if (sa !== sb) return sa - sb;
    if (a.effect.type === "throttle" && rate(a) !== rate(b)) return rate(a) - rate(b);
    if (a.priority !== b.priority) return b.priority - a.priority;
    if (a.isDefault !== b.isDefault) return a.isDefault ? 1 : -1;
    if (a.policyIndex !== b.policyIndex) return a.policyIndex - b.policyIndex;
    return a.ruleIndex - b.ruleIndex;
  });
  trace.candidates = candidates.map((c) => ({
    policyKey: c.policyKey,
    ruleId: c.ruleId ?? "__default__",
    decision: c.effect.type as string,
    priority: c.priority,
    reason: c.isDefault ? "default" : "rule",
  }));
  return { candidates, trace };
}

/** The trace of a request: what docs/cli.md lists, computed the slow way. */
export function referenceTrace(
  bundle: unknown,
  target: { service: string; resource: string; action: string },
  context: Obj,
): ReferenceTrace {
  return referenceCandidates(bundle, target, context).trace;
}

/** The decision docs/bundle-format.md prescribes, computed the slow and obvious way. */
export function referenceEvaluate(
  bundle: unknown,
  target: { service: string; resource: string; action: string },
  context: Obj,
  parseCustomEffect = false,
): Json {
  const { candidates } = referenceCandidates(bundle, target, context);
  const winner = candidates[0];
  if (winner === undefined) return { decision: "deny", reason: "default" };
  const type = winner.effect.type as string;
  const out: Record<string, Json> = {
    decision: type,
    reason: winner.isDefault ? "default" : "rule",
    policyKey: winner.policyKey,
  };
  if (winner.ruleId !== undefined) out.ruleId = winner.ruleId;
  if (type === "throttle") {
    const t = winner.effect.throttle as Obj;
    out.throttle = {
      limit: t.limit as number,
      windowSeconds: t.windowSeconds as number,
      key: t.key as string,
    };
  }
  if (type === "kill_switch") {
    const k = winner.effect.killSwitch as Obj;
    out.killSwitch = k.reason === undefined
      ? { service: k.service as string }
      : { service: k.service as string, reason: k.reason as string };
  }
  if (type === "custom") {
    const value = winner.effect[winner.customField] as string;
    out.value = value;
    if (parseCustomEffect) {
      try {
        out.parsedValue = JSON.parse(value);
      } catch {
        // not JSON: no parsedValue
      }
    }
  }
  return out;
}
