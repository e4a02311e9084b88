/**
 * The playground's state and the one place that changes it: the document in
 * the editor (and what it reads as), the request, the saved contexts, the
 * suite and the old document of the diff. Panels subscribe and redraw what
 * they show when the fields they use change. No DOM.
 *
 * @module
 */
import { type EvaluationRequest, parseJson, type Target } from "../src/engine/mod.ts";
import { isRecord } from "../src/_internal/guards.ts";
import { type DocumentModel, readDocument } from "./document_model.ts";
import type { SavedContext, SharedState } from "./share_link.ts";

/** Everything the page shows is derived from this. */
export interface AppState {
  /** The text of the bundle or draft in the editor. */
  documentText: string;
  /** What {@link AppState.documentText} reads as. */
  model: DocumentModel;
  target: Target;
  /** The context, as typed (JSON text). */
  contextText: string;
  /** Contexts saved for the matrix. */
  contexts: SavedContext[];
  /** The simulation suite, as text. */
  suiteText: string;
  /** The old document of the diff, as text. */
  baselineText: string;
  /** What {@link AppState.baselineText} reads as. */
  baselineModel: DocumentModel;
}

/** The name of a field of {@link AppState}. */
export type Field = keyof AppState;

/** A listener: told which fields changed. */
export type Listener = (changed: ReadonlySet<Field>) => void;

/** The request typed, or why it cannot be evaluated. */
export type RequestResult =
  | { request: EvaluationRequest; error: null }
  | { request: null; error: string };

const EMPTY_MODEL: DocumentModel = {
  kind: "empty",
  issues: [],
  compiled: null,
  bundle: null,
  targets: [],
  checksum: null,
};

/** The state and its listeners. */
export class App {
  #state: AppState = {
    documentText: "",
    model: EMPTY_MODEL,
    target: { service: "", resource: "", action: "" },
    contextText: "{}",
    contexts: [],
    suiteText: "",
    baselineText: "",
    baselineModel: EMPTY_MODEL,
  };
  readonly #listeners: Listener[] = [];
  /** Bumped on each document change: a slower read of an older text is dropped. */
  #documentGeneration = 0;
  #baselineGeneration = 0;
  /** Set by the page: shows a view (`why`, `matrix`, …). */
  showView: (view: string) => void = () => {};
  /** Set by the Bundle panel: selects the place a JSON Pointer names in the editor. */
  revealPointer: (pointer: string) => void = () => {};
  /** Set by the page: says something in the page's status line. */
  announce: (message: string) => void = () => {};

  get state(): Readonly<AppState> {
    return this.#state;
  }

  subscribe(listener: Listener): void {
    this.#listeners.push(listener);
  }

  /** Tells the listeners that every field changed (the first drawing of the page). */
  refresh(): void {
    this.set({ ...this.#state });
  }

  /** Changes fields and tells the listeners. */
  set(patch: Partial<AppState>): void {
    const changed = new Set(Object.keys(patch) as Field[]);
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener(changed);
  }

  /** Puts a text in the editor and reads it; resolves when it is read. */
  async setDocument(text: string): Promise<void> {
    const generation = ++this.#documentGeneration;
    this.set({ documentText: text });
    const model = await readDocument(text);
    if (generation !== this.#documentGeneration) return;
    const patch: Partial<AppState> = { model };
    // A request for no target yet: the first target the bundle names.
    if (this.#state.target.service === "" && model.targets.length > 0) {
      patch.target = model.targets[0]!;
    }
    this.set(patch);
  }

  /** Sets the old document of the diff and reads it. */
  async setBaseline(text: string): Promise<void> {
    const generation = ++this.#baselineGeneration;
    this.set({ baselineText: text });
    const baselineModel = await readDocument(text);
    if (generation === this.#baselineGeneration) this.set({ baselineModel });
  }

  /** Restores a shared state (documents are read before this resolves). */
  async restore(shared: SharedState): Promise<void> {
    this.set({
      target: shared.target,
      contextText: shared.context,
      contexts: shared.contexts,
      suiteText: shared.suite,
    });
    await Promise.all([this.setDocument(shared.document), this.setBaseline(shared.baseline)]);
  }

  /** The state a share link carries. */
  shared(): SharedState {
    const s = this.#state;
    return {
      document: s.documentText,
      target: s.target,
      context: s.contextText,
      contexts: s.contexts,
      suite: s.suiteText,
      baseline: s.baselineText,
    };
  }

  /** The request of the Request panel. */
  request(): RequestResult {
    const context = parseContext(this.#state.contextText);
    if (typeof context === "string") return { request: null, error: context };
    return { request: { target: this.#state.target, context }, error: null };
  }

  /** Shows the trace of a request: puts it in the Request panel and opens the Why view. */
  openTrace(target: Target, contextText: string): void {
    this.set({ target, contextText });
    this.showView("why");
  }
}

/** A context typed as JSON text: the object, or what is wrong with it. */
export function parseContext(text: string): Record<string, unknown> | string {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    return `The context is not JSON: ${(error as Error).message}`;
  }
  if (!isRecord(value)) return 'The context must be a JSON object, for example {"plan": "pro"}';
  return value;
}
