/**
 * The samples the page offers: the documents shipped in `examples/`, put
 * into the page when it is built (`tools/build_playground.ts` defines
 * `PLAYGROUND_SAMPLES`).
 *
 * @module
 */

/** A document of `examples/`. */
export interface Sample {
  /** Its path under `examples/`. */
  path: string;
  /** What it is. */
  kind: "bundle" | "draft" | "suite";
  /** Its text, as shipped. */
  text: string;
}

declare const PLAYGROUND_SAMPLES: readonly Sample[];

/** Every sample (none when the module runs outside the built page). */
export const SAMPLES: readonly Sample[] = typeof PLAYGROUND_SAMPLES === "undefined"
  ? []
  : PLAYGROUND_SAMPLES;

/** The samples of the given kinds. */
export function samplesOf(...kinds: Sample["kind"][]): Sample[] {
  return SAMPLES.filter((s) => kinds.includes(s.kind));
}
