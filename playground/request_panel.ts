/// <reference lib="dom" />
/**
 * The Request panel: a target (picked from those the bundle names, or
 * typed), the context as JSON, and the decision, which the engine's
 * `createEvaluator` recomputes on every keystroke. The context can be saved
 * for the matrix.
 *
 * @module
 */
import { createEvaluator, type Decision, type Evaluator, type Target } from "../src/engine/mod.ts";
import type { CompiledBundle } from "../src/engine/mod.ts";
import type { App } from "./app_state.ts";
import { byId, h, show } from "./_dom.ts";
import { decidedBy, decisionKind, decisionLabel } from "./decision_kind.ts";
import { MAX_SAVED_CONTEXTS } from "./share_link.ts";

/** `service/resource/action`. */
export function targetText(target: Target): string {
  return `${target.service}/${target.resource}/${target.action}`;
}

/** The evaluator of a compiled bundle, made once per bundle. */
const evaluators = new WeakMap<CompiledBundle, Evaluator>();
export function evaluatorOf(compiled: CompiledBundle): Evaluator {
  let evaluator = evaluators.get(compiled);
  if (evaluator === undefined) {
    evaluator = createEvaluator(compiled);
    evaluators.set(compiled, evaluator);
  }
  return evaluator;
}

/** A decision as a badge: its kind's colour and its words. */
export function decisionBadge(decision: Decision): HTMLSpanElement {
  return h("span", { class: `badge kind-${decisionKind(decision)}` }, decisionLabel(decision));
}

/** Wires the Request panel to the app. */
export function requestPanel(app: App): void {
  const pick = byId<HTMLSelectElement>("target-pick");
  const fields = {
    service: byId<HTMLInputElement>("service"),
    resource: byId<HTMLInputElement>("resource"),
    action: byId<HTMLInputElement>("action"),
  };
  const context = byId<HTMLTextAreaElement>("context");
  const contextError = byId("context-error");
  const output = byId("decision");
  const json = byId("decision-json");

  // Editing the request here ends a trace the Why view showed instead (app_state.ts, `traced`).
  pick.addEventListener("change", () => {
    const target = app.state.model.targets[Number(pick.value)];
    if (target !== undefined) app.set({ target, targetTyped: false, traced: null });
  });
  for (const input of Object.values(fields)) {
    input.addEventListener("input", () =>
      app.set({
        target: {
          service: fields.service.value,
          resource: fields.resource.value,
          action: fields.action.value,
        },
        targetTyped: true,
        traced: null,
      }));
  }
  context.addEventListener("input", () => app.set({ contextText: context.value, traced: null }));

  const name = byId<HTMLInputElement>("context-name");
  byId("save-context").addEventListener("click", () => {
    const contexts = app.state.contexts;
    if (app.request().error !== null) {
      app.announce("Fix the context first: only a JSON object can be saved.");
      return;
    }
    if (contexts.length >= MAX_SAVED_CONTEXTS) {
      app.announce(`At most ${MAX_SAVED_CONTEXTS} contexts can be saved.`);
      return;
    }
    const label = name.value.trim() || `context ${contexts.length + 1}`;
    app.set({ contexts: [...contexts, { name: label, context: app.state.contextText }] });
    name.value = "";
    app.announce(`Saved the context as "${label}": it is a column of the matrix.`);
  });

  app.subscribe((changed) => {
    const { model, target, contextText } = app.state;
    if (changed.has("model")) {
      show(
        pick,
        h(
          "option",
          { attrs: { value: "" } },
          model.targets.length === 0 ? "(no target)" : "(typed)",
        ),
        ...model.targets.map((t, i) => h("option", { attrs: { value: String(i) } }, targetText(t))),
      );
    }
    if (changed.has("target") || changed.has("model")) {
      for (const key of ["service", "resource", "action"] as const) {
        if (fields[key].value !== target[key]) fields[key].value = target[key];
      }
      const index = model.targets.findIndex((t) => targetText(t) === targetText(target));
      pick.value = index < 0 ? "" : String(index);
    }
    if (changed.has("contextText") && context.value !== contextText) context.value = contextText;
    if (changed.has("model") || changed.has("target") || changed.has("contextText")) {
      render();
    }
  });

  function render(): void {
    const { model } = app.state;
    const result = app.request();
    contextError.textContent = result.error ?? "";
    if (model.compiled === null) {
      show(output, "No decision: the document in the editor cannot be evaluated (see its issues).");
      json.textContent = "";
      return;
    }
    if (result.request === null) {
      show(output, "No decision: the context is not a JSON object.");
      json.textContent = "";
      return;
    }
    let decision: Decision;
    try {
      decision = evaluatorOf(model.compiled)(result.request);
    } catch (error) {
      show(output, `No decision: ${(error as Error).message}`);
      json.textContent = "";
      return;
    }
    show(output, decisionBadge(decision), " ", h("span", null, `by ${decidedBy(decision)}`));
    json.textContent = JSON.stringify(decision, null, 2);
  }
}
