// The bundle in force in a client, replaced atomically on reload.
import { createEvaluator, type Evaluator } from "../engine/evaluate.ts";
import type { LoadedBundle } from "../verify/load_bundle.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";
import type { ClientOptions } from "./types.ts";

interface InForce {
  readonly evaluate: Evaluator;
  readonly status: BundleStatus;
  readonly loaded: LoadedBundle;
}

/**
 * Holds the evaluator and status of the bundle in force as one object, so a
 * replacement is a single assignment: an `evaluate` sees the old bundle or
 * the new one, never a mix.
 */
export class BundleSlot {
  #current: InForce;
  readonly #options: ClientOptions;

  constructor(loaded: LoadedBundle, options: ClientOptions) {
    this.#options = options;
    this.#current = this.#prepare(loaded);
  }

  /** The bundle in force. */
  get current(): InForce {
    return this.#current;
  }

  /** Puts a newly loaded bundle in force. */
  replace(loaded: LoadedBundle): void {
    this.#current = this.#prepare(loaded);
  }

  #prepare(loaded: LoadedBundle): InForce {
    const evaluate = createEvaluator(loaded.compiled, {
      ...(this.#options.parseCustomEffect !== undefined &&
        { parseCustomEffect: this.#options.parseCustomEffect }),
      ...(this.#options.contextPolicy !== undefined &&
        { contextPolicy: this.#options.contextPolicy }),
    });
    return Object.freeze({ evaluate, status: loaded.status, loaded });
  }
}
