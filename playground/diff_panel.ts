/// <reference lib="dom" />
/**
 * The Diff view: an old bundle or draft against the one in the editor,
 * with the library's `diffBundles` (what changed, by meaning) and
 * `compareDecisions` (the requests of the matrix and the scenarios of the
 * suite whose decision changes), old and new side by side.
 *
 * @module
 */
import type { Decision, EvaluationRequest, Target } from "../src/engine/mod.ts";
import { parseJson } from "../src/engine/mod.ts";
import { type BundleDiff, compareDecisions, diffBundles } from "../src/diff/mod.ts";
import { describeFieldChange, describeRanking } from "../src/authoring/describe_change.ts";
import { checkSuite } from "../src/authoring/suite.ts";
import { type App, parseContext } from "./app_state.ts";
import { byId, h, show, table, wireFileInput } from "./_dom.ts";
import { decidedBy } from "./decision_kind.ts";
import { decisionBadge, targetText } from "./request_panel.ts";
import { matrixColumns } from "./matrix_panel.ts";
import { samplesOf } from "./samples.ts";
import { MAX_FILE_BYTES } from "./bundle_panel.ts";
import { describeModel } from "./bundle_panel.ts";

/** A request replayed on both sides, and where it comes from. */
interface Replayed extends EvaluationRequest {
  /** `matrix: <context name>` or `suite: <scenario name>`. */
  source: string;
}

/** Wires the Diff view to the app. */
export function diffPanel(app: App): void {
  const editor = byId<HTMLTextAreaElement>("baseline");
  const result = byId("diff-result");
  const picker = byId<HTMLSelectElement>("baseline-sample");
  const samples = samplesOf("bundle", "draft");
  show(
    picker,
    h("option", { attrs: { value: "" } }, "(choose a sample)"),
    ...samples.map((s) => h("option", { attrs: { value: s.path } }, s.path)),
  );
  picker.addEventListener("change", () => {
    const chosen = samples.find((s) => s.path === picker.value);
    if (chosen !== undefined) void app.setBaseline(chosen.text);
  });
  byId("baseline-from-current").addEventListener("click", () => {
    void app.setBaseline(app.state.documentText);
    app.announce("The editor's document is now the old side: edit it to see what changes.");
  });
  editor.addEventListener("input", () => void app.setBaseline(editor.value));
  wireFileInput(
    byId<HTMLButtonElement>("open-baseline"),
    byId<HTMLInputElement>("baseline-file"),
    MAX_FILE_BYTES,
    (text, name) => {
      void app.setBaseline(text);
      app.announce(`Opened ${name} as the old side.`);
    },
    app.announce,
  );

  app.subscribe((changed) => {
    if (changed.has("baselineText") && editor.value !== app.state.baselineText) {
      editor.value = app.state.baselineText;
    }
    if (
      ["baselineModel", "model", "contexts", "contextText", "suiteText"].some((f) =>
        changed.has(f as never)
      )
    ) {
      render();
    }
  });

  function render(): void {
    const { model, baselineModel } = app.state;
    if (baselineModel.kind === "empty") {
      show(result, h("p", null, "No old side yet: use the editor's document, a sample or a file."));
      return;
    }
    if (baselineModel.compiled === null) {
      show(
        result,
        h("p", { class: "error-text" }, `The old side: ${describeModel(baselineModel)}`),
      );
      return;
    }
    if (model.compiled === null) {
      show(result, h("p", null, "The new side (the editor) cannot be evaluated yet."));
      return;
    }
    const before = baselineModel.bundle!;
    const after = model.bundle!;
    const diff = diffBundles(before, after, {
      compareScope: baselineModel.kind === "bundle" && model.kind === "bundle",
    });
    const requests = replayed(app, [...baselineModel.targets, ...model.targets]);
    const decisions = compareDecisions(before, after, requests);
    show(
      result,
      h("h3", null, "What changed, by meaning"),
      ...meaning(diff),
      h("h3", null, "Decisions that change"),
      h(
        "p",
        { attrs: { id: "diff-decisions-summary" } },
        `${decisions.requests} requests replayed (the matrix and the suite): ${decisions.changed} change, ${decisions.reattributed} decided by another rule.`,
      ),
      decisions.changes.length === 0 ? null : table(
        ["Request", "Old", "New"],
        decisions.changes.map((c) =>
          h(
            "tr",
            null,
            h(
              "td",
              null,
              h("span", { class: "target-name" }, targetText(c.target)),
              h("br"),
              requests[c.index]!.source,
              c.effectChanged ? "" : " (same effect, another rule)",
            ),
            h("td", null, side(c.old)),
            h("td", null, side(c.new)),
          )
        ),
        "side-by-side",
      ),
    );
  }
}

/** The requests replayed: every target of either side with each matrix context, then the suite's. */
function replayed(app: App, targets: readonly Target[]): Replayed[] {
  const out: Replayed[] = [];
  const seen = new Set<string>();
  for (const column of matrixColumns(app)) {
    const context = parseContext(column.context);
    if (typeof context === "string") continue;
    for (const target of targets) {
      const key = JSON.stringify([targetText(target), column.name]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ target, context, source: `matrix: ${column.name}` });
    }
  }
  try {
    const checked = checkSuite(parseJson(app.state.suiteText, { comments: true }));
    for (const s of checked.scenarios) {
      out.push({ target: s.target, context: s.context, source: `suite: ${s.name}` });
    }
  } catch {
    // No suite, or one that is not JSON: the Suite view says so.
  }
  return out;
}

function side(decision: Decision): HTMLElement {
  return h("span", null, decisionBadge(decision), ` by ${decidedBy(decision)}`);
}

function meaning(diff: BundleDiff): Node[] {
  if (!diff.changed) return [h("p", null, "No change in meaning.")];
  const items: Node[] = [];
  for (const c of diff.scope) items.push(h("li", null, `scope ${describeFieldChange(c, "→")}`));
  for (const p of diff.policies.added) items.push(h("li", null, `+ policy ${p.policyKey}`));
  for (const p of diff.policies.removed) items.push(h("li", null, `− policy ${p.policyKey}`));
  for (const p of diff.policies.changed) {
    const inner = [
      ...p.fields.map((c) => h("li", null, describeFieldChange(c, "→"))),
      ...p.rules.added.map((r) => h("li", null, `+ rule ${r.ruleId}`)),
      ...p.rules.removed.map((r) => h("li", null, `− rule ${r.ruleId}`)),
      ...p.rules.changed.map((r) =>
        h(
          "li",
          null,
          `~ rule ${r.ruleId}`,
          h("ul", null, ...r.fields.map((c) => h("li", null, describeFieldChange(c, "→")))),
        )
      ),
    ];
    items.push(h("li", null, `~ policy ${p.policyKey}`, h("ul", null, ...inner)));
  }
  for (const t of diff.targets) {
    items.push(
      h(
        "li",
        null,
        `ranking of ${targetText(t.target)}: `,
        h("br"),
        `old: ${describeRanking(t.old)}`,
        h("br"),
        `new: ${describeRanking(t.new)}`,
      ),
    );
  }
  return [h("ul", { class: "diff-list", attrs: { id: "diff-meaning" } }, ...items)];
}
