/// <reference lib="dom" />
/**
 * The Why view: the engine's trace of the request (`traceEvaluation`), the
 * candidates strongest first, each rule naming the target with its outcome,
 * and each rule's condition. Where the engine's trace explains a condition
 * leaf by leaf (the path, the value read, the outcome), each leaf shows it;
 * otherwise the condition is shown as written.
 *
 * @module
 */
import {
  type CandidateTrace,
  type Condition,
  type EvaluationTrace,
  type RuleTrace,
  traceEvaluation,
} from "../src/engine/mod.ts";
import type { App } from "./app_state.ts";
import { byId, h, linkButton, show, table } from "./_dom.ts";
import { ruleKey, type RuleSite, ruleSites } from "./document_model.ts";
import { decisionBadge, targetText } from "./request_panel.ts";
import { decidedBy } from "./decision_kind.ts";

/**
 * One node of a condition as the view shows it. `outcome` and `read` are
 * present when the engine's trace explains the condition (its leaves' values
 * and results); a condition shown as written has neither.
 */
export interface ConditionNode {
  /** The node in words: `and`, `ctx.plan in ["pro"]`, `seats > 5`. */
  text: string;
  /** The node's result, when traced. */
  outcome?: boolean;
  /** For a traced leaf: the path read and the value found there (absent: nothing there). */
  read?: { path: string; found: boolean; value?: unknown };
  children: ConditionNode[];
}

/** A traced rule, with its condition's trace when the engine gives one. */
type TracedRule = RuleTrace & { condition?: unknown };

/** Wires the Why view to the app. */
export function whyPanel(app: App): void {
  const root = byId("why");
  app.subscribe((changed) => {
    if (changed.has("model") || changed.has("target") || changed.has("contextText")) render();
  });

  function render(): void {
    const { model, target } = app.state;
    if (model.compiled === null) {
      show(root, h("p", null, "Nothing to explain: the document cannot be evaluated yet."));
      return;
    }
    const result = app.request();
    if (result.request === null) {
      show(root, h("p", null, "Nothing to explain: the context is not a JSON object."));
      return;
    }
    let trace: EvaluationTrace;
    try {
      trace = traceEvaluation(model.compiled, result.request);
    } catch (error) {
      show(root, h("p", null, (error as Error).message));
      return;
    }
    const sites = ruleSites(model.compiled.bundle);
    const jump = (policyKey: string, ruleId: string) => {
      const site = sites.get(ruleKey(policyKey, ruleId));
      return site === undefined ? `${policyKey}/${ruleId}` : linkButton(
        `${policyKey}/${ruleId}`,
        () => app.revealPointer(site.pointer),
        "(show it in the editor)",
      );
    };
    show(
      root,
      h(
        "p",
        { class: "why-summary" },
        h("strong", null, targetText(target)),
        ": ",
        decisionBadge(trace.decision),
        ` by ${decidedBy(trace.decision)}.`,
      ),
      h(
        "p",
        null,
        trace.rulesSeen === 0
          ? "No rule names this target, so no policy applies: the decision is the global deny by default."
          : `Policies that apply: ${
            trace.policiesSeen.join(", ")
          }. Rules naming the target: ${trace.rulesSeen}; fired: ${trace.matchedCount}.`,
      ),
      ...candidates(trace, jump),
      ...rules(trace.rules as TracedRule[], sites, jump),
    );
  }
}

function candidates(
  trace: EvaluationTrace,
  jump: (policyKey: string, ruleId: string) => Node | string,
): Node[] {
  if (trace.candidates.length === 0) return [];
  const item = (c: CandidateTrace, i: number) =>
    h(
      "li",
      null,
      h("span", { class: `badge kind-${c.decision}` }, c.decision),
      " ",
      c.reason === "default" ? `defaults of ${c.policyKey}` : jump(c.policyKey, c.ruleId),
      c.reason === "default" ? "" : ` (priority ${c.priority})`,
      i === 0 ? h("span", { class: "selected-mark" }, " ← selected") : "",
    );
  return [
    h("h3", null, "Candidates, strongest first"),
    h("ol", { class: "candidates" }, ...trace.candidates.map(item)),
  ];
}

