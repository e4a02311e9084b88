/// <reference lib="dom" />
/**
 * The Bundle panel: the editor (paste, type, drop or open a bundle or a
 * draft, or pick a sample; Format lays it out as `policy fmt` does, a pasted
 * one-line bundle included), what the document reads as, and its issues and
 * dead-rule findings; a click on one selects its place in the editor.
 *
 * @module
 */
import type { App } from "./app_state.ts";
import { byId, download, h, readUserFile, show, wireFileInput } from "./_dom.ts";
import { locatePointer } from "./pointer_offset.ts";
import type { DocumentIssue, DocumentModel } from "./document_model.ts";
import { type Sample, samplesOf } from "./samples.ts";
import { formatKeepingMeaning } from "../src/authoring/format_jsonc.ts";

/** The largest file the page opens: the CLI's default `limits.maxFileBytes` (8 MiB). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Wires the Bundle panel to the app. */
export function bundlePanel(app: App): void {
  const editor = byId<HTMLTextAreaElement>("document");
  const status = byId("document-status");
  const issues = byId("issues");
  const sample = byId<HTMLSelectElement>("sample");
  const samples = samplesOf("bundle", "draft");

  sample.append(h("option", { attrs: { value: "" } }, "(choose a sample)"));
  for (const s of samples) sample.append(h("option", { attrs: { value: s.path } }, sampleName(s)));
  sample.addEventListener("change", () => {
    const chosen = samples.find((s) => s.path === sample.value);
    if (chosen !== undefined) void app.setDocument(chosen.text);
  });

  editor.addEventListener("input", () => void app.setDocument(editor.value));
  editor.addEventListener("dragover", (event) => event.preventDefault());
  editor.addEventListener("drop", async (event) => {
    const file = event.dataTransfer?.files[0];
    if (file === undefined) return;
    event.preventDefault();
    try {
      await app.setDocument(await readUserFile(file, MAX_FILE_BYTES));
      app.announce(`Opened ${file.name}.`);
    } catch (error) {
      app.announce((error as Error).message);
    }
  });
  wireFileInput(
    byId<HTMLButtonElement>("open-document"),
    byId<HTMLInputElement>("document-file"),
    MAX_FILE_BYTES,
    async (text, name) => {
      await app.setDocument(text);
      app.announce(`Opened ${name}.`);
    },
    app.announce,
  );
  const format = byId<HTMLButtonElement>("format-document");
  format.addEventListener("click", () => {
    const text = app.state.documentText;
    let formatted: string | null;
    try {
      formatted = formatKeepingMeaning(text);
    } catch (error) {
      app.announce(
        error instanceof RangeError
          ? "The document is nested too deeply to format."
          : `Only JSON can be formatted: ${(error as Error).message}.`,
      );
      return;
    }
    if (formatted === null) {
      app.announce(
        "Formatting would change what the document holds (a number JSON cannot write back as it is): it was left as it is.",
      );
    } else if (formatted !== text) {
      void app.setDocument(formatted);
    }
  });
  byId("save-document").addEventListener("click", () => {
    const kind = app.state.model.kind;
    download(
      kind === "draft" ? "policy-drafts.json" : "policy-bundle.json",
      app.state.documentText,
    );
  });

  app.revealPointer = (pointer) => reveal(editor, pointer);

  app.subscribe((changed) => {
    if (changed.has("documentText") && editor.value !== app.state.documentText) {
      // Another text (a sample, a file, Format, the working folder's): shown from its start.
      editor.value = app.state.documentText;
      editor.scrollLeft = 0;
    }
    if (changed.has("model")) {
      const { model } = app.state;
      // Only what reads as JSON can be laid out.
      format.disabled = model.kind === "empty" || model.kind === "unreadable";
      status.textContent = describeModel(model);
      show(issues, ...model.issues.map((issue) => issueItem(issue, editor)));
      if (model.issues.length === 0 && model.kind !== "empty") {
        show(issues, h("li", null, "None."));
      }
    }
  });
}

function sampleName(sample: Sample): string {
  return `${sample.path} (${sample.kind})`;
}

/** One line about the document: what it is, and whether it can be evaluated. */
export function describeModel(model: DocumentModel): string {
  const errors = model.issues.filter((i) => i.severity === "error").length;
  const warnings = model.issues.length - errors;
  const counts = `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
    warnings === 1 ? "" : "s"
  }`;
  switch (model.kind) {
    case "empty":
      return "Empty: paste or type a bundle or a draft, drop a file here, or pick a sample.";
    case "unreadable":
      return "Not JSON: nothing can be evaluated until it parses.";
    default: {
      const compiled = model.compiled;
      if (compiled === null) {
        return `A ${model.kind} that is not valid (${counts}): fix the errors to evaluate it.`;
      }
      return `A valid ${model.kind}: ${compiled.policyCount} policies, ${compiled.ruleCount} rules, ${compiled.targetCount} targets (${counts}).`;
    }
  }
}

function issueItem(issue: DocumentIssue, editor: HTMLTextAreaElement): HTMLLIElement {
  const where = issue.offset !== undefined ? "at the marked character" : `at ${issue.path || "/"}`;
  const button = h(
    "button",
    { attrs: { type: "button" } },
    h("span", { class: `severity ${issue.severity}` }, issue.severity),
    h("span", { class: "code" }, issue.code),
    " ",
    issue.message,
    " ",
    h("span", { class: "pointer" }, where),
  );
  button.addEventListener("click", () => {
    if (issue.offset !== undefined) select(editor, issue.offset, issue.offset + 1);
    else reveal(editor, issue.path);
  });
  return h("li", null, button);
}

/** Selects the place a pointer names in the editor and scrolls to it. */
function reveal(editor: HTMLTextAreaElement, pointer: string): void {
  const range = locatePointer(editor.value, pointer);
  if (range === null) return;
  // An inexact range is an ancestor of something missing: mark where it starts.
  select(editor, range.start, range.exact ? range.end : range.start + 1);
}

function select(editor: HTMLTextAreaElement, start: number, end: number): void {
  editor.focus();
  editor.setSelectionRange(start, end);
  const line = editor.value.slice(0, start).split("\n").length - 1;
  const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 16;
  editor.scrollTop = Math.max(0, line * lineHeight - editor.clientHeight / 3);
}
