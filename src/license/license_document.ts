/**
 * The toolkit licence document (`docs/license.md`): its fields, the bytes
 * its signature covers, and how it is signed and verified (ECDSA P-256 with
 * SHA-256, base64 DER, as for bundles). Touches no file system and no network.
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import { canonicalJson } from "../engine/canonical_payload.ts";
import { PolicyError } from "../public/policy_error.ts";
import { importPublicKey } from "../verify/import_public_key.ts";
import { signPayload } from "../verify/sign_payload.ts";
import { verifyPayload } from "../verify/verify_payload.ts";

/** `schemaVersion` of licence documents. */
export const LICENSE_SCHEMA_VERSION = 1;
/** The feature a licence must list for `build` and `sign`. */
export const TOOLKIT_FEATURE = "toolkit";
/** The one signature algorithm of licences. */
export const LICENSE_SIGNATURE_ALGORITHM = "ECDSA_SHA_256";

/** The signature of a licence: over {@link licensePayload}. */
export interface LicenseSignature {
  algorithm: typeof LICENSE_SIGNATURE_ALGORITHM;
  /** Which issuing key signed it (for key rotation). */
  keyId: string;
  /** Standard base64 of the DER ECDSA signature. */
  value: string;
}

/** What the issuer signs. Fields beyond these are allowed, and signed too. */
export interface LicenseFields {
  schemaVersion: typeof LICENSE_SCHEMA_VERSION;
  licenseId: string;
  licensee: string;
  /** ISO 8601 date-time. */
  issuedAt: string;
  /** ISO 8601 date-time; the licence is expired from this instant on. */
  expiresAt: string;
  features: string[];
  [field: string]: unknown;
}

/** A licence document: the fields and their signature. */
export interface LicenseDocument extends LicenseFields {
  signature: LicenseSignature;
}

/** A licence that verified: what commands print about it. */
export interface VerifiedLicense {
  licenseId: string;
  licensee: string;
  issuedAt: string;
  expiresAt: string;
  features: string[];
  keyId: string;
  /** Whole days until `expiresAt`, rounded up (1 on its last day). */
  daysLeft: number;
}

const DAY_MS = 86_400_000;
/** RFC 3339 date-time with a zone (`Z` or `±hh:mm`), the form `Date.prototype.toISOString` writes. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function invalid(source: string, problem: string): PolicyError {
  return new PolicyError("LICENSE_INVALID", `${source} is not a valid licence: ${problem}`);
}

/**
 * Reads licence text: the JSON document, or (handy in CI secret stores) the
 * standard base64 of it.
 *
 * @param source Where the text came from, for messages (for example `the licence in POLICY_LICENSE`).
 * @throws {PolicyError} `LICENSE_INVALID`.
 */
