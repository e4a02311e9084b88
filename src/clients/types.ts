/**
 * The interface both clients return (SPEC.md "Library operations", CONTRACT.md §2).
 *
 * @module
 */
import type { ContextPolicy, Decision, EvaluationRequest } from "../engine/types.ts";
import type { PolicyError } from "../engine/policy_error.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";
import type { VerifyKeyOptions } from "../verify/verify_bundle_signature.ts";

/** Options every client accepts. */
export interface ClientOptions {
  /** The key bundles must be signed with. */
  verify?: VerifyKeyOptions;
  /** Accept bundles without a signature (only when no `verify` key is set). */
  allowUnsigned?: boolean;
  /** Called with the error of every failed reload; the previous bundle stays in force. */
  onError?: (error: PolicyError) => void;
  /** Add `parsedValue` to `custom` decisions whose value parses as JSON. */
  parseCustomEffect?: boolean;
  /** Top-level context keys allowed in `evaluate`. */
  contextPolicy?: ContextPolicy;
  /** Largest bundle accepted, in bytes. Default 8 MiB. */
  maxFileBytes?: number;
}

/** What `status()` returns (SPEC.md "Client status"). */
export interface ClientStatus extends BundleStatus {
  /** `local` or `remote`. */
  origin: "local" | "remote";
}

/** A loaded, verified bundle to evaluate against, kept current by its client. */
export interface PolicyClient extends AsyncDisposable {
  /** Evaluates one request against the bundle in force. Synchronous; no I/O. */
  evaluate(request: EvaluationRequest): Decision;
  /** The bundle in force and how it was verified. */
  status(): ClientStatus;
  /** Stops every timer and request so the process can exit. Idempotent. */
  close(): Promise<void>;
}
