/**
 * Signing keys of the CLI: which algorithm, key id and key a command signs
 * with (flags over config blocks; `docs/cli.md`, "Keys and secrets"), and
 * signing with them. Secrets are read here (by `key_text.ts`) and handed to
 * `src/verify`; nothing here prints or returns them in a message. Which key
 * verifies a bundle is `verify_key.ts`.
 *
 * @module
 */
import type {
  FreshnessStatement,
  RuntimeBundleV1,
  SignatureAlgorithm,
} from "../../engine/types.ts";
// The modules themselves, not verify/mod.ts: a command that only verifies loads no key generator.
import { SIGNATURE_ALGORITHMS } from "../../verify/signature_algorithms.ts";
import { signBundle } from "../../verify/sign_bundle.ts";
import { signFreshness } from "../../verify/sign_freshness.ts";
import { parseDuration } from "./duration.ts";
import type { FlagSpecs } from "./command_spec.ts";
import type { SigningBlock } from "./config.ts";
import { CliError, usageError } from "./errors.ts";
import { envNameProblem, isEnvName } from "./env.ts";
import type { Session } from "./session.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeValue } from "../../_internal/check_options.ts";
import { DEFAULT_HMAC_SECRET_ENV, privateKeyFromText, secretFromText } from "./key_text.ts";

/** The signing flags of `build` and `sign`. */
export const SIGNING_FLAGS: FlagSpecs = Object.freeze({
  "signing-algorithm": {
    type: "string",
    value: "<alg>",
    choices: ["ECDSA_SHA_256", "HMAC_SHA256"],
    description: "ECDSA_SHA_256 or HMAC_SHA256 (else the signing block's algorithm)",
  },
  "signing-key-id": {
    type: "string",
    value: "<id>",
    description: "key id recorded in the signature (else the signing block's keyId)",
  },
  "ecdsa-private-key": {
    type: "string",
    value: "<path>",
    description: "ECDSA P-256 private key PEM, relative to the working folder",
  },
  "hmac-secret-env": {
    type: "string",
    value: "<name>",
    description:
      `environment variable holding the HMAC secret (default ${DEFAULT_HMAC_SECRET_ENV})`,
  },
  "hmac-secret": {
    type: "string",
    value: "<hex>",
    description: "the HMAC secret itself (discouraged: it leaks into shell history)",
  },
  "expires-in": {
    type: "string",
    value: "<duration>",
    description:
      "also write a signed freshness statement expiring after <duration> (90s, 15m, 12h, 7d; else the signing block's expiresIn)",
  },
});

/** What a bundle is signed with. `key` is secret material: never print it. */
export interface SigningKey {
  algorithm: SignatureAlgorithm;
  keyId: string;
  key: string;
  /** Where the key came from, for people (a path or a variable name, never the key). */
  source: string;
  /** How long the freshness statement written with the signature lasts, or null: none. */
  expiresInMs: number | null;
}

/** Merges signing blocks; later blocks win field by field. Null when none is set. */
export function mergeSigningBlocks(...blocks: (SigningBlock | null)[]): SigningBlock | null {
  const present = blocks.filter((b): b is SigningBlock => b !== null);
  return present.length === 0 ? null : Object.assign({}, ...present);
}

/**
 * How a command signs, decided from the signing flags, then `block`,
 * without reading any key: every usage and configuration error comes out
 * here, before the command does anything (the licence check included).
 */
export interface SigningSettings {
  algorithm: SignatureAlgorithm;
  keyId: string;
  /** ECDSA: the private key file, absolute. */
  keyFile?: string;
  /** HMAC: the secret given on the command line. Never print it. */
  inlineSecret?: string;
  /** HMAC: the variable holding the secret. */
  secretEnv?: string;
  /** `--expires-in`, else the block's `expiresIn`, in ms; null: no freshness statement. */
  expiresInMs: number | null;
}

/**
 * The signing settings from the signing flags, then `block`.
 *
 * @throws {CliError} `USAGE_ERROR`, `CONFIG_INVALID`, `SIGNING_KEY_MISSING`.
 */
