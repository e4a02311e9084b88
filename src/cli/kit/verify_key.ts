/**
 * Which key verifies a bundle's signature (`inspect --signature`,
 * `simulate` of a signed bundle, the check after `build --signed` and
 * `sign`): flags, environment, config and signing blocks, in that order
 * (docs/cli.md, "Keys and secrets"). Key text is read by `key_text.ts`.
 *
 * @module
 */
import type { SignatureAlgorithm } from "../../engine/types.ts";
import { PolicyError } from "../../public/policy_error.ts";
import { SIGNATURE_ALGORITHMS } from "../../verify/signature_algorithms.ts";
import type { VerifyKeySet } from "../../verify/verify_bundle_signature.ts";
import type { FlagSpecs } from "./command_spec.ts";
import type { SigningBlock } from "./config.ts";
import { CliError } from "./errors.ts";
import type { Session } from "./session.ts";
import type { SigningKey } from "./signing.ts";
import {
  DEFAULT_HMAC_SECRET_ENV,
  describeKeyKind,
  privateKeyFromText,
  publicKeyOfPkcs8,
  secretFromText,
  type VerifyKey,
  verifyKeyFromText,
} from "./key_text.ts";

/**
 * The `--algorithm` flag of the commands that verify (`inspect`,
 * `simulate`): which kind of key the verification key text holds. Without
 * it a public-key source (`--public-key`, `POLICY_PUBLIC_KEY`,
 * `POLICY_PUBLIC_KEY_PATH`, `signature.publicKeyPath`) is read as SPKI PEM
 * only; an HMAC secret is taken from one only with `--algorithm HMAC_SHA256`.
 */
export const VERIFY_ALGORITHM_FLAG: FlagSpecs = Object.freeze({
  algorithm: {
    type: "string",
    value: "<alg>",
    choices: ["ECDSA_SHA_256", "HMAC_SHA256"],
    description:
      "ECDSA_SHA_256 or HMAC_SHA256: what the verification key is; HMAC_SHA256 is needed to read a 64-hex secret from a public-key file or POLICY_PUBLIC_KEY",
  },
});

/**
 * The value of {@link VERIFY_ALGORITHM_FLAG} (case-insensitive), or undefined.
 *
 * @throws {CliError} `USAGE_ERROR` for another value.
 */
export function verifyAlgorithm(session: Session): SignatureAlgorithm | undefined {
  return session.choice("algorithm", SIGNATURE_ALGORITHMS);
}

/** Options of {@link resolveVerifyKey}. */
export interface ResolveVerifyKeyOptions {
  /** `inspect --public-key`: resolved from the current folder. */
  publicKeyFlag?: string | undefined;
  /** The merged signing blocks (sign.signing over build.signing), the last source of keys. */
  signing: SigningBlock | null;
  /** When nothing else is configured, use the HMAC secret in POLICY_HMAC_SECRET (inspect). */
  conventionalHmacSecret?: boolean;
  /**
   * `--algorithm`: the key found must be of this algorithm; `HMAC_SHA256` is
   * what lets a public-key source hold an HMAC secret.
   */
  algorithm?: SignatureAlgorithm | undefined;
}

/**
 * The configured verification key, or null when none is configured. Order:
 * `--public-key` (from the current folder), `POLICY_PUBLIC_KEY` (inline),
 * `POLICY_PUBLIC_KEY_PATH` (from the current folder),
 * `signature.publicKeyPath` (from the working folder), then the signing
 * blocks: an HMAC block's secret variable, or the public half of an ECDSA
 * block's PKCS#8 private key; last, with `conventionalHmacSecret`, the
 * secret in `POLICY_HMAC_SECRET`. Every key text is read by the strict
 * reader ({@link verifyKeyFromText}, {@link privateKeyFromText},
 * {@link secretFromText}).
 *
 * @throws {CliError|PolicyError} `PUBLIC_KEY_MISSING`, `SIGNING_KEY_MISSING`,
 * `INVALID_KEY`, read errors.
 */
export async function resolveVerifyKey(
  session: Session,
  options: ResolveVerifyKeyOptions,
): Promise<VerifyKey | null> {
  const key = await findVerifyKey(session, options);
  if (key !== null && options.algorithm !== undefined && key.algorithm !== options.algorithm) {
    throw new PolicyError(
      "INVALID_KEY",
      `--algorithm ${options.algorithm} was given, but the key from ${key.source} is ${
        describeKeyKind(key.algorithm)
      }`,
    );
  }
  return key;
}

