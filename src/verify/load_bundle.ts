// This module is browser compatible.
/**
 * The load pipeline shared by both clients and the CLI: from the bytes of a
 * bundle to a compiled, verified bundle and its status.
 *
 * @module
 */
import { canonicalPayloadBytesOfParsed } from "../engine/canonical_payload.ts";
import { toHex } from "../_internal/encoding.ts";
import { type CompiledBundle, compileForLoad } from "../engine/compile_bundle.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import type { Issue, RuntimeBundleV1 } from "../engine/types.ts";
import { JsonParseError, parseJson } from "../engine/parse_json.ts";
import {
  type BundleSignatureStatus,
  checkSignature,
  type VerifyBundleSignatureOptions,
} from "./verify_bundle_signature.ts";
import { subtleCrypto } from "../_internal/subtle_crypto.ts";
import {
  checkFreshness,
  expiryError,
  FRESHNESS_FIELDS,
  type FreshnessStatus,
  type VerifyFreshnessOptions,
} from "./verify_freshness.ts";
import {
  booleanField,
  bytesField,
  checkOptions,
  describeValue,
  type Fields,
} from "../_internal/check_options.ts";
import { verifyField } from "./verify_keys.ts";

/** Default `maxFileBytes`: 8 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Bundles up to this size load without yielding to the event loop between steps. */
const YIELD_ABOVE_BYTES = 256 * 1024;

/** Options of {@link loadBundle}. */
export interface LoadBundleOptions
  extends VerifyBundleSignatureOptions, Omit<VerifyFreshnessOptions, "verify"> {
  /** Largest bundle accepted, in bytes. Default 8 MiB. */
  maxFileBytes?: number;
  /**
   * The bundle in force, when this load may replace it: a candidate with the
   * same canonical payload (a renewed freshness statement, the same
   * policies republished) takes its compiled form instead of being compiled
   * again.
   */
  inForce?: LoadedBundle;
}

/** What a loaded bundle reports in `status()`. */
export interface BundleStatus {
  /** The bundle's revision counter, or null when the bundle has none. */
  bundleVersion: number | null;
  /** `sha256:<hex>` of the canonical payload, computed at load. */
  checksum: string;
  /** The ETag: the same hex digest in double quotes. */
  etag: string;
  /** The bundle's environment. */
  env: string;
  /**
   * How the signature was checked (`docs/local-client.md`, "`status()`"): a
   * loaded bundle is `verified`, with the key id of the configured key that
   * verified it, or `unsigned`. The `missing` and `unverified` states
   * (`docs/errors.md`, "Loading a bundle") are load failures, never the
   * state of a loaded bundle.
   */
  signature: BundleSignatureStatus;
  /**
   * The verified freshness statement (`docs/operations.md`, "Signed
   * freshness"), or null when the bundle carries none.
   */
  freshness: FreshnessStatus | null;
  /** Number of policies. */
  policies: number;
}

/** A bundle that passed every load check. */
export interface LoadedBundle {
  /** The compiled bundle, ready for `createEvaluator`. */
  compiled: CompiledBundle;
  /** What `status()` of a client reports for it. */
  status: BundleStatus;
  /** Validation warnings (the bundle loads despite them). */
  warnings: Issue[];
}

/** The codes of failed integrity checks, which {@link inspectBundle} returns instead of throwing. */
export const INTEGRITY_CODES: ReadonlySet<string> = new Set([
  "CHECKSUM_MISMATCH",
  "BUNDLE_FRESHNESS_INVALID",
  "BUNDLE_FRESHNESS_MISSING",
  "BUNDLE_EXPIRED",
  "BUNDLE_UNSIGNED",
  "BUNDLE_SIGNATURE_MISSING",
  "BUNDLE_SIGNATURE_UNVERIFIED",
  "BUNDLE_SIGNATURE_INVALID",
  "BUNDLE_SIGNATURE_KEY_UNKNOWN",
  "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
  "BUNDLE_SIGNATURE_ALGORITHM_REMOVED",
]);

/**
 * A bundle as {@link inspectBundle} sees it: through every check of
 * {@link loadBundle}, with a failed checksum or signature reported rather
 * than thrown. Never evaluate one whose `integrity` is not null.
 */
