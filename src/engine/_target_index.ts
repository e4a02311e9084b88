// This module is browser compatible.
// The exact-target index: service → resource → action, nested maps (no key
// building, no scanning).

/** Nested maps from a target's three strings to a value. */
export class TargetIndex<T> {
  readonly #services = new Map<string, Map<string, Map<string, T>>>();

  get(service: string, resource: string, action: string): T | undefined {
    return this.#services.get(service)?.get(resource)?.get(action);
  }

  set(service: string, resource: string, action: string, value: T): void {
    let resources = this.#services.get(service);
    if (resources === undefined) this.#services.set(service, resources = new Map());
    let actions = resources.get(resource);
    if (actions === undefined) resources.set(resource, actions = new Map());
    actions.set(action, value);
  }

  /**
   * Replaces every value by `transform(value)`, in place: the maps are
   * reused, which saves allocating a second index of the same size. Returns
   * this index, now holding the new values.
   */
  transform<U>(transform: (value: T) => U): TargetIndex<U> {
    for (const resources of this.#services.values()) {
      for (const actions of resources.values()) {
        for (const [action, value] of actions) {
          (actions as Map<string, unknown>).set(action, transform(value));
        }
      }
    }
    return this as unknown as TargetIndex<U>;
  }
}
