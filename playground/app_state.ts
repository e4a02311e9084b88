/**
 * The playground's state and the one place that changes it: the document in
 * the editor (and what it reads as), the request, the saved contexts, the
 * suite and the old document of the diff, and what the page says about
 * them. Panels subscribe and redraw what they show when the fields they use
 * change. No DOM.
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
  /**
   * The target was typed into the Request panel's fields (or came with a
   * share link naming one the document does not): a document that does not
   * name it keeps it. A target taken from the document is replaced by the
   * document's first when the document changes to one without it.
   */
  targetTyped: boolean;
  /** The context, as typed (JSON text). */
  contextText: string;
  /**
   * A request whose trace the Why view shows instead of the Request panel's:
   * a matrix cell of a saved context, or a scenario, opened. Opening it never
   * changes what is typed in the Request panel; editing the request there
   * ends it.
   */
  traced: TracedRequest | null;
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

/** A request shown in the Why view without being put in the Request panel. */
export interface TracedRequest {
  target: Target;
  /** The context, as JSON text. */
  contextText: string;
  /** Where it comes from, for people: `the saved context "free team"`, `scenario "…"`. */
  source: string;
}

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
    targetTyped: false,
    contextText: "{}",
    traced: null,
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
  /** Set by the page: shows a message in the page's status line (empty: none). */
  onAnnounce: (message: string) => void = () => {};
  /** The state an announcement was made in, while it is shown. */
  #announcedIn: SharedState | null = null;

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
    if (this.#announcedIn !== null && !sameShared(this.#announcedIn, this.shared())) {
      // What was said was about a state that is gone (a link made, a context saved, a fix
      // asked for): it no longer applies.
      this.#announcedIn = null;
      this.onAnnounce("");
    }
  }

  /**
   * Says something in the page's status line, until the state it was said
   * in changes (the document, the request, the saved contexts, the suite or
   * the old side of the diff); an empty message clears it.
   */
  readonly announce = (message: string): void => {
    this.#announcedIn = message === "" ? null : this.shared();
    this.onAnnounce(message);
  };

  /** Puts a text in the editor and reads it; resolves when it is read. */
  async setDocument(text: string): Promise<void> {
    const generation = ++this.#documentGeneration;
    this.set({ documentText: text });
    const model = await readDocument(text);
    if (generation !== this.#documentGeneration) return;
    const patch: Partial<AppState> = { model };
    // A request for no target yet, or for a target taken from a document that this one does not
    // name: the first target this one names. A typed target is the user's, and stays. A document
    // that does not read (yet) names nothing and changes nothing.
    const { target, targetTyped } = this.#state;
    const first = model.targets[0];
    if (
      first !== undefined && !names(model, target) && (!targetTyped || target.service === "")
    ) {
      patch.target = first;
      patch.targetTyped = false;
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
      // Kept while the link's document is read; typed after it only if that document does not
      // name it (whoever made the link typed it).
      targetTyped: true,
      contextText: shared.context,
      traced: null,
      contexts: shared.contexts,
      suiteText: shared.suite,
    });
    await Promise.all([this.setDocument(shared.document), this.setBaseline(shared.baseline)]);
    this.set({ targetTyped: !names(this.#state.model, this.#state.target) });
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
    return requestOf(this.#state.target, this.#state.contextText);
  }

  /**
   * Shows the trace of a request in the Why view. With the context of the
   * Request panel, the target is put there (the context stays as typed);
   * with another context (a saved one, a scenario's), the trace is shown
   * as {@link AppState.traced} and the Request panel is left as it is.
   */
  openTrace(target: Target, contextText: string, source: string): void {
    if (contextText === this.#state.contextText) {
      this.set({ target, targetTyped: !names(this.#state.model, target), traced: null });
    } else {
      this.set({ traced: { target, contextText, source } });
    }
    this.showView("why");
  }

  /** Puts the request of the Why view ({@link AppState.traced}) in the Request panel. */
  editTraced(): void {
    const traced = this.#state.traced;
    if (traced === null) return;
    this.set({
      target: traced.target,
      targetTyped: !names(this.#state.model, traced.target),
      contextText: traced.contextText,
      traced: null,
    });
  }
}

/** True when the document names `target` (a rule of it does). */
function names(model: DocumentModel, target: Target): boolean {
  return model.targets.some((t) =>
    t.service === target.service && t.resource === target.resource && t.action === target.action
  );
}

/** True when two shared states are the same (each field the same value, or the same object). */
export function sameShared(a: SharedState, b: SharedState): boolean {
  return a.document === b.document && a.target === b.target && a.context === b.context &&
    a.contexts === b.contexts && a.suite === b.suite && a.baseline === b.baseline;
}

/** The request of a target and a context as JSON text, or why it cannot be evaluated. */
export function requestOf(target: Target, contextText: string): RequestResult {
  const context = parseContext(contextText);
  if (typeof context === "string") return { request: null, error: context };
  return { request: { target, context }, error: null };
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
