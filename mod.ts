/**
 * Policy bundle runtime: load a signed JSON bundle, verify it and evaluate
 * decisions in-process. This is the library an application needs: the
 * local and remote clients, `evaluate` and its types, loading, verifying
 * and signing bundles, keys, validation, the project's JSON parser and its
 * errors. The subpath exports hold the rest: `./engine` (compiling,
 * tracing, the canonical payload, the vocabulary lists), `./verify` (key
 * importers, payload signatures), `./clients`, `./enforce`,
 * `./decision-log`, `./lint`, `./diff`.
 *
 * @example Evaluating a bundle file with the local client
 * ```ts
 * import { createLocalClient, isPolicyError } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const bundlePath = new URL("./examples/bundle.json", import.meta.url).pathname;
 * await using client = await createLocalClient({ bundlePath, allowUnsigned: true });
 * const target = { service: "billing", resource: "invoice", action: "create" };
 * assert.equal(client.evaluate({ target, context: { plan: "pro" } }).decision, "allow");
 * try {
 *   await createLocalClient({ bundlePath, allowUnsigned: true, watch: { interval: 5 } } as never);
 * } catch (error) {
 *   assert.ok(isPolicyError(error, "INVALID_OPTIONS")); // did you mean "watch.intervalMs"?
 * }
 * ```
 *
 * @module
 */

// The clients: a bundle from a file or from a control plane, kept current.
export {
  type ClientEvent,
  type ClientListener,
  type ClientStatus,
  createLocalClient,
  createRemoteClient,
  type DecisionRecord,
  type FetchFunction,
  type LocalClient,
  type LocalClientOptions,
  type LocalClientStatus,
  type PolicyClient,
  type PollResult,
  type RefreshResult,
  type RemoteClient,
  type RemoteClientOptions,
  type RemoteClientSource,
  type RemoteClientStatus,
  type WatchOptions,
} from "./src/clients/mod.ts";

// Evaluating, and the bundle format's types.
export type {
  Condition,
  ConditionValue,
  ContextPolicy,
  Decision,
  Effect,
  EvaluationRequest,
  FreshnessStatement,
  KillSwitchDescriptor,
  Policy,
  PolicyDefault,
  Rule,
  RuntimeBundleV1,
  Signature,
  Target,
  ThrottleDescriptor,
  ValidationResult,
} from "./src/engine/types.ts";
export type { EffectType, Env, RuleStatus, SignatureAlgorithm } from "./src/public/vocabulary.ts";
export type { Issue } from "./src/public/issue.ts";
export type { Clock } from "./src/public/clock.ts";
export {
  type BundleScope,
  compileBundle,
  type CompiledBundle,
  type CompileOptions,
  createEvaluator,
  evaluate,
  type EvaluateOptions,
  type Evaluator,
} from "./src/engine/mod.ts";

// Validation and JSON exactly as written.
export { validateBundle, type ValidateBundleOptions } from "./src/engine/validate_bundle.ts";
export { JsonParseError, parseJson, type ParseJsonOptions } from "./src/engine/parse_json.ts";

// Errors.
export {
  ERROR_CODES,
  type ErrorCode,
  isPolicyError,
  PolicyError,
  type PolicyErrorOptions,
} from "./src/public/policy_error.ts";

// Loading, verifying and signing bundles; keys.
export {
  type BundleStatus,
  inspectBundle,
  type InspectedBundle,
  loadBundle,
  type LoadBundleOptions,
  type LoadedBundle,
} from "./src/verify/load_bundle.ts";
export {
  type BundleSignatureStatus,
  verifyBundleSignature,
  type VerifyBundleSignatureOptions,
  type VerifyKeyOptions,
  type VerifyKeySet,
} from "./src/verify/verify_bundle_signature.ts";
export { signBundle, type SignBundleOptions } from "./src/verify/sign_bundle.ts";
export { signFreshness, type SignFreshnessOptions } from "./src/verify/sign_freshness.ts";
export {
  type FreshnessStatus,
  verifyFreshness,
  type VerifyFreshnessOptions,
} from "./src/verify/verify_freshness.ts";
export { generateEcdsaKeyPair, type PemKeyPair } from "./src/verify/generate_ecdsa_key_pair.ts";
export { generateHmacSecret } from "./src/verify/generate_hmac_secret.ts";