export interface InspectedBundle {
  /** The compiled bundle (structurally valid). */
  compiled: CompiledBundle;
  /**
   * The document as parsed, whole (the compiled bundle does not keep it):
   * for the tools that show, re-sign or compare it.
   */
  document: RuntimeBundleV1;
  /** What `status()` would report, but the signature and the freshness statement. */
  status: Omit<BundleStatus, "signature" | "freshness">;
  /** The verified or unsigned state; null when the checksum or signature checks failed. */
  signature: BundleSignatureStatus | null;
  /**
   * The verified freshness statement, also when it has expired
   * (`integrity` is then `BUNDLE_EXPIRED`); null when there is none, or when
   * an earlier check failed or it did not verify.
   */
  freshness: FreshnessStatus | null;
  /** Validation warnings. */
  warnings: Issue[];
  /**
   * Null when the checksum (if any) matches and the signature passed the
   * options' checks; otherwise the failure a load would throw (a code of
   * {@link INTEGRITY_CODES}): the checksum's first, then the signature's.
   */
  integrity: PolicyError | null;
}

/**
 * Loads a bundle from its bytes (or text), applying the checks of
 * `docs/errors.md` ("Loading a bundle") in order: size
 * (`BUNDLE_TOO_LARGE`), UTF-8 and JSON (`BUNDLE_PARSE_ERROR`), structure
 * (`BUNDLE_INVALID`, with the issues), the embedded checksum if any
 * (`CHECKSUM_MISMATCH`), the signature (the verification states of the
 * same section), then the freshness statement, with the same keys
 * (`BUNDLE_FRESHNESS_MISSING`, `BUNDLE_FRESHNESS_INVALID`, then
 * `BUNDLE_EXPIRED` against `clock.wallNow()`). A byte-order mark is accepted.
 *
 * The steps yield to the event loop between them, so that a process that
 * reloads a bundle keeps answering `evaluate` calls while it loads (each
 * step itself runs to completion: parsing and compiling a large bundle still
 * hold the thread for a few milliseconds per MiB of bundle).
 *
 * @throws {PolicyError} With the codes above and those of `verifyBundleSignature`.
 *
 * @example An unsigned bundle, allowed
 * ```ts
 * import { loadBundle } from "./load_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const loaded = await loadBundle('{"schemaVersion":1,"env":"dev","policies":[]}', { allowUnsigned: true });
 * assert.equal(loaded.status.signature.status, "unsigned");
 * assert.equal(loaded.status.policies, 0);
 * await assert.rejects(loadBundle("{", { allowUnsigned: true }), { code: "BUNDLE_PARSE_ERROR" });
 * ```
 */
export async function loadBundle(
  source: Uint8Array | string,
  options: LoadBundleOptions = {},
): Promise<LoadedBundle> {
  checkOptions(options, LOAD_FIELDS, "loadBundle");
  // The document is left behind: a client keeps the compiled bundle only.
  const { compiled, status, signature, freshness, warnings } = await runPipeline(
    source,
    options,
    false,
  );
  return { compiled, status: { ...status, signature: signature!, freshness }, warnings };
}

/**
 * {@link loadBundle}'s pipeline for tools that must look at a bundle they
 * cannot verify (the `policy` CLI's `inspect`, `sign`, `analyze`): size,
 * JSON and structure are refused with the same codes, but a checksum or
 * signature failure is returned in `integrity` instead of being thrown.
 * Both clients use {@link loadBundle}, which throws.
 *
 * @throws {PolicyError} `BUNDLE_TOO_LARGE`, `BUNDLE_PARSE_ERROR`,
 * `BUNDLE_INVALID`; `INVALID_KEY` and `INVALID_OPTIONS` for unusable options.
 *
 * @example Looking at a bundle that cannot be verified
 * ```ts
 * import { inspectBundle } from "./load_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const text = '{"schemaVersion":1,"env":"dev","policies":[],"checksum":"sha256:' + "0".repeat(64) + '"}';
 * const seen = await inspectBundle(text, { allowUnsigned: true });
 * assert.equal(seen.integrity?.code, "CHECKSUM_MISMATCH");
 * assert.equal(seen.signature, null);
 * assert.equal(seen.compiled.policyCount, 0);
 * ```
 */
export async function inspectBundle(
  source: Uint8Array | string,
  options: LoadBundleOptions = {},
): Promise<InspectedBundle> {
  checkOptions(options, LOAD_FIELDS, "inspectBundle");
  return await runPipeline(source, options, true);
}

/** The options of {@link loadBundle} and {@link inspectBundle}, for the one option checker. */
const LOAD_FIELDS: Fields = {
  verify: verifyField,
  allowUnsigned: booleanField,
  maxFileBytes: bytesField,
  ...FRESHNESS_FIELDS,
  clock: {
    check: (value) =>
      typeof value === "object" && value !== null &&
        typeof (value as { wallNow?: unknown }).wallNow === "function"
        ? undefined
        : `must be an object with wallNow(); got ${describeValue(value)}`,
  },
  inForce: {
    check: (value) =>
      typeof value === "object" && value !== null && "compiled" in value && "status" in value
        ? undefined
        : `must be a bundle loadBundle returned; got ${describeValue(value)}`,
  },
};