export function parseLicenseText(text: string, source: string): LicenseDocument {
  let trimmed = text.trim();
  if (!trimmed.startsWith("{") && /^[A-Za-z0-9+/=\s]+$/.test(trimmed)) {
    try {
      const bytes = Uint8Array.from(atob(trimmed.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
      trimmed = new TextDecoder("utf-8", { fatal: true }).decode(bytes).trim();
    } catch {
      // not base64 after all: reported as not JSON below
    }
  }
  let value: unknown;
  try {
    value = parseJson(trimmed);
  } catch {
    throw invalid(source, "it is not a JSON document (or the base64 of one)");
  }
  return parseLicense(value, source);
}

/**
 * Checks the shape of a parsed licence document (not its signature).
 *
 * @throws {PolicyError} `LICENSE_INVALID`, naming the first wrong field.
 */
export function parseLicense(value: unknown, source: string): LicenseDocument {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(source, "it is not a JSON object");
  }
  const doc = value as Record<string, unknown>;
  if (doc.schemaVersion !== LICENSE_SCHEMA_VERSION) {
    throw invalid(source, `schemaVersion must be ${LICENSE_SCHEMA_VERSION}`);
  }
  for (const field of ["licenseId", "licensee"]) {
    if (typeof doc[field] !== "string" || doc[field] === "") {
      throw invalid(source, `${field} must be a non-empty string`);
    }
  }
  for (const field of ["issuedAt", "expiresAt"]) {
    const text = doc[field];
    if (typeof text !== "string" || !DATE_TIME.test(text) || Number.isNaN(Date.parse(text))) {
      throw invalid(source, `${field} must be an ISO 8601 date-time such as 2027-01-31T00:00:00Z`);
    }
  }
  if (Date.parse(doc.expiresAt as string) <= Date.parse(doc.issuedAt as string)) {
    throw invalid(source, "expiresAt must be after issuedAt");
  }
  if (!Array.isArray(doc.features) || !doc.features.every((f) => typeof f === "string")) {
    throw invalid(source, "features must be an array of strings");
  }
  const signature = doc.signature;
  if (typeof signature !== "object" || signature === null || Array.isArray(signature)) {
    throw invalid(source, "it has no signature object");
  }
  const { algorithm, keyId, value: signatureValue } = signature as Record<string, unknown>;
  if (algorithm !== LICENSE_SIGNATURE_ALGORITHM) {
    throw invalid(source, `signature.algorithm must be ${LICENSE_SIGNATURE_ALGORITHM}`);
  }
  if (typeof keyId !== "string" || keyId === "") {
    throw invalid(source, "signature.keyId must be a non-empty string");
  }
  if (typeof signatureValue !== "string" || signatureValue === "") {
    throw invalid(source, "signature.value must be a non-empty string");
  }
  return doc as LicenseDocument;
}

/**
 * The bytes a licence signature covers: the document without `signature`,
 * serialised with keys sorted at every depth and no whitespace (the
 * canonical JSON of bundles), as UTF-8. Reformatting the file keeps it valid.
 */
export function licensePayload(document: LicenseFields | LicenseDocument): Uint8Array<ArrayBuffer> {
  const { signature: _signature, ...fields } = document as Record<string, unknown>;
  return new TextEncoder().encode(canonicalJson(fields));
}

/**
 * Signs licence fields (what the issuer does; the CLI only verifies). Used
 * by tests and activation stubs.
 *
 * @param privateKey PKCS#8 or SEC1 PEM text, or a private `CryptoKey`.
 */
export async function signLicense(
  fields: LicenseFields,
  privateKey: string | CryptoKey,
  keyId: string,
): Promise<LicenseDocument> {
  const { signature: _drop, ...rest } = fields as Record<string, unknown>;
  const value = await signPayload(
    LICENSE_SIGNATURE_ALGORITHM,
    privateKey,
    licensePayload(rest as LicenseFields),
  );
  return { ...(rest as LicenseFields), signature: { algorithm: "ECDSA_SHA_256", keyId, value } };
}

/** Options of {@link verifyLicense}. */
export interface VerifyLicenseOptions {
  /** SPKI PEM text or a public `CryptoKey`: the issuer's key. */
  publicKey: string | CryptoKey;
  /** The clock. */
  now: Date;
  /** Where the licence came from, for messages. */
  source: string;
  /** A feature the licence must list (default {@link TOOLKIT_FEATURE}). */
  feature?: string;
}

/**
 * Verifies a licence: the signature with the issuer's public key, then the
 * expiry against `now`, then the feature.
 *
 * @throws {PolicyError} `LICENSE_INVALID` (signature does not match, or the
 * feature is missing), `LICENSE_EXPIRED`, `INVALID_KEY` (unusable public key).
 */
export async function verifyLicense(
  document: LicenseDocument,
  options: VerifyLicenseOptions,
): Promise<VerifiedLicense> {
  const { source, now } = options;
  const key = await importPublicKey(options.publicKey);
  let matches: boolean;
  try {
    matches = await verifyPayload(
      LICENSE_SIGNATURE_ALGORITHM,
      key,
      licensePayload(document),
      document.signature.value,
    );
  } catch (error) {
    if (error instanceof PolicyError && error.code === "BUNDLE_SIGNATURE_INVALID") {
      throw invalid(source, "its signature value is malformed");
    }
    throw error;
  }
  if (!matches) {
    throw new PolicyError(
      "LICENSE_INVALID",
      `${source} is not a valid licence: its signature does not match (it was altered, or not issued for this tool)`,
    );
  }
  const expires = Date.parse(document.expiresAt);
  if (now.getTime() >= expires) {
    throw new PolicyError(
      "LICENSE_EXPIRED",
      `${source} (${document.licenseId}, ${document.licensee}) expired on ${document.expiresAt}; renew it, then run 'policy activate' again or update POLICY_LICENSE / POLICY_LICENSE_FILE`,
    );
  }
  const feature = options.feature ?? TOOLKIT_FEATURE;
  if (!document.features.includes(feature)) {
    throw invalid(source, `it does not include the "${feature}" feature that build and sign need`);
  }
  return {
    licenseId: document.licenseId,
    licensee: document.licensee,
    issuedAt: document.issuedAt,
    expiresAt: document.expiresAt,
    features: [...document.features],
    keyId: document.signature.keyId,
    daysLeft: Math.ceil((expires - now.getTime()) / DAY_MS),
  };
}
