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

/** MurmurHash3 x86 32-bit, seed 0, of bytes: written again from the algorithm, byte by byte. */
function murmur3(bytes: Uint8Array): number {
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const mul = (a: number, b: number) => Number((BigInt(a) * BigInt(b)) & 0xffffffffn);
  let h = 0;
  const blocks = Math.floor(bytes.length / 4);
  for (let b = 0; b < blocks; b++) {
    let k = bytes[4 * b]! + bytes[4 * b + 1]! * 256 + bytes[4 * b + 2]! * 65536 +
      bytes[4 * b + 3]! * 16777216;
    k = mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593);
    h = (rotl((h ^ k) >>> 0, 13) * 5 + 0xe6546b64) % 4294967296;
  }
  let k = 0;
  const rest = bytes.length % 4;
  for (let i = rest - 1; i >= 0; i--) k = k * 256 + bytes[4 * blocks + i]!;
  if (rest > 0) h = (h ^ mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593)) >>> 0;
  h = (h ^ bytes.length) >>> 0;
  h = mul((h ^ (h >>> 16)) >>> 0, 0x85ebca6b);
  h = mul((h ^ (h >>> 13)) >>> 0, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The bucket of a value for a rollout, as docs/bundle-format.md says; null when it has none. */
export function referenceBucket(node: Obj, value: unknown): number | null {
  let text: string;
  if (typeof value === "string" && value !== "") text = value;
  else if (
    typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 2 ** 53 - 1
  ) text = value === 0 ? "0" : value.toString(10);
  else return null;
  const h = murmur3(new TextEncoder().encode(`${node.salt}:${text}`));
  return node.bucketing === "mod100" ? h % 100 : (h / 2 ** 32) * 100;
}

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

/** SemVer §11 precedence of two version strings (null when one is not a version). */
function semverOrder(a: string, b: string): number | null {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (x === null || y === null) return null;
  for (let i = 1; i <= 3; i++) {
    const d = BigInt(x[i]!) - BigInt(y[i]!);
    if (d !== 0n) return d < 0n ? -1 : 1;
  }
  if (x[4] === undefined || y[4] === undefined) {
    return x[4] === y[4] ? 0 : x[4] === undefined ? 1 : -1;
  }
  const p = x[4].split(".");
  const q = y[4].split(".");
  for (let i = 0; i < Math.max(p.length, q.length); i++) {
    if (p[i] === undefined) return -1;
    if (q[i] === undefined) return 1;
    const pn = /^\d+$/.test(p[i]!);
    const qn = /^\d+$/.test(q[i]!);
    if (pn && qn) {
      const d = BigInt(p[i]!) - BigInt(q[i]!);
      if (d !== 0n) return d < 0n ? -1 : 1;
    } else if (pn !== qn) {
      return pn ? -1 : 1;
    } else if (p[i] !== q[i]) {
      return p[i]! < q[i]! ? -1 : 1;
    }
  }
  return 0;
}

/** The tokens of a like pattern (a literal code unit, or STAR), or null when it ends in a lone `\`. */
const STAR = Symbol("*");
function likeTokens(pattern: string): (string | symbol)[] | null {
  const tokens: (string | symbol)[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") {
      if (i + 1 === pattern.length) return null;
      tokens.push(pattern[++i]!);
    } else tokens.push(pattern[i] === "*" ? STAR : pattern[i]!);
  }
  return tokens;
}

/** Whether the whole text matches the tokens: the textbook table, O(n·m). */
function likeMatch(tokens: (string | symbol)[], text: string): boolean {
  let row = [true];
  for (let j = 1; j <= text.length; j++) row.push(false);
  for (const token of tokens) {
    const next = [token === STAR && row[0]!];
    for (let j = 1; j <= text.length; j++) {
      next.push(token === STAR ? next[j - 1]! || row[j]! : row[j - 1]! && text[j - 1] === token);
    }
    row = next;
  }
  return row[text.length]!;
}

