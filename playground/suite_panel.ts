/// <reference lib="dom" />
/**
 * The Suite view: a simulation suite, checked and run against the document
 * with the same code as `policy simulate --suite` (`src/authoring/suite.ts`):
 * pass or fail per scenario with the expected and the actual decision, and
 * the active rules no scenario made fire.
 *
 * @module
 */
import { parseJson } from "../src/engine/mod.ts";
import { checkSuite, describeOutcome, runSuite } from "../src/authoring/suite.ts";
import type { App } from "./app_state.ts";
import { byId, h, linkButton, show, table, wireFileInput } from "./_dom.ts";
import { ruleKey, ruleSites } from "./document_model.ts";
import { targetText } from "./request_panel.ts";
import { samplesOf } from "./samples.ts";
import { MAX_FILE_BYTES } from "./bundle_panel.ts";

/** A suite the picker offers: a sample, or a file of the working folder (live). */
export interface SuiteChoice {
  label: string;
  text: string;
}

/** What the page can do to the Suite view. */
export interface SuitePanel {
  /** Replaces the working folder's suites in the picker (live mode). */
  setFolderSuites(choices: readonly SuiteChoice[]): void;
}

/** Wires the Suite view to the app. */
export function suitePanel(app: App): SuitePanel {
  const editor = byId<HTMLTextAreaElement>("suite");
  const details = byId<HTMLDetailsElement>("suite-editor");
  const result = byId("suite-result");
  const picker = byId<HTMLSelectElement>("suite-sample");
  const samples: SuiteChoice[] = samplesOf("suite").map((s) => ({
    label: `${s.path} (sample)`,
    text: s.text,
  }));
  let folder: readonly SuiteChoice[] = [];
  const choices = () => [...folder, ...samples];

  const fillPicker = () => {
    show(
      picker,
      h("option", { attrs: { value: "" } }, "(choose a suite)"),
      ...choices().map((c, i) => h("option", { attrs: { value: String(i) } }, c.label)),
    );
  };
  fillPicker();
  picker.addEventListener("change", () => {
    const chosen = choices()[Number(picker.value)];
    if (picker.value !== "" && chosen !== undefined) app.set({ suiteText: chosen.text });
  });
  editor.addEventListener("input", () => app.set({ suiteText: editor.value }));
  wireFileInput(
    byId<HTMLButtonElement>("open-suite"),
    byId<HTMLInputElement>("suite-file"),
    MAX_FILE_BYTES,
    (text, name) => {
      app.set({ suiteText: text });
      app.announce(`Opened the suite ${name}.`);
    },
    app.announce,
  );
  byId("run-suite").addEventListener("click", render);

  app.subscribe((changed) => {
    if (changed.has("suiteText") && editor.value !== app.state.suiteText) {
      editor.value = app.state.suiteText;
    }
    if (changed.has("suiteText") || changed.has("model")) render();
  });

  function render(): void {
    const { model, suiteText } = app.state;
    if (suiteText.trim() === "") {
      show(result, h("p", null, "No suite: pick one, open a file, or write one."));
      return;
    }
    let document: unknown;
    try {
      document = parseJson(suiteText, { comments: true });
    } catch (error) {
      details.open = true;
      show(
        result,
        h("p", { class: "error-text" }, `The suite is not JSON: ${(error as Error).message}`),
      );
      return;
    }
    const checked = checkSuite(document);
    const warnings = checked.warnings.map((w) => h("li", null, `${w.message} (at ${w.path})`));
    if (checked.problems.length > 0) {
      details.open = true;
      show(
        result,
        h("p", { class: "error-text" }, "The suite is not valid:"),
        h("ul", null, ...checked.problems.map((p) => h("li", null, p))),
      );
      return;
    }
    if (model.compiled === null) {
      show(result, h("p", null, "The suite cannot run: the document cannot be evaluated yet."));
      return;
    }
    const run = runSuite(model.compiled, checked.scenarios);
    const sites = ruleSites(model.bundle!);
    const rows = run.results.map((r, i) => {
      const scenario = checked.scenarios[i]!;
      const open = linkButton(
        r.name,
        () =>
          app.openTrace(
            scenario.target,
            JSON.stringify(scenario.context, null, 2),
            `scenario "${r.name}"`,
          ),
        "(open its trace)",
      );
      return h(
        "tr",
        { class: r.passed ? "" : "failed" },
        h("td", null, h("span", { class: r.passed ? "pass" : "fail" }, r.passed ? "PASS" : "FAIL")),
        h("td", null, open),
        h("td", { class: "target-name" }, targetText(scenario.target)),
        h("td", null, describeOutcome(r.expected)),
        h("td", null, describeOutcome(r.actual)),
      );
    });
    const { summary, coverage } = run;
    show(
      result,
      h(
        "p",
        { attrs: { id: "suite-summary" } },
        `Suite "${checked.name}": ${summary.scenarios} scenarios, ${summary.passed} passed, ${summary.failed} failed.`,
      ),
      warnings.length === 0 ? null : h("ul", { class: "warning" }, ...warnings),
      table(["Result", "Scenario", "Target", "Expected", "Actual"], rows),
      h("h3", null, "Rules no scenario reached"),
      h(
        "p",
        null,
        `${coverage.exercised} of ${coverage.activeRules} active rules fired for some scenario.`,
      ),
      coverage.unexercised.length === 0 ? null : h(
        "ul",
        { attrs: { id: "suite-unreached" } },
        ...coverage.unexercised.map((r) => {
          const site = sites.get(ruleKey(r.policyKey, r.ruleId));
          return h(
            "li",
            null,
            site === undefined
              ? `${r.policyKey}/${r.ruleId}`
              : linkButton(`${r.policyKey}/${r.ruleId}`, () => app.revealPointer(site.pointer)),
          );
        }),
      ),
    );
  }

  return {
    setFolderSuites(next) {
      folder = next;
      fillPicker();
    },
  };
}
