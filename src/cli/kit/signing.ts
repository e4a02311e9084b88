/**
 * Signing and verification keys of the CLI: which algorithm, key id and key
 * a command signs with (flags over config blocks), and which key verifies a
 * bundle (`docs/cli.md`, "Keys and secrets"). Secrets are read here and
 * handed to `src/verify`; nothing here prints or returns them in a message.
 *
 * @module
 */
import type {
  FreshnessStatement,
  RuntimeBundleV1,
  SignatureAlgorithm,
} from "../../engine/types.ts";
import { PolicyError } from "../../public/policy_error.ts";
// The modules themselves, not verify/mod.ts: a command that only verifies loads no key generator.
import { SIGNATURE_ALGORITHMS } from "../../verify/signature_algorithms.ts";
import { signBundle } from "../../verify/sign_bundle.ts";
import { signFreshness } from "../../verify/sign_freshness.ts";
import { parseDuration } from "./duration.ts";
import {
  MAX_VERIFY_KEYS,
  type VerifyKeyOptions,
  type VerifyKeySet,
} from "../../verify/verify_bundle_signature.ts";
import type { FlagSpecs } from "./command_spec.ts";
import type { SigningBlock } from "./config.ts";
import { CliError, usageError } from "./errors.ts";
import { envNameProblem, isEnvName } from "./env.ts";
import type { Session } from "./session.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeValue } from "../../_internal/check_options.ts";

/** Conventional name of the environment variable holding the HMAC secret. */
export const DEFAULT_HMAC_SECRET_ENV = "POLICY_HMAC_SECRET";

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

// ---------------------------------------------------------------------------
// The strict key-text reader. Every key the CLI reads (public keys, private
// keys, HMAC secrets, from files, variables or flags) goes through it:
//   - text with PEM armour is PEM: well-formed blocks only (BEGIN and END
//     with the same label, a base64 body, no headers); text outside the
//     blocks is ignored, as PEM allows, and is never a key;
//   - text without PEM armour is bare 64-hex secrets separated by white
//     space, and nothing else;
// anything else is INVALID_KEY. Messages name the source (a path or a
// variable name), never the text.
// ---------------------------------------------------------------------------

/** A key text read strictly: PEM blocks, or bare 64-hex secrets. */
type KeyText =
  | { kind: "pem"; blocks: { label: string; text: string }[] }
  | { kind: "secrets"; secrets: string[] };

const PEM_ARMOUR = /-----(BEGIN|END) ([A-Z0-9]+(?: [A-Z0-9]+)*)-----/g;
const PEM_BODY = /^[A-Za-z0-9+/=\s]+$/;
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
  const armours = [...text.matchAll(PEM_ARMOUR)];
  const dashes = text.split("-----BEGIN").length + text.split("-----END").length - 2;
  if (armours.length === 0 && dashes === 0) {
    const secrets = text.split(/\s+/).filter((token) => token !== "");
    if (secrets.length === 0) throw invalidKey(`${source} is empty: it holds no key`);
    if (!secrets.every((token) => HEX_SECRET.test(token))) {
      throw invalidKey(
        `${source} is neither PEM (-----BEGIN PUBLIC KEY----- …) nor bare 64-hex HMAC secrets; its text is not printed`,
      );
    }
    return { kind: "secrets", secrets };
  }
  const malformed = () =>
    invalidKey(
      `${source} holds malformed PEM: each -----BEGIN <label>----- needs a base64 body and a matching -----END <label>-----; its text is not printed`,
    );
  if (armours.length !== dashes || armours.length % 2 !== 0) throw malformed();
  const blocks: { label: string; text: string }[] = [];
  for (let i = 0; i < armours.length; i += 2) {
    const begin = armours[i]!;
    const end = armours[i + 1]!;
    if (begin[1] !== "BEGIN" || end[1] !== "END" || begin[2] !== end[2]) throw malformed();
    const bodyStart = begin.index! + begin[0].length;
    if (!PEM_BODY.test(text.slice(bodyStart, end.index!))) throw malformed();
    blocks.push({
      label: begin[2]!,
      text: `${text.slice(begin.index!, end.index! + end[0].length)}\n`,
    });
  }
  return { kind: "pem", blocks };
}

/** `an ECDSA_SHA_256 public key` / `an HMAC_SHA256 secret`, for messages. */
function describeKeyKind(algorithm: SignatureAlgorithm): string {
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

/** The public key of a PKCS#8 PEM P-256 private key, or null when it cannot be derived. */
async function publicKeyOfPkcs8(pem: string): Promise<CryptoKey | null> {
  const match = /-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END PRIVATE KEY-----/.exec(pem);
  if (match === null) return null;
  try {
    const der = Uint8Array.from(atob(match[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
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
