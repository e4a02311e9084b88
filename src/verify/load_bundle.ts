// This module is browser compatible.
/**
 * The load pipeline shared by both clients and the CLI: from the bytes of a
 * bundle to a compiled, verified bundle and its status.
 *
 * @module
 */
import { canonicalPayloadBytes, toHex } from "../engine/canonical_payload.ts";
import { compileBundle, type CompiledBundle } from "../engine/compile_bundle.ts";
import { PolicyError } from "../engine/policy_error.ts";
import type { Issue, RuntimeBundleV1, SignatureAlgorithm } from "../engine/types.ts";
import { assertValidBundle } from "../engine/validate_bundle.ts";
import { checkSignature, type VerifyBundleSignatureOptions } from "./verify_bundle_signature.ts";

/**
 * Default `maxFileBytes`: 8 MiB.
 *
 * @example Larger bundles are refused before parsing
 * ```ts
 * import { DEFAULT_MAX_FILE_BYTES, loadBundle } from "./load_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_MAX_FILE_BYTES, 8 * 1024 * 1024);
 * await assert.rejects(
 *   loadBundle(new Uint8Array(DEFAULT_MAX_FILE_BYTES + 1), { allowUnsigned: true }),
 *   { code: "BUNDLE_TOO_LARGE" },
 * );
 * ```
 */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Options of {@link loadBundle}. */
export interface LoadBundleOptions extends VerifyBundleSignatureOptions {
  /** Largest bundle accepted, in bytes. Default 8 MiB. */
  maxFileBytes?: number;
}

/** The signature part of a client's status (SPEC.md "Client status"). */
export interface SignatureStatus {
  /** The verification state (SPEC.md); loads succeed only when `verified` or `unsigned`. */
  status: "verified" | "unsigned" | "missing" | "unverified";
  /** The algorithm of the signature, when verified. */
  algorithm?: SignatureAlgorithm;
  /** The key id of the signature, when verified. */
  keyId?: string;
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
  /** How the bundle was verified. */
  signature: SignatureStatus;
  /** Number of policies. */
  policies: number;
}

/** A bundle that passed every load check. */
export interface LoadedBundle {
  /** The compiled bundle, ready to evaluate. */
  compiled: CompiledBundle;
  /** What `status()` reports for it. */
  status: BundleStatus;
  /** Validation warnings (the bundle loads despite them). */
  warnings: Issue[];
}

/**
 * Loads a bundle from its bytes (or text), applying the checks of
 * CONTRACT.md §3 in order: size (`BUNDLE_TOO_LARGE`), UTF-8 and JSON
 * (`BUNDLE_PARSE_ERROR`), structure (`BUNDLE_INVALID`, with the issues),
 * the embedded checksum if any (`CHECKSUM_MISMATCH`), then the signature
 * (the verification states of SPEC.md). A byte-order mark is accepted.
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
  const max = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const bytes = typeof source === "string" ? new TextEncoder().encode(source) : source;
  if (bytes.byteLength > max) {
    throw new PolicyError(
      "BUNDLE_TOO_LARGE",
      `the bundle is ${bytes.byteLength} bytes, over the limit of ${max} bytes; raise maxFileBytes or split the bundle`,
    );
  }
  const document = parseBundleBytes(bytes);
  const warnings = assertValidBundle(document);
  const bundle = document as RuntimeBundleV1;
  const payload = canonicalPayloadBytes(bundle);
  const hex = toHex(await crypto.subtle.digest("SHA-256", payload));
  const checksum = `sha256:${hex}`;
  if (bundle.checksum !== undefined && bundle.checksum !== checksum) {
    throw new PolicyError(
      "CHECKSUM_MISMATCH",
      `the bundle's checksum ${bundle.checksum} does not match its contents (${checksum}): it was altered or truncated; rebuild it`,
    );
  }
  const signature = await checkSignature(bundle, () => payload, options);
  return {
    /** The compiled bundle, ready to evaluate. */
    compiled: compileBundle(bundle, { skipValidation: true }),
    /** What `status()` reports for it. */
    status: {
      bundleVersion: bundle.bundleVersion ?? null,
      checksum,
      etag: `"${hex}"`,
      env: bundle.env,
      signature,
      policies: bundle.policies.length,
    },
    warnings,
  };
}

/**
 * Decodes UTF-8 strictly and parses JSON.
 * @throws {PolicyError} `BUNDLE_PARSE_ERROR`.
 *
 * @example Bytes to a document, or BUNDLE_PARSE_ERROR
 * ```ts
 * import { parseBundleBytes } from "./load_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseBundleBytes(new TextEncoder().encode('{"env":"dev"}')), { env: "dev" });
 * assert.throws(() => parseBundleBytes(new Uint8Array([0xff])), { code: "BUNDLE_PARSE_ERROR" });
 * ```
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
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new PolicyError(
      "BUNDLE_PARSE_ERROR",
      `the bundle is not valid JSON${detail}`,
      { cause: error },
    );
  }
}
