// This module is browser compatible.
/**
 * The bundle model, validation, canonical payload, compiled index and
 * evaluation. Touches no file system and no network.
 *
 * @module
 */
export * from "./types.ts";
export * from "./policy_error.ts";
export * from "./parse_json.ts";
export * from "./canonical_payload.ts";
export * from "./validate_bundle.ts";
export * from "./compile_bundle.ts";
export * from "./evaluate.ts";
export * from "./trace_evaluation.ts";
