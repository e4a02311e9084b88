/**
 * The strict reader of key text: every key the CLI reads (public keys,
 * private keys, HMAC secrets, from files, variables or flags) goes through
 * it, on the one PEM parser of `src/verify/pem.ts` in its strict mode
 * (docs/cli.md, "Reading key text"):
 *
 * - text with PEM armour is PEM: well-formed blocks only (BEGIN and END
 *   with the same label, a base64 body, no headers); text outside the
 *   blocks is ignored, as PEM allows, and is never a key;
 * - text without PEM armour is bare 64-hex secrets separated by white
 *   space, and nothing else;
 *
 * anything else is `INVALID_KEY`. Messages name the source (a path or a
 * variable name), never the text.
 *
 * @module
 */
import type { SignatureAlgorithm } from "../../engine/types.ts";
import { PolicyError } from "../../public/policy_error.ts";
import { MalformedPemError, parsePem, type PemBlock } from "../../verify/pem.ts";
import { MAX_VERIFY_KEYS, type VerifyKeyOptions } from "../../verify/verify_bundle_signature.ts";

/** Conventional name of the environment variable holding the HMAC secret. */
export const DEFAULT_HMAC_SECRET_ENV = "POLICY_HMAC_SECRET";

/** A key that verifies signatures. `publicKey` is secret for HMAC: never print it. */
export interface VerifyKey {
  algorithm: SignatureAlgorithm;
  publicKey: string | CryptoKey;
  /**
   * Every trusted key, when the key text held several (a key rotation):
   * the first is `algorithm`/`publicKey`. Absent: that one key.
   */
  keys?: readonly VerifyKeyOptions[];
  /** Where the key came from, for people (never the key). */
  source: string;
}

/** A key text read strictly: PEM blocks, or bare 64-hex secrets. */
type KeyText =
  | { kind: "pem"; blocks: PemBlock[] }
  | { kind: "secrets"; secrets: string[] };

const HEX_SECRET = /^[0-9a-fA-F]{64}$/;

function invalidKey(message: string): PolicyError {
  return new PolicyError("INVALID_KEY", message);
}

/**
 * Reads key text strictly (see above).
 *
 * @throws {PolicyError} `INVALID_KEY`.
 */
function readKeyText(text: string, source: string): KeyText {
  if (!text.includes("-----BEGIN") && !text.includes("-----END")) {
    const secrets = text.split(/\s+/).filter((token) => token !== "");
    if (secrets.length === 0) throw invalidKey(`${source} is empty: it holds no key`);
    if (!secrets.every((token) => HEX_SECRET.test(token))) {
      throw invalidKey(
        `${source} is neither PEM (-----BEGIN PUBLIC KEY----- …) nor bare 64-hex HMAC secrets; its text is not printed`,
      );
    }
    return { kind: "secrets", secrets };
  }
  try {
    return { kind: "pem", blocks: parsePem(text, { strict: true }) };
  } catch (error) {
    if (!(error instanceof MalformedPemError)) throw error;
    throw invalidKey(
      `${source} holds malformed PEM: each -----BEGIN <label>----- needs a base64 body and a matching -----END <label>-----; its text is not printed`,
    );
  }
}

/** `an ECDSA_SHA_256 public key` / `an HMAC_SHA256 secret`, for messages. */
export function describeKeyKind(algorithm: SignatureAlgorithm): string {
  return algorithm === "HMAC_SHA256" ? "an HMAC_SHA256 secret" : "an ECDSA_SHA_256 public key";
}

/** What a PEM label holds, for messages (labels outside the known ones are not quoted). */
function describeLabel(label: string): string {
  if (label === "PUBLIC KEY") return "a public key";
  if (label.endsWith("PRIVATE KEY")) return "a private key";
  if (label === "CERTIFICATE") return "a certificate";
  return "a PEM block other than a key";
}

/**
 * The trusted keys in a key text named as a public key (a `--public-key`
 * file, `POLICY_PUBLIC_KEY`, the file of `POLICY_PUBLIC_KEY_PATH` or
 * `signature.publicKeyPath`): SPKI PEM blocks (`-----BEGIN PUBLIC KEY-----`)
 * verify ECDSA_SHA_256, text around them ignored; bare 64-hex secrets
 * verify HMAC_SHA256, only when `algorithm` is HMAC_SHA256 (`--algorithm`).
 * Several keys, up to MAX_VERIFY_KEYS, are a key set: a signature is valid
 * under any of them (docs/operations.md "Rotating the signing key").
 *
 * @throws {PolicyError} `INVALID_KEY`.
 */
