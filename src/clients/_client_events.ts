// This module is browser compatible.
// The listeners of `subscribe` (docs/local-client.md "Events", docs/remote.md
// "Events"), shared by both clients. Nothing here runs on `evaluate`: a client
// calls it when a bundle is replaced or its state changes, and without
// listeners it builds no event at all.
import type { LoadedBundle } from "../verify/load_bundle.ts";
import { changedTargets } from "../diff/changed_targets.ts";
import { policiesOf } from "../engine/compile_bundle.ts";
import { callSafely } from "../_internal/call_safely.ts";
import type { ClientEvent, ClientListener, ClientStatus } from "./types.ts";

/** The listeners of one client. */
export class ClientEvents {
  /** One entry per subscription (the same function subscribed twice is called twice). */
  #entries: { listener: ClientListener }[] = [];
  #closed = false;
  readonly #onListening: (listening: boolean) => void;

  /** `onListening(true)` when the first listener comes, `(false)` when the last goes. */
  constructor(onListening: (listening: boolean) => void = () => {}) {
    this.#onListening = onListening;
  }

  /** True while at least one listener is subscribed. */
  get listening(): boolean {
    return this.#entries.length > 0;
  }

  /** Adds a listener; returns the function that removes it (idempotent). */
  subscribe(listener: ClientListener): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`subscribe needs a function; got ${typeof listener}`);
    }
    if (this.#closed) return () => {};
    const entry = { listener };
    this.#entries = [...this.#entries, entry];
    if (this.#entries.length === 1) this.#onListening(true);
    return () => {
      const before = this.#entries.length;
      this.#entries = this.#entries.filter((e) => e !== entry);
      if (before > 0 && this.#entries.length === 0) this.#onListening(false);
    };
  }

  /**
   * Calls every listener with the event `make` builds (only when there are
   * listeners), synchronously and in order. What a listener throws or
   * rejects with is ignored; a listener removed by an earlier one is not
   * called, one added meanwhile waits for the next event.
   */
  emit(make: () => ClientEvent): void {
    const entries = this.#entries;
    if (entries.length === 0) return;
    const event = make();
    for (const entry of entries) {
      if (this.#entries.includes(entry)) callSafely(entry.listener, event);
    }
  }

  /**
   * The `reload` event of a bundle replacing `previous`: the targets whose
   * decisions may differ are computed from the rules of both, now, while
   * both are at hand (docs/local-client.md "Events").
   */
  reloaded(previous: LoadedBundle, current: LoadedBundle, status: () => ClientStatus): void {
    this.emit(() => ({
      type: "reload",
      previous: { ...previous.status, signature: { ...previous.status.signature } },
      changedTargets: changedTargets(rulesOf(previous), rulesOf(current)),
      status: status(),
    }));
  }

  /** Drops every listener; later subscriptions are ignored. */
  close(): void {
    this.#closed = true;
    if (this.#entries.length > 0) {
      this.#entries = [];
      this.#onListening(false);
    }
  }
}

/**
 * The policies of a loaded bundle as compiled (`policiesOf`: what decides,
 * which is what `changedTargets` compares), made only when a reload event
 * is, for its listeners.
 */
function rulesOf(loaded: LoadedBundle) {
  return policiesOf(loaded.compiled);
}