async function findVerifyKey(
  session: Session,
  options: ResolveVerifyKeyOptions,
): Promise<VerifyKey | null> {
  const fromCwd = (p: string) => session.files.path.resolve(session.io.cwd, p);
  const { algorithm } = options;
  const fromFile = async (file: string) =>
    verifyKeyFromText(await session.readText(file, "public key"), file, algorithm);
  if (options.publicKeyFlag !== undefined) return await fromFile(fromCwd(options.publicKeyFlag));
  const inline = session.env("POLICY_PUBLIC_KEY");
  if (inline !== undefined) return verifyKeyFromText(inline, "POLICY_PUBLIC_KEY", algorithm);
  const envPath = session.env("POLICY_PUBLIC_KEY_PATH");
  if (envPath !== undefined) return await fromFile(fromCwd(envPath));
  const config = await session.config();
  if (config.publicKeyPath !== null) return await fromFile(config.publicKeyPath);
  const block = options.signing ?? {};
  const blockAlgorithm = block.algorithm?.toUpperCase() ??
    (block.hmacSecretEnv !== undefined
      ? "HMAC_SHA256"
      : block.ecdsaPrivateKeyPath !== undefined
      ? "ECDSA_SHA_256"
      : undefined);
  if (blockAlgorithm === "HMAC_SHA256") {
    const name = block.hmacSecretEnv ?? DEFAULT_HMAC_SECRET_ENV;
    const secret = session.env(name);
    if (secret === undefined) {
      throw new CliError(
        "SIGNING_KEY_MISSING",
        `the signing config names HMAC_SHA256, but environment variable ${name} (the secret that verifies the bundle) is not set`,
        { hint: `set ${name}` },
      );
    }
    const source = `environment variable ${name}`;
    return { algorithm: "HMAC_SHA256", publicKey: secretFromText(secret, source), source };
  }
  if (blockAlgorithm === "ECDSA_SHA_256" && block.ecdsaPrivateKeyPath !== undefined) {
    const file = await session.fromWorkingFolder(block.ecdsaPrivateKeyPath);
    const pem = privateKeyFromText(await session.readText(file, "private key"), file);
    const publicKey = await publicKeyOfPkcs8(pem);
    if (publicKey === null) {
      throw new CliError(
        "PUBLIC_KEY_MISSING",
        `cannot derive the public key from ${file}: that needs a valid unencrypted PKCS#8 P-256 key (-----BEGIN PRIVATE KEY-----)`,
        { hint: "set signature.publicKeyPath in policy.config.json to the public key" },
      );
    }
    return { algorithm: "ECDSA_SHA_256", publicKey, source: `public half of ${file}` };
  }
  if (options.conventionalHmacSecret) {
    const secret = session.env(DEFAULT_HMAC_SECRET_ENV);
    if (secret !== undefined) {
      const source = `environment variable ${DEFAULT_HMAC_SECRET_ENV}`;
      return { algorithm: "HMAC_SHA256", publicKey: secretFromText(secret, source), source };
    }
  }
  return null;
}

/**
 * The `verify` option of the library's load pipeline for `key`: the key, or
 * the whole trusted set when the key text held several.
 */
export function verifyOption(key: VerifyKey): VerifyKeySet {
  return key.keys ?? { algorithm: key.algorithm, publicKey: key.publicKey };
}

/**
 * The key that checks a signature just made with `key`: the same HMAC
 * secret, or the public half of the ECDSA private key, else (a SEC1 key,
 * whose public half WebCrypto cannot derive) the configured verification
 * key; null when there is none.
 */
export async function ownVerifyKey(session: Session, key: SigningKey): Promise<VerifyKey | null> {
  if (key.algorithm === "HMAC_SHA256") {
    return { algorithm: key.algorithm, publicKey: key.key, source: key.source };
  }
  const derived = await publicKeyOfPkcs8(key.key);
  return derived !== null
    ? { algorithm: key.algorithm, publicKey: derived, source: `public half of ${key.source}` }
    : await resolveVerifyKey(session, { signing: null, algorithm: "ECDSA_SHA_256" });
}