/** The one load pipeline; `report` returns integrity failures instead of throwing them. */
async function runPipeline(
  source: Uint8Array | string,
  options: LoadBundleOptions,
  report: boolean,
): Promise<InspectedBundle> {
  const max = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const bytes = typeof source === "string" ? new TextEncoder().encode(source) : source;
  if (bytes.byteLength > max) {
    throw new PolicyError(
      "BUNDLE_TOO_LARGE",
      `the bundle is ${bytes.byteLength} bytes, over the limit of ${max} bytes; raise maxFileBytes or split the bundle`,
    );
  }
  const document = parseBundleBytes(bytes);
  // Each step below runs synchronously; between them, other tasks (the evaluate
  // calls of a server reloading its bundle) get their turn. A small bundle
  // loads faster than a turn of the event loop takes: it does not yield.
  const pause = bytes.byteLength > YIELD_ABOVE_BYTES ? yieldToEventLoop : () => Promise.resolve();
  await pause();
  // Validated, and the rules collected, in one walk of the document.
  const { warnings, keysInOrder, finish } = compileForLoad(document);
  const bundle = document as RuntimeBundleV1;
  await pause();
  const payload = canonicalPayloadBytesOfParsed(bundle, bytes.byteLength, keysInOrder);
  // Hashing and signature verification run outside JavaScript: the programs are made meanwhile.
  const digest = subtleCrypto().digest("SHA-256", payload);
  const signature = checkSignature(bundle, () => payload, options);
  signature.catch(() => {}); // reported below, after a checksum mismatch if there is one
  let compiled: CompiledBundle;
  let hex: string;
  let integrity: PolicyError | null = null;
  const inForce = options.inForce;
  try {
    await pause();
    if (inForce !== undefined && bundle.checksum === inForce.status.checksum) {
      // Claims the payload in force (a renewed statement): make the programs only if it is not.
      hex = toHex(await digest);
      compiled = `sha256:${hex}` === inForce.status.checksum ? inForce.compiled : finish();
    } else {
      compiled = finish();
      hex = toHex(await digest);
    }
    const computed = `sha256:${hex}`;
    if (bundle.checksum !== undefined && bundle.checksum !== computed) {
      integrity = new PolicyError(
        "CHECKSUM_MISMATCH",
        `the bundle's checksum ${bundle.checksum} does not match its contents (${computed}): it was altered or truncated; rebuild it`,
      );
      if (!report) throw integrity;
    }
  } catch (error) {
    // Never leave the crypto work running behind a failure.
    await Promise.allSettled([digest, signature]);
    throw error;
  }
  let verified: BundleSignatureStatus | null = null;
  try {
    verified = await signature;
  } catch (error) {
    if (!report || !isPolicyError(error) || !INTEGRITY_CODES.has(error.code)) throw error;
    integrity ??= error;
  }
  // The freshness statement, with the same keys, once the bundle itself is trusted.
  let freshness: FreshnessStatus | null = null;
  const trusted = integrity === null;
  if (trusted) {
    try {
      freshness = await checkFreshness(bundle, `sha256:${hex}`, options);
      const expired = freshness === null ? null : expiryError(freshness, options, "the bundle");
      if (expired !== null) throw expired;
    } catch (error) {
      if (!report || !isPolicyError(error) || !INTEGRITY_CODES.has(error.code)) throw error;
      integrity = error;
    }
  }
  return {
    compiled,
    document: bundle,
    status: {
      bundleVersion: bundle.bundleVersion ?? null,
      checksum: `sha256:${hex}`,
      etag: `"${hex}"`,
      env: bundle.env,
      policies: bundle.policies.length,
    },
    signature: trusted ? verified : null,
    freshness,
    warnings,
    integrity,
  };
}

/**
 * Resolves after the tasks already queued have run: a macrotask (a message
 * to itself), which fake timers in tests do not hold back.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/**
 * Decodes UTF-8 strictly and parses JSON exactly as written (see
 * `parseJson`). The message names the position of a syntax error, never
 * the bytes.
 * @throws {PolicyError} `BUNDLE_PARSE_ERROR`.
 */
export function parseBundleBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PolicyError(
      "BUNDLE_PARSE_ERROR",
      "the bundle is not valid UTF-8 text; it must be a JSON document",
    );
  }
  try {
    return parseJson(text);
  } catch (error) {
    const detail = error instanceof JsonParseError ? `: ${error.message}` : "";
    throw new PolicyError(
      "BUNDLE_PARSE_ERROR",
      `the bundle is not valid JSON${detail}`,
      { cause: error },
    );
  }
}