export async function signingSettings(
  session: Session,
  block: SigningBlock | null,
  blockName: string,
): Promise<SigningSettings> {
  const requested = session.string("signing-algorithm");
  if (requested !== undefined && /^(ed25519|eddsa)$/i.test(requested)) {
    throw usageError(
      `--signing-algorithm ${
        describeValue(requested)
      }: Ed25519 is no longer supported; use ECDSA_SHA_256 or HMAC_SHA256`,
    );
  }
  const algorithm = session.choice("signing-algorithm", SIGNATURE_ALGORITHMS) ??
    configAlgorithm(block, blockName) ?? inferAlgorithm(session, block, blockName);
  const keyId = session.string("signing-key-id") ?? block?.keyId;
  if (keyId === undefined || keyId === "") {
    throw usageError(
      "signing needs a key id",
      `pass --signing-key-id <id> or set ${blockName}.keyId in policy.config.json`,
    );
  }
  const expiresInMs = expiresIn(session, block);
  const settings = await keySettings(session, block, blockName, algorithm, keyId);
  return { ...settings, expiresInMs };
}

/**
 * `--expires-in`, else the block's `expiresIn` (checked when the config was
 * read), in ms, or null.
 *
 * @throws {CliError} `USAGE_ERROR` for the flag.
 */
function expiresIn(session: Session, block: SigningBlock | null): number | null {
  const flag = session.string("expires-in");
  const text = flag ?? block?.expiresIn;
  if (text === undefined) return null;
  const ms = parseDuration(text);
  if (typeof ms === "number") return ms;
  throw usageError(`--expires-in ${describeValue(text)} ${ms}`);
}

async function keySettings(
  session: Session,
  block: SigningBlock | null,
  blockName: string,
  algorithm: SignatureAlgorithm,
  keyId: string,
): Promise<Omit<SigningSettings, "expiresInMs">> {
  if (algorithm === "ECDSA_SHA_256") {
    for (const flag of ["hmac-secret", "hmac-secret-env"]) {
      if (session.has(flag)) throw usageError(`--${flag} does not apply to ECDSA_SHA_256 signing`);
    }
    const relative = session.string("ecdsa-private-key") ?? block?.ecdsaPrivateKeyPath;
    if (relative === undefined) {
      throw new CliError("SIGNING_KEY_MISSING", "ECDSA_SHA_256 signing needs a private key", {
        hint:
          `pass --ecdsa-private-key <path> or set ${blockName}.ecdsaPrivateKeyPath (create one with 'policy keys generate')`,
      });
    }
    return { algorithm, keyId, keyFile: await session.fromWorkingFolder(relative) };
  }
  if (session.has("ecdsa-private-key")) {
    throw usageError("--ecdsa-private-key does not apply to HMAC_SHA256 signing");
  }
  const inline = session.string("hmac-secret");
  if (inline !== undefined) {
    if (session.has("hmac-secret-env")) {
      throw usageError("give either --hmac-secret or --hmac-secret-env, not both");
    }
    session.out.warn(
      "HMAC_SECRET_ON_COMMAND_LINE",
      `--hmac-secret leaks the secret into shell history and process lists; put it in an environment variable and pass --hmac-secret-env <name> instead`,
    );
    return { algorithm, keyId, inlineSecret: inline };
  }
  const name = session.string("hmac-secret-env") ?? block?.hmacSecretEnv ??
    DEFAULT_HMAC_SECRET_ENV;
  if (!isEnvName(name)) throw usageError(envNameProblem("--hmac-secret-env"));
  if (session.env(name) === undefined) {
    throw new CliError(
      "SIGNING_KEY_MISSING",
      `HMAC_SHA256 signing needs the secret in environment variable ${name}, which is not set`,
      { hint: "create a secret with 'policy keys generate --algorithm HMAC_SHA256'" },
    );
  }
  return { algorithm, keyId, secretEnv: name };
}

/**
 * Reads the key that `settings` name.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` and the other read errors of the key file.
 */
