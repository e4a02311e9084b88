// This module is browser compatible.
/**
 * The layout of a bundle's programs, shared by the modules that emit them
 * (`_bundle_builder.ts`), link and run them (`dispatch/program_dispatch.ts`,
 * `_target_program.ts`, which describes the instructions) and read their
 * candidate records (`_decision.ts`, `_trace_plan.ts`).
 *
 * @module
 */

/** The shared array holding every program and candidate record of a bundle. */
export type Code = readonly unknown[];

/** `ifTrue`/`ifFalse` value meaning that no candidate fires. */
export const NO_CANDIDATE = -1;

/** Slots of a candidate record. */
export const RECORD_SIZE = 7;

/** How many rule tests a program can remember results of (small integers only). */
export const MEMO_BITS = 30;
