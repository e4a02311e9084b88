/// <reference lib="dom" />
/**
 * The Why view: the engine's trace of the request (`traceEvaluation`), the
 * candidates strongest first, each rule naming the target with its outcome,
 * and each rule's condition as the trace explains it, leaf by leaf (the
 * path, the value read, the outcome), and which leaf made a `when` false; a
 * disabled rule's condition, which nothing tested, as written. The request
 * is the Request panel's, or one opened from the matrix or the suite
 * (`traced`), which a note names.
 *
 * @module
 */
import {
  type CandidateTrace,
  type EvaluationTrace,
  formatConditionTrace,
  type RuleTrace,
  traceEvaluation,
} from "../src/engine/mod.ts";
import { type App, requestOf } from "./app_state.ts";
import { byId, h, linkButton, show, table } from "./_dom.ts";
import { ruleKey, type RuleSite, ruleSites } from "./document_model.ts";
import { decisionBadge, targetText } from "./request_panel.ts";
import { decidedBy } from "./decision_kind.ts";
import { type ConditionNode, tracedConditionNode, writtenConditionNode } from "./condition_view.ts";

/** Wires the Why view to the app. */
export function whyPanel(app: App): void {
  const root = byId("why");
  const pinned = byId("why-pinned");
  const pinnedText = byId("why-pinned-text");
  byId("why-unpin").addEventListener("click", () => app.set({ traced: null }));
  byId("why-edit").addEventListener("click", () => app.editTraced());
  app.subscribe((changed) => {
    if (
      changed.has("model") || changed.has("target") || changed.has("contextText") ||
      changed.has("traced")
    ) {
      render();
    }
  });

  function render(): void {
    const { model, traced } = app.state;
    // A trace opened from the matrix or the suite, or else the Request panel's request.
    pinned.hidden = traced === null;
    if (traced !== null) {
      pinnedText.textContent = `The trace of ${
        targetText(traced.target)
      } with ${traced.source}; the Request panel keeps what you typed.`;
    }
    const target = traced?.target ?? app.state.target;
    if (model.compiled === null) {
      show(root, h("p", null, "Nothing to explain: the document cannot be evaluated yet."));
      return;
    }
    const result = traced === null ? app.request() : requestOf(traced.target, traced.contextText);
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
    const sites = ruleSites(model.bundle!);
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
      ...rules(trace.rules, sites, jump),
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
  traced: readonly RuleTrace[],
  sites: Map<string, RuleSite>,
  jump: (policyKey: string, ruleId: string) => Node | string,
): Node[] {
  if (traced.length === 0) return [];
  const rows = traced.map((r) => {
    const when = sites.get(ruleKey(r.policyKey, r.ruleId))?.rule.when;
    const node = r.condition !== null
      ? tracedConditionNode(r.condition)
      : when === undefined
      ? null
      : writtenConditionNode(when);
    return h(
      "tr",
      null,
      h("td", null, jump(r.policyKey, r.ruleId)),
      h("td", null, String(r.priority)),
      h("td", null, r.outcome),
      h("td", null, r.effect ?? "—"),
      h(
        "td",
        null,
        node === null ? "(no condition)" : conditionList(node),
        r.falseBecause === null
          ? null
          : h("p", null, `false because ${formatConditionTrace(r.falseBecause)}`),
      ),
    );
  });
  return [
    h("h3", null, "Rules naming the target, in bundle order"),
    table(["Rule", "Priority", "Outcome", "Effect", "Condition"], rows),
  ];
}

function conditionList(node: ConditionNode): HTMLUListElement {
  return h("ul", { class: "condition" }, conditionItem(node));
}

function conditionItem(node: ConditionNode): HTMLLIElement {
  const outcome = node.outcome === undefined
    ? null
    : h("span", { class: node.outcome ? "outcome-true" : "outcome-false" }, String(node.outcome));
  return h(
    "li",
    null,
    outcome,
    outcome === null ? "" : " ",
    node.text,
    node.children.length === 0
      ? null
      : h("ul", { class: "condition" }, ...node.children.map(conditionItem)),
  );
}
