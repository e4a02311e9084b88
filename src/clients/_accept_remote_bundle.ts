// This module is browser compatible.
// Every check a remote candidate must pass, from the network or the cache
// file (docs/remote.md "Answers"): the load pipeline with the trusted ECDSA
// keys, HMAC refused, and the client's scope.
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import { restateError } from "../_internal/restate_error.ts";
import type { Env } from "../engine/types.ts";
import { loadBundle, type LoadedBundle } from "../verify/load_bundle.ts";
import type { VerifyKeyOptions } from "../verify/verify_bundle_signature.ts";
import type { Clock } from "../public/clock.ts";

/** What a candidate is checked against. */
export interface RemoteScope {
  orgId: string;
  projectId: string;
  env: Env;
  verify: readonly VerifyKeyOptions[];
  maxFileBytes: number;
  requireFreshness: boolean;
  clockSkewMs: number;
  clock: Clock;
}

/**
 * Loads `bytes` (described by `what` in messages) with the trusted keys
 * (never `allowUnsigned`) and checks the bundle's scope.
 *
 * @throws {PolicyError} A load code, `REMOTE_HMAC_REFUSED`, `BUNDLE_UNSIGNED`
 * or `BUNDLE_SCOPE_MISMATCH`.
 */
export async function acceptRemoteBundle(
  bytes: Uint8Array,
  what: string,
  scope: RemoteScope,
  inForce?: LoadedBundle,
): Promise<LoadedBundle> {
  let loaded: LoadedBundle;
  try {
    loaded = await loadBundle(bytes, {
      verify: scope.verify,
      maxFileBytes: scope.maxFileBytes,
      requireFreshness: scope.requireFreshness,
      clockSkewMs: scope.clockSkewMs,
      clock: scope.clock,
      ...(inForce !== undefined && { inForce }),
    });
  } catch (error) {
    throw refineLoadError(error, what);
  }
  const bundle = loaded.compiled.scope;
  const wrong = (["orgId", "projectId", "env"] as const).filter((field) =>
    bundle[field] !== scope[field]
  );
  if (wrong.length > 0) {
    const describe = (field: typeof wrong[number]) =>
      `${field} ${
        bundle[field] === undefined ? "absent" : JSON.stringify(bundle[field])
      } (expected ${JSON.stringify(scope[field])})`;
    throw new PolicyError(
      "BUNDLE_SCOPE_MISMATCH",
      `${what} is for another scope: ${wrong.map(describe).join(", ")}; it is not put in force`,
    );
  }
  return loaded;
}

/**
 * The load error of a remote candidate, in the remote client's terms and
 * naming the candidate: an HMAC-signed bundle is refused
 * (`REMOTE_HMAC_REFUSED`: the trusted keys are ECDSA, so it shows as an
 * algorithm mismatch), and `allowUnsigned` does not apply.
 */
function refineLoadError(error: unknown, what: string): unknown {
  if (isPolicyError(error, "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH")) {
    return new PolicyError(
      "REMOTE_HMAC_REFUSED",
      `${what} is signed with HMAC_SHA256, which is refused for remote delivery (whoever can verify an HMAC signature can forge one); the control plane must sign with ECDSA_SHA_256`,
      { cause: error },
    );
  }
  if (isPolicyError(error, "BUNDLE_SIGNATURE_MISSING")) {
    return new PolicyError(
      "BUNDLE_SIGNATURE_MISSING",
      `${what} has no signature; bundles from a control plane must be signed with ECDSA_SHA_256 (allowUnsigned does not apply to the remote client)`,
      { cause: error },
    );
  }
  if (error instanceof PolicyError) return restateError(error, `${what}: ${error.message}`);
  return error;
}