export async function readSigningKey(
  session: Session,
  settings: SigningSettings,
): Promise<SigningKey> {
  const key = await signingKeyOf(session, settings);
  session.out.note(`signing with ${key.algorithm}, key id ${key.keyId}, key from ${key.source}`);
  return key;
}

async function signingKeyOf(session: Session, settings: SigningSettings): Promise<SigningKey> {
  const { algorithm, keyId, expiresInMs } = settings;
  if (settings.keyFile !== undefined) {
    const source = settings.keyFile;
    const key = privateKeyFromText(await session.readText(source, "private key"), source);
    return { algorithm, keyId, key, source, expiresInMs };
  }
  if (settings.inlineSecret !== undefined) {
    const source = "--hmac-secret";
    return {
      algorithm,
      keyId,
      key: secretFromText(settings.inlineSecret, source),
      source,
      expiresInMs,
    };
  }
  const source = `environment variable ${settings.secretEnv!}`;
  return {
    algorithm,
    keyId,
    key: secretFromText(session.env(settings.secretEnv!)!, source),
    source,
    expiresInMs,
  };
}

function configAlgorithm(
  block: SigningBlock | null,
  blockName: string,
): SignatureAlgorithm | undefined {
  const value = block?.algorithm;
  if (value === undefined) return undefined;
  const match = SIGNATURE_ALGORITHMS.find((a) => a.toLowerCase() === value.toLowerCase());
  if (match === undefined) {
    const removed = /^(ed25519|eddsa)$/i.test(value) ? " (Ed25519 is no longer supported)" : "";
    throw new CliError(
      "CONFIG_INVALID",
      `${blockName}.algorithm must be ECDSA_SHA_256 or HMAC_SHA256, not ${
        describeValue(value)
      }${removed}${didYouMean(value, SIGNATURE_ALGORITHMS)}`,
    );
  }
  return match;
}

function inferAlgorithm(
  session: Session,
  block: SigningBlock | null,
  blockName: string,
): SignatureAlgorithm {
  const ecdsa = session.has("ecdsa-private-key") || block?.ecdsaPrivateKeyPath !== undefined;
  const hmac = session.has("hmac-secret") || session.has("hmac-secret-env") ||
    block?.hmacSecretEnv !== undefined;
  if (ecdsa !== hmac) return ecdsa ? "ECDSA_SHA_256" : "HMAC_SHA256";
  throw usageError(
    "signing needs an algorithm",
    `pass --signing-algorithm ECDSA_SHA_256|HMAC_SHA256 or set ${blockName}.algorithm`,
  );
}

/**
 * Signs a bundle (checksum and signature) with `key`.
 *
 * @throws {PolicyError} `INVALID_KEY` (messages never contain key material).
 */
export async function sign<T extends RuntimeBundleV1>(
  bundle: T,
  key: SigningKey,
): Promise<
  T & { checksum: string; signature: { algorithm: string; keyId: string; value: string } }
> {
  return await signBundle(bundle, { algorithm: key.algorithm, key: key.key, keyId: key.keyId });
}

/**
 * The freshness statement for `bundle` that `key` asks for (`expiresInMs`,
 * from `--expires-in` or the block's `expiresIn`), issued now on the
 * session's clock, or null when it asks for none.
 *
 * @throws {PolicyError} `BUNDLE_INVALID` (no `bundleVersion`),
 * `CHECKSUM_MISMATCH`, `INVALID_KEY`.
 */
export async function freshnessFor(
  session: Session,
  bundle: RuntimeBundleV1,
  key: SigningKey,
): Promise<FreshnessStatement | null> {
  if (key.expiresInMs === null) return null;
  // Whole seconds: the statement's times read as people write them.
  const issuedAt = Math.floor(session.io.clock.wallNow() / 1000) * 1000;
  return await signFreshness(bundle, {
    algorithm: key.algorithm,
    key: key.key,
    keyId: key.keyId,
    issuedAt,
    expiresAt: issuedAt + key.expiresInMs,
  });
}