/** Whether a condition of an operator added after the spec's is well formed (else it is false). */
function wellFormedAdded(node: Obj): boolean {
  if (typeof node.path !== "string") return false;
  const percent = (v: unknown) => typeof v === "number" && v >= 0 && v <= 100;
  switch (node.op) {
    case "contains":
      return isPrimitive(node.value);
    case "containsAny":
    case "containsAll":
      return Array.isArray(node.values) && node.values.length > 0 &&
        node.values.every(isPrimitive);
    case "startsWith":
    case "endsWith":
      return typeof node.value === "string";
    case "like":
      return typeof node.pattern === "string" && [...node.pattern].length <= 1024 &&
        likeTokens(node.pattern) !== null;
    case "semver":
      return ["eq", "neq", "gt", "gte", "lt", "lte"].includes(node.cmp as string) &&
        typeof node.value === "string" && SEMVER.test(node.value);
    case "rollout": {
      const from = node.from === undefined ? 0 : node.from;
      return typeof node.salt === "string" && node.salt !== "" && percent(node.to) &&
        percent(from) && (from as number) <= (node.to as number) &&
        [undefined, "fraction", "mod100"].includes(node.bucketing as string);
    }
    default:
      return false;
  }
}

const ADDED = [
  "contains",
  "containsAny",
  "containsAll",
  "startsWith",
  "endsWith",
  "like",
  "semver",
  "rollout",
];

/** A condition of an operator added after the spec's, as docs/bundle-format.md's table says. */
function referenceAdded(node: Obj, context: Obj): boolean {
  if (!wellFormedAdded(node)) return false;
  const v = resolve(context, node.path as string);
  const hasEqual = (list: unknown[], x: unknown) => list.some((item) => item === x);
  switch (node.op) {
    case "contains":
      return Array.isArray(v) && hasEqual(v, node.value);
    case "containsAny":
      return Array.isArray(v) && (node.values as unknown[]).some((x) => hasEqual(v, x));
    case "containsAll":
      return Array.isArray(v) && (node.values as unknown[]).every((x) => hasEqual(v, x));
    case "startsWith":
      return typeof v === "string" && v.slice(0, (node.value as string).length) === node.value;
    case "endsWith": {
      const suffix = node.value as string;
      return typeof v === "string" && v.length >= suffix.length &&
        v.slice(v.length - suffix.length) === suffix;
    }
    case "like":
      return typeof v === "string" && likeMatch(likeTokens(node.pattern as string)!, v);
    case "semver": {
      if (typeof v !== "string") return false;
      const order = semverOrder(v, node.value as string);
      if (order === null) return false;
      return ({
        eq: order === 0,
        neq: order !== 0,
        gt: order > 0,
        gte: order >= 0,
        lt: order < 0,
        lte: order <= 0,
      } as Record<string, boolean>)[node.cmp as string]!;
    }
    default: {
      const bucket = referenceBucket(node, v);
      const from = node.from === undefined ? 0 : node.from as number;
      return bucket !== null && from <= bucket && bucket < (node.to as number);
    }
  }
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
      return ADDED.includes(op as string) && referenceAdded(node, context);
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
    return `[${Array.from(v, (x) => previewText(x, depth + 1)).join(", ")}]`;
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
  const known = ["eq", "neq", "ne", "gt", "gte", "lt", "lte", "in", "exists", ...ADDED].includes(
    op,
  );
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
    case "contains":
    case "startsWith":
    case "endsWith":
      return leaf(traced(node.value), null, null);
    case "containsAny":
    case "containsAll": {
      const values = node.values as unknown[];
      return leaf(values.slice(0, MAX_VALUES).map(traced), values.length, null);
    }
    case "like":
      return leaf(traced(node.pattern), null, null);
    case "semver":
      return { ...(leaf(traced(node.value), null, null) as Obj), cmp: node.cmp } as Json;
    case "rollout": {
      const bucket = referenceBucket(node, read);
      return {
        ...(leaf(null, null, null) as Obj),
        rollout: {
          salt: traced(node.salt),
          from: node.from === undefined ? 0 : node.from,
          to: node.to,
          bucketing: node.bucketing === undefined ? "fraction" : node.bucketing,
        },
        bucket,
      } as Json;
    }
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
