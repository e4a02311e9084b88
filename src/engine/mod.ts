// This module is browser compatible.
/**
 * The bundle model, validation, canonical payload, compiled index and
 * evaluation. Touches no file system and no network.
 *
 * @module
 */
export * from "./types.ts";
export * from "../_internal/policy_error.ts";
export * from "./parse_json.ts";
// Named, not `*`: these two modules also export what only the load pipeline
// calls (validateForLoad, canonicalPayloadBytesOfParsed).
export {
  type BundleDigest,
  canonicalJson,
  canonicalJsonBytes,
  canonicalPayload,
  canonicalPayloadBytes,
  computeDigest,
  sortBundleKeys,
} from "./canonical_payload.ts";
export { toHex } from "../_internal/encoding.ts";
export {
  assertValidBundle,
  DEFAULT_MAX_ISSUES,
  LOAD_MAX_ISSUES,
  validateBundle,
  type ValidateBundleOptions,
} from "./validate_bundle.ts";
export * from "./compile_bundle.ts";
export * from "./evaluate.ts";
export * from "./trace_evaluation.ts";
