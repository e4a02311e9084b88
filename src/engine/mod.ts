// This module is browser compatible.
/**
 * The bundle model, validation, canonical payload, compiled index and
 * evaluation. Touches no file system and no network.
 *
 * @module
 */
export * from "./types.ts";
export * from "./policy_error.ts";
export * from "./canonical_payload.ts";
