/**
 * `policy keys generate`: new signing keys, so that no openssl is needed.
 *
 * @module
 */
import type { SignatureAlgorithm } from "../../engine/types.ts";
import {
  generateEcdsaKeyPair,
  generateHmacSecret,
  SIGNATURE_ALGORITHMS,
} from "../../verify/mod.ts";
import { CliError, usageError } from "../kit/errors.ts";
import { defineCommand, defineGroup } from "../kit/session.ts";
import { writeFileAtomic } from "../kit/atomic_write.ts";
import { exists } from "../kit/read_document.ts";
import type { CommandSpec } from "../kit/command_spec.ts";

/** File names written by `keys generate --algorithm ECDSA_SHA_256`. */
export const PRIVATE_KEY_FILE = "private-key.pem";
/** The public half, SPKI PEM. */
export const PUBLIC_KEY_FILE = "public-key.pem";

/** The declaration of `keys generate`. */
export const KEYS_SPEC: CommandSpec = {
  name: "keys generate",
  usage: "keys generate --algorithm ECDSA_SHA_256 --out-dir <dir> | --algorithm HMAC_SHA256",
  summary: [
    `ECDSA_SHA_256: writes a new P-256 key pair to <dir> (relative to the working folder):`,
    `${PRIVATE_KEY_FILE} (PKCS#8 PEM, file mode 0600) and ${PUBLIC_KEY_FILE} (SPKI PEM).`,
    "Existing key files are never replaced. HMAC_SHA256: prints a new 256-bit secret as",
    "64 hex characters; store it in an environment variable (POLICY_HMAC_SECRET).",
  ].join("\n"),
  flags: {
    algorithm: {
      type: "string",
      value: "<alg>",
      choices: ["ECDSA_SHA_256", "HMAC_SHA256"],
      description: "ECDSA_SHA_256 or HMAC_SHA256",
    },
    "out-dir": {
      type: "string",
      value: "<dir>",
      description: "ECDSA_SHA_256: folder for the key files (created if missing)",
    },
  },
  examples: [
    "policy keys generate --algorithm ECDSA_SHA_256 --out-dir keys",
    "policy keys generate --algorithm HMAC_SHA256 --format json",
  ],
};

/** Generates an ECDSA P-256 key pair or an HMAC secret. */
export const runKeysGenerate = defineCommand(KEYS_SPEC, async (session) => {
  const out = session.out;
  const algorithm: SignatureAlgorithm | undefined = session.choice(
    "algorithm",
    SIGNATURE_ALGORITHMS,
  );
  if (algorithm === undefined) {
    throw usageError(
      "'policy keys generate' needs --algorithm ECDSA_SHA_256 or --algorithm HMAC_SHA256",
    );
  }
  if (algorithm === "HMAC_SHA256") {
    if (session.has("out-dir")) throw usageError("--out-dir applies to ECDSA_SHA_256 only");
    const plan = planKeys({ algorithm, secret: generateHmacSecret() });
    out.result({ ...plan.document, warnings: out.warnings }, () => {
      out.line(plan.document.secret!);
      out.aside(
        "store this secret in an environment variable (for example POLICY_HMAC_SECRET) and keep it out of files and shell history",
      );
    });
    return 0;
  }
  const dir = await session.fromWorkingFolder(
    session.requireString("out-dir", "with --algorithm ECDSA_SHA_256"),
  );
  const paths = {
    privateKeyPath: session.files.path.join(dir, PRIVATE_KEY_FILE),
    publicKeyPath: session.files.path.join(dir, PUBLIC_KEY_FILE),
  };
  for (const target of Object.values(paths)) {
    if (await exists(session.files, target)) throw keyExists(target);
  }
  const plan = planKeys({ algorithm, ...paths, pair: await generateEcdsaKeyPair() });
  for (const w of plan.writes) {
    await writeFileAtomic(w.path, w.text, { ...w.options, overwrite: false, onExists: keyExists });
  }
  const { privateKeyPath, publicKeyPath } = paths;
  out.note(`wrote ${privateKeyPath} (private key, mode 0600) and ${publicKeyPath}`);
  out.result({ ...plan.document, warnings: out.warnings }, () => {
    out.info(`wrote ${privateKeyPath} (private key, PKCS#8, mode 0600)`);
    out.info(`wrote ${publicKeyPath} (public key, SPKI)`);
    out.info(
      "sign with --ecdsa-private-key (or ecdsaPrivateKeyPath); verify with --public-key (or signature.publicKeyPath)",
    );
  });
  return 0;
});

/** The refusal to replace a key file. */
function keyExists(target: string): CliError {
  return new CliError("KEY_EXISTS", `${target} already exists; it was not replaced`, {
    hint: "choose another --out-dir, or move the existing keys away first",
  });
}

/** New key material and where it goes. */
export type NewKeys =
  | { algorithm: "HMAC_SHA256"; secret: string }
  | {
    algorithm: "ECDSA_SHA_256";
    privateKeyPath: string;
    publicKeyPath: string;
    pair: { privateKey: string; publicKey: string };
  };

/** What `keys generate` writes and reports. */
export interface KeysPlan {
  /** The JSON document (but `warnings`): the secret, or the key files' paths, never a private key. */
  document: {
    algorithm: SignatureAlgorithm;
    secret: string | null;
    privateKeyPath: string | null;
    publicKeyPath: string | null;
  };
  /** The key files, none replaced: the private key readable by its owner alone. */
  writes: { path: string; text: string; options: { mode?: number; createParents?: boolean } }[];
}

/**
 * What `keys generate` does with new keys: an HMAC secret is printed, never
 * written; a key pair is written, the private key with mode 0600 (and its
 * folder created), and only the paths are reported.
 */
export function planKeys(keys: NewKeys): KeysPlan {
  if (keys.algorithm === "HMAC_SHA256") {
    return {
      document: {
        algorithm: keys.algorithm,
        secret: keys.secret,
        privateKeyPath: null,
        publicKeyPath: null,
      },
      writes: [],
    };
  }
  const { privateKeyPath, publicKeyPath, pair } = keys;
  return {
    document: { algorithm: keys.algorithm, secret: null, privateKeyPath, publicKeyPath },
    writes: [
      {
        path: privateKeyPath,
        text: pair.privateKey,
        options: { mode: 0o600, createParents: true },
      },
      { path: publicKeyPath, text: pair.publicKey, options: {} },
    ],
  };
}

/** Dispatches `keys generate`. */
export const runKeys = defineGroup({
  name: "keys",
  summary: "Creates signing keys.",
  subcommands: {
    generate: {
      run: runKeysGenerate,
      summary: "write an ECDSA P-256 key pair, or print a new HMAC secret",
    },
  },
  examples: [
    "policy keys generate --algorithm ECDSA_SHA_256 --out-dir keys",
    "policy keys generate --algorithm HMAC_SHA256",
  ],
});