export function verifyKeyFromText(
  text: string,
  source: string,
  algorithm?: SignatureAlgorithm,
): VerifyKey {
  const read = readKeyText(text, source);
  let keys: VerifyKeyOptions[];
  if (read.kind === "pem") {
    const other = read.blocks.find((block) => block.label !== "PUBLIC KEY");
    if (other !== undefined) {
      throw invalidKey(
        `${source} holds ${
          describeLabel(other.label)
        }; verification needs the public key (-----BEGIN PUBLIC KEY-----) alone`,
      );
    }
    if (algorithm === "HMAC_SHA256") {
      throw invalidKey(
        `--algorithm HMAC_SHA256 was given, but ${source} holds PEM public keys (ECDSA_SHA_256); an HMAC secret is bare 64 hex digits, and is never taken from text around a PEM block`,
      );
    }
    keys = read.blocks.map((block) => ({ algorithm: "ECDSA_SHA_256", publicKey: block.text }));
  } else {
    if (algorithm !== "HMAC_SHA256") {
      throw invalidKey(
        algorithm === "ECDSA_SHA_256"
          ? `--algorithm ECDSA_SHA_256 was given, but ${source} holds 64-hex text, not a PEM public key (-----BEGIN PUBLIC KEY-----)`
          : `${source} holds 64-hex text, not a PEM public key (-----BEGIN PUBLIC KEY-----); an HMAC secret is read from a public-key file or variable only with --algorithm HMAC_SHA256 (or put it in ${DEFAULT_HMAC_SECRET_ENV})`,
      );
    }
    keys = read.secrets.map((secret) => ({ algorithm: "HMAC_SHA256", publicKey: secret }));
  }
  if (keys.length > MAX_VERIFY_KEYS) {
    throw invalidKey(
      `${source} holds ${keys.length} keys; at most ${MAX_VERIFY_KEYS} are accepted`,
    );
  }
  const [first] = keys as [VerifyKeyOptions];
  return keys.length === 1
    ? { ...first, source }
    : { ...first, keys, source: `${source} (${keys.length} keys)` };
}

/**
 * The one private key in a key text (a `--ecdsa-private-key` file or a
 * signing block's `ecdsaPrivateKeyPath`): exactly one private-key PEM block
 * (SEC1's leading `EC PARAMETERS` block allowed), text around it ignored.
 * The library's importer then checks what the block holds.
 *
 * @throws {PolicyError} `INVALID_KEY`.
 */
export function privateKeyFromText(text: string, source: string): string {
  const read = readKeyText(text, source);
  if (read.kind === "secrets") {
    throw invalidKey(
      `${source} holds 64-hex text, not a PEM private key (-----BEGIN PRIVATE KEY-----); an HMAC secret belongs in an environment variable (--hmac-secret-env)`,
    );
  }
  const keys = read.blocks.filter((block) => block.label !== "EC PARAMETERS");
  const parameters = read.blocks.length - keys.length;
  const [key] = keys;
  if (key === undefined || !key.label.endsWith("PRIVATE KEY")) {
    throw invalidKey(
      `${source} holds ${
        key === undefined ? "no key" : describeLabel(key.label)
      }; signing needs one PEM private key (-----BEGIN PRIVATE KEY-----)`,
    );
  }
  if (keys.length > 1 || parameters > 1) {
    throw invalidKey(
      `${source} holds ${read.blocks.length} PEM blocks; a private-key file holds exactly one key`,
    );
  }
  return read.blocks.map((block) => block.text).join("");
}

/**
 * The one HMAC secret in a text (`--hmac-secret`, a signing block's
 * `hmacSecretEnv` variable, `POLICY_HMAC_SECRET`): 64 hex digits on their
 * own (surrounding white space allowed).
 *
 * @throws {PolicyError} `INVALID_KEY`.
 */
export function secretFromText(text: string, source: string): string {
  const trimmed = text.trim();
  if (trimmed !== "" && !/\s/.test(trimmed) && !trimmed.includes("-----")) {
    if (HEX_SECRET.test(trimmed)) return trimmed;
    throw invalidKey(
      `${source} is not an HMAC secret: expected 64 hex characters (256 bits); found ${trimmed.length} characters${
        trimmed.length === 64 ? ", not all hex digits" : ""
      } (not printed)`,
    );
  }
  const read = readKeyText(text, source);
  throw invalidKey(
    read.kind === "pem"
      ? `${source} holds PEM text; an HMAC secret is 64 hex digits on their own`
      : `${source} holds ${read.secrets.length} secrets; it must hold exactly one (64 hex digits)`,
  );
}

/**
 * The public key of a PKCS#8 PEM P-256 private key (the text
 * {@link privateKeyFromText} returns), or null when it cannot be derived.
 */
export async function publicKeyOfPkcs8(pem: string): Promise<CryptoKey | null> {
  const der = parsePem(pem).find((block) => block.label === "PRIVATE KEY")?.der;
  if (der === undefined) return null;
  try {
    const curve = { name: "ECDSA", namedCurve: "P-256" };
    const privateKey = await crypto.subtle.importKey("pkcs8", der, curve, true, ["sign"]);
    const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", privateKey);
    if (kty === undefined || crv === undefined || x === undefined || y === undefined) return null;
    return await crypto.subtle.importKey("jwk", { kty, crv, x, y }, curve, true, ["verify"]);
  } catch {
    // No cause and no detail: keep key material out of anything that gets printed.
    return null;
  }
}