function rules(
  traced: readonly TracedRule[],
  sites: Map<string, RuleSite>,
  jump: (policyKey: string, ruleId: string) => Node | string,
): Node[] {
  if (traced.length === 0) return [];
  const rows = traced.map((r) => {
    const when = sites.get(ruleKey(r.policyKey, r.ruleId))?.rule.when;
    const node = r.condition !== undefined
      ? tracedConditionNode(r.condition)
      : when === undefined
      ? null
      : conditionNode(when);
    return h(
      "tr",
      null,
      h("td", null, jump(r.policyKey, r.ruleId)),
      h("td", null, String(r.priority)),
      h("td", null, r.outcome),
      h("td", null, r.effect ?? "—"),
      h("td", null, node === null ? "(no condition)" : conditionList(node)),
    );
  });
  return [
    h("h3", null, "Rules naming the target, in bundle order"),
    table(["Rule", "Priority", "Outcome", "Effect", "Condition"], rows),
  ];
}

/** A condition as written (no outcome): the tree of its operators and leaves. */
export function conditionNode(condition: Condition): ConditionNode {
  switch (condition.op) {
    case "and":
    case "or": {
      const operands = condition.conditions ?? condition.args ?? [];
      return {
        text: operands.length === 0 ? `${condition.op} (no operands: false)` : condition.op,
        children: operands.map(conditionNode),
      };
    }
    case "not": {
      const operand = condition.condition ?? condition.arg;
      return operand === undefined
        ? { text: "not (no operand: false)", children: [] }
        : { text: "not", children: [conditionNode(operand)] };
    }
    default:
      return { text: leafText(condition), children: [] };
  }
}

const OPERATORS: Record<string, string> = {
  eq: "==",
  neq: "!=",
  ne: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

/** A leaf in words: `ctx.plan in ["pro","enterprise"]`, `seats > 5`, `flags.x exists`. */
function leafText(condition: Condition): string {
  const c = condition as { op: string; path?: unknown; value?: unknown; values?: unknown };
  const path = String(c.path);
  if (c.op === "exists") return `${path} exists`;
  if (c.op === "in") return `${path} in ${JSON.stringify(c.values)}`;
  return `${path} ${OPERATORS[c.op] ?? c.op} ${JSON.stringify(c.value)}`;
}

/**
 * A condition as the engine's trace explains it: `{op, outcome, path?,
 * value?/found?, children?}` per node (the leaves carry the path read and
 * the value found). Anything else is shown as it is, as JSON.
 */
export function tracedConditionNode(traced: unknown): ConditionNode {
  if (typeof traced !== "object" || traced === null) return { text: String(traced), children: [] };
  const t = traced as Record<string, unknown>;
  const children = Array.isArray(t.children) ? t.children.map(tracedConditionNode) : [];
  const outcome = typeof t.outcome === "boolean" ? { outcome: t.outcome } : {};
  if (typeof t.op !== "string") return { text: JSON.stringify(traced), children, ...outcome };
  const node: ConditionNode = {
    text: children.length > 0 || ["and", "or", "not"].includes(t.op)
      ? t.op
      : leafText(t as unknown as Condition),
    children,
    ...outcome,
  };
  if (typeof t.path === "string" && children.length === 0) {
    const found = t.found !== false && Object.hasOwn(t, "actual");
    node.read = found ? { path: t.path, found, value: t.actual } : { path: t.path, found: false };
  }
  return node;
}

function conditionList(node: ConditionNode): HTMLUListElement {
  return h("ul", { class: "condition" }, conditionItem(node));
}

function conditionItem(node: ConditionNode): HTMLLIElement {
  const outcome = node.outcome === undefined
    ? null
    : h("span", { class: node.outcome ? "outcome-true" : "outcome-false" }, String(node.outcome));
  const read = node.read === undefined ? null : h(
    "span",
    { class: "outcome-unknown" },
    node.read.found ? ` (read ${JSON.stringify(node.read.value)})` : " (nothing there)",
  );
  return h(
    "li",
    null,
    outcome,
    outcome === null ? "" : " ",
    node.text,
    read,
    node.children.length === 0
      ? null
      : h("ul", { class: "condition" }, ...node.children.map(conditionItem)),
  );
}
