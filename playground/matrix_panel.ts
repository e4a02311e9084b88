/// <reference lib="dom" />
/**
 * The Matrix view: every target the bundle names against the current
 * context and the saved ones, each cell the engine's decision in its
 * kind's colour and in words. A cell opens its request's trace (leaving the
 * context typed in the Request panel as it is).
 *
 * @module
 */
import type { Target } from "../src/engine/mod.ts";
import { type App, parseContext } from "./app_state.ts";
import { byId, h, show } from "./_dom.ts";
import { DECISION_KINDS, decisionKind, decisionLabel } from "./decision_kind.ts";
import { evaluatorOf, targetText } from "./request_panel.ts";
import type { SavedContext } from "./share_link.ts";

const KIND_NAMES: Record<string, string> = {
  allow: "allow",
  deny: "deny",
  throttle: "throttle",
  kill_switch: "kill switch",
  custom: "custom",
  "default-deny": "default deny (no policy applies)",
};

/** The columns of the matrix: the current context, then the saved ones. */
export function matrixColumns(app: App): SavedContext[] {
  return [{ name: "current context", context: app.state.contextText }, ...app.state.contexts];
}

/** Wires the Matrix view to the app. */
export function matrixPanel(app: App): void {
  const root = byId("matrix");
  const saved = byId("saved-contexts");
  show(
    byId("legend"),
    ...DECISION_KINDS.map((kind) => h("li", { class: `badge kind-${kind}` }, KIND_NAMES[kind]!)),
  );
  app.subscribe((changed) => {
    if (changed.has("contexts")) renderSaved();
    if (changed.has("model") || changed.has("contexts") || changed.has("contextText")) render();
  });

  function renderSaved(): void {
    const { contexts } = app.state;
    show(
      saved,
      ...contexts.map((c, i) => {
        const remove = h(
          "button",
          { attrs: { type: "button", "aria-label": `Remove ${c.name}` } },
          "×",
        );
        remove.addEventListener("click", () => {
          app.set({ contexts: app.state.contexts.filter((_, j) => j !== i) });
        });
        return h("li", null, h("span", null, `${c.name}: `), h("code", null, c.context), remove);
      }),
    );
  }

  function render(): void {
    const { model } = app.state;
    if (model.compiled === null) {
      show(root, h("p", null, "No matrix: the document cannot be evaluated yet."));
      return;
    }
    if (model.targets.length === 0) {
      show(root, h("p", null, "No matrix: no rule names a target."));
      return;
    }
    const evaluate = evaluatorOf(model.compiled);
    const columns = matrixColumns(app);
    const parsed = columns.map((c) => parseContext(c.context));
    const cell = (target: Target, column: number) => {
      const context = parsed[column]!;
      if (typeof context === "string") return h("td", null, "context is not a JSON object");
      const decision = evaluate({ target, context });
      const label = decisionLabel(decision);
      const button = h(
        "button",
        {
          class: `cell badge kind-${decisionKind(decision)}`,
          attrs: {
            type: "button",
            "aria-label": `${targetText(target)} with ${
              columns[column]!.name
            }: ${label}. Open its trace`,
          },
        },
        label,
      );
      button.addEventListener("click", () =>
        app.openTrace(
          target,
          columns[column]!.context,
          `the saved context "${columns[column]!.name}"`,
        ));
      return h("td", null, button);
    };
    show(
      root,
      h(
        "table",
        { class: "matrix" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { attrs: { scope: "col" } }, "Target"),
            ...columns.map((c) => h("th", { attrs: { scope: "col" } }, c.name)),
          ),
        ),
        h(
          "tbody",
          null,
          ...model.targets.map((target) =>
            h(
              "tr",
              null,
              h("th", { class: "target-name", attrs: { scope: "row" } }, targetText(target)),
              ...columns.map((_, i) => cell(target, i)),
            )
          ),
        ),
      ),
    );
  }
}
