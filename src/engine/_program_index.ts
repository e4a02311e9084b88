// This module is browser compatible.
// The exact-target index of the programs `evaluate` runs: service →
// resource → action, nested maps (no key building, no scanning). Most
// resources name one action: then the second map holds the offset of that
// action's string in the code, and its program starts just after it, so no
// third map is made (one per target would be most of the index's memory).
import type { Code } from "./_program_layout.ts";

/** Where each target's program starts in the code. */
export class ProgramIndex {
  readonly #services: Map<string, Map<string, number | Map<string, number>>>;

  /**
   * @param services Service → resource → the program's offset for a
   * resource with one action (its action's string is just before), or
   * action → offset.
   */
  constructor(services: Map<string, Map<string, number | Map<string, number>>>) {
    this.#services = services;
  }

  /** The offset of the program of a target in `code`, or -1 when no rule names it. */
  find(code: Code, service: string, resource: string, action: string): number {
    const entry = this.#services.get(service)?.get(resource);
    if (typeof entry === "number") return code[entry - 1] === action ? entry : -1;
    return entry?.get(action) ?? -1;
  }
}
