/**
 * Bundle files in the CLI. Reading: the bytes, read within
 * `limits.maxFileBytes`, go through the library's own load pipeline
 * (`loadBundle` of `src/verify/load_bundle.ts`: size, JSON, structure,
 * checksum, signature, compile), so a command accepts exactly what a client
 * would. A command that must look at a bundle it cannot verify (`inspect`,
 * `sign`, `analyze`, `diff`) goes through `inspectBundle`, the same pipeline
 * reporting integrity failures rather than throwing them; it never evaluates
 * such a bundle. Writing (`build`, `sign`): the
 * text a bundle is written as, and the parity check that this exact text
 * loads through the same pipeline before it is written.
 *
 * @module
 */
import { isPolicyError, type PolicyError } from "../../public/policy_error.ts";
import { restateError } from "../../_internal/restate_error.ts";
import type { RuntimeBundleV1 } from "../../engine/types.ts";
import {
  inspectBundle,
  type InspectedBundle,
  loadBundle,
  type LoadedBundle,
} from "../../verify/load_bundle.ts";
import { withSchema } from "./schema.ts";
import { CliError } from "./errors.ts";
import type { Session } from "./session.ts";
import type { SigningKey } from "./signing.ts";
import type { VerifyKey } from "./key_text.ts";
import { ownVerifyKey, verifyOption } from "./verify_key.ts";
import { checkDocumentSize } from "./write_document.ts";
import { warnIfExpired } from "./freshness.ts";

/**
 * Reads and loads the bundle at `file` exactly as a client given the key
 * `verify` would (none: unsigned bundles load, as with `allowUnsigned`; a
 * signed one fails with `BUNDLE_SIGNATURE_UNVERIFIED`), with one exception:
 * a freshness statement that has expired is a warning (`FRESHNESS_EXPIRED`),
 * not a failure, so that a command can still show what the bundle decides.
 * Validation warnings are printed as warnings. Errors name the file.
 *
 * @throws {PolicyError} The load codes: `BUNDLE_READ_ERROR`,
 * `BUNDLE_TOO_LARGE`, `BUNDLE_PARSE_ERROR`, `BUNDLE_INVALID` (with the
 * issues), `CHECKSUM_MISMATCH`, the signature codes and
 * `BUNDLE_FRESHNESS_INVALID`.
 */
export async function loadBundleFile(
  session: Session,
  file: string,
  verify: VerifyKey | null,
): Promise<LoadedBundle> {
  const seen = await throughPipeline(session, file, verify);
  const failure = seen.integrity;
  if (failure !== null && failure.code !== "BUNDLE_EXPIRED") throw inFile(failure, file);
  return {
    compiled: seen.compiled,
    status: { ...seen.status, signature: seen.signature!, freshness: seen.freshness },
    warnings: seen.warnings,
  };
}

/**
 * {@link loadBundleFile} for a command that must look at a bundle it cannot
 * verify: a checksum or signature failure is returned in `integrity`
 * (`inspectBundle`), never thrown.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR`, `BUNDLE_TOO_LARGE`,
 * `BUNDLE_PARSE_ERROR`, `BUNDLE_INVALID`.
 */
export async function inspectBundleFile(
  session: Session,
  file: string,
  verify: VerifyKey | null,
): Promise<InspectedBundle> {
  return await throughPipeline(session, file, verify);
}

/**
 * {@link inspectBundleFile} for a command that does not judge the signature
 * (`sign` replaces it, `diff` compares meaning, `simulate --skip-verify`):
 * the bundle as loaded, unless its checksum does not match, which stops the
 * command (the bundle changed after it was built).
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR`, `BUNDLE_TOO_LARGE`,
 * `BUNDLE_PARSE_ERROR`, `BUNDLE_INVALID`, `CHECKSUM_MISMATCH`.
 */
export async function readBundleFileUnverified(
  session: Session,
  file: string,
): Promise<InspectedBundle> {
  const seen = await throughPipeline(session, file, null, false);
  if (seen.integrity?.code === "CHECKSUM_MISMATCH") throw inFile(seen.integrity, file);
  return seen;
}

/**
 * The bundle at `file` through `inspectBundle`, with the session's clock;
 * prints its validation warnings and, with `warnExpired` (the default),
 * `FRESHNESS_EXPIRED` for a statement that has expired.
 */
async function throughPipeline(
  session: Session,
  file: string,
  verify: VerifyKey | null,
  warnExpired = true,
): Promise<InspectedBundle> {
  const bytes = await session.readBytes(file, "bundle");
  let loaded: InspectedBundle;
  try {
    loaded = await inspectBundle(bytes, {
      maxFileBytes: (await session.config()).maxFileBytes,
      allowUnsigned: true,
      clock: session.io.clock,
      ...(verify !== null && { verify: verifyOption(verify) }),
    });
  } catch (error) {
    throw isPolicyError(error) ? inFile(error, file) : error;
  }
  for (const w of loaded.warnings) {
    session.out.warn(w.code, `${w.message} (at ${w.path || "/"})`);
  }
  if (warnExpired) warnIfExpired(session, loaded.document, file);
  return loaded;
}

/**
 * {@link loadBundleFile} for bundle text a command made itself
 * (`simulate --draft`: what `build` would write), unsigned, `file` naming
 * where it came from in messages. Its validation warnings are not printed:
 * the draft's check printed them.
 *
 * @throws {PolicyError} `BUNDLE_TOO_LARGE` and the other load codes.
 */
export async function loadBundleText(
  session: Session,
  file: string,
  text: string,
): Promise<LoadedBundle> {
  const maxFileBytes = (await session.config()).maxFileBytes;
  try {
    return await loadBundle(new TextEncoder().encode(text), { maxFileBytes, allowUnsigned: true });
  } catch (error) {
    throw isPolicyError(error) ? inFile(error, file) : error;
  }
}

/** The same error, its message naming the file (and for `BUNDLE_INVALID`, how to list every issue). */
export function inFile(error: PolicyError, file: string): PolicyError {
  const list = error.code === "BUNDLE_INVALID"
    ? `; run 'policy validate ${file}' for the list`
    : "";
  return restateError(error, `${file}: ${inCliWords(error).message}${list}`);
}

/**
 * Advice of the library's messages in its own terms (the `verify` option),
 * by code: what the CLI says instead, in terms of key files.
 */
const LIBRARY_ADVICE: Readonly<Record<string, readonly [RegExp, string]>> = {
  BUNDLE_SIGNATURE_KEY_UNKNOWN: [
    /; add that key to verify if it is a new signing key$/,
    "; if it is a new signing key, add it to the key file (a key file may hold several keys during a rotation)",
  ],
  BUNDLE_SIGNATURE_UNVERIFIED: [/; set verify: .*$/, ""],
  BUNDLE_UNSIGNED: [/; sign it and configure verify: .*$/, ""],
};

/** The same error, its message advising in the CLI's words (flags, files) instead of the library's options. */
export function inCliWords(error: PolicyError): PolicyError {
  const advice = Object.hasOwn(LIBRARY_ADVICE, error.code) ? LIBRARY_ADVICE[error.code] : undefined;
  if (advice === undefined) return error;
  const message = error.message.replace(advice[0], advice[1]);
  return message === error.message ? error : restateError(error, message);
}

/**
 * The text a bundle is written as: compact JSON (no whitespace), `$schema`
 * first for editors (docs/schemas.md; a bundle naming its own keeps it), and
 * a final newline. Pretty-printing made bundles about three times the size
 * of a compact draft, and a bundle must fit in `limits.maxFileBytes` (and in
 * the clients' `maxFileBytes`); `policy inspect` shows one for people.
 */
export function bundleText(bundle: RuntimeBundleV1): string {
  return JSON.stringify(withSchema(bundle, "bundle")) + "\n";
}

/** What the parity check found about the signature. */
export type ParitySignature = "verified" | "unsigned" | "skipped";

/**
 * The parity check of `build` and `sign`: the exact `text` about to be
 * written at `file` must fit in `limits.maxFileBytes` and load through the
 * library's pipeline as a client would load it (strict JSON, structure,
 * checksum, compile) and, when signed, verify with the key that belongs to
 * `signingKey`. `skipped`: signed with a SEC1 ECDSA key whose public half
 * cannot be derived, and no public key is configured (then it warns
 * `PARITY_SIGNATURE_SKIPPED`).
 *
 * @throws {PolicyError|CliError} `BUNDLE_TOO_LARGE` (nothing is written);
 * `PARITY_FAILED` for anything else a client would refuse.
 */
export async function checkParity(
  session: Session,
  file: string,
  text: string,
  signingKey: SigningKey | null,
): Promise<ParitySignature> {
  const maxFileBytes = (await session.config()).maxFileBytes;
  const bytes = new TextEncoder().encode(text);
  checkDocumentSize(file, "bundle", bytes.byteLength, maxFileBytes);
  const key = signingKey === null ? null : await ownVerifyKey(session, signingKey);
  if (key !== null) session.out.note(`checking the new signature with ${key.source}`);
  const fail = (why: string) =>
    new CliError(
      "PARITY_FAILED",
      `the bundle to write to ${file} would not load in a client: ${why}; it was not written`,
    );
  let loaded: InspectedBundle;
  try {
    loaded = await inspectBundle(bytes, {
      maxFileBytes,
      allowUnsigned: true,
      clock: session.io.clock,
      ...(key !== null && { verify: verifyOption(key) }),
    });
  } catch (error) {
    if (!isPolicyError(error)) throw error;
    throw fail(`${error.message} (${error.code})`);
  }
  const failure = loaded.integrity;
  if (failure === null) return signingKey === null ? "unsigned" : "verified";
  if (key === null && failure.code === "BUNDLE_SIGNATURE_UNVERIFIED") {
    session.out.warn(
      "PARITY_SIGNATURE_SKIPPED",
      "the new signature was not checked: the private key is not PKCS#8 and no public key is configured (signature.publicKeyPath)",
    );
    return "skipped";
  }
  throw fail(`${failure.message} (${failure.code})`);
}
