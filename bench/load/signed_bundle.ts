// A signed scenario bundle of about 8 MiB (the default maxFileBytes) and the
// options that verify it.
import { generateEcdsaKeyPair, type LoadBundleOptions, signBundle } from "../../mod.ts";
import { importPublicKey } from "../../src/verify/mod.ts";
import { THREE_RULES } from "../scenarios/mod.ts";

/** The largest bundle the default maxFileBytes accepts, less room for the signature. */
export const TARGET_BYTES = 8 * 1024 * 1024 - 4096;

export interface SignedBundle {
  /** As signBundle returns it: rules in canonical key order (the fast path of the checksum). */
  bytes: Uint8Array;
  /** The same signed bundle with rules in authoring key order (the byte writer's path). */
  unorderedBytes: Uint8Array;
  targets: number;
  options: LoadBundleOptions;
  /** The verifying key as SPKI PEM text, for child processes. */
  publicKeyPem: string;
}

/** A scenario bundle with as many targets as fit in TARGET_BYTES, ECDSA-signed. */
export async function makeSignedBundle(targetBytes = TARGET_BYTES): Promise<SignedBundle> {
  const perTarget = JSON.stringify(THREE_RULES.bundle(100)).length / 100;
  let targets = Math.floor(targetBytes / perTarget);
  let bundle = THREE_RULES.bundle(targets);
  while (JSON.stringify(bundle).length > targetBytes - 512) {
    bundle = THREE_RULES.bundle(targets -= 100);
  }
  const pair = await generateEcdsaKeyPair();
  const signed = await signBundle(bundle, {
    algorithm: "ECDSA_SHA_256",
    key: pair.privateKey,
    keyId: "bench",
  });
  const { checksum, signature } = signed;
  return {
    bytes: new TextEncoder().encode(JSON.stringify(signed)),
    unorderedBytes: new TextEncoder().encode(JSON.stringify({ ...bundle, checksum, signature })),
    targets,
    // Imported once: the load figures leave out importing the key.
    options: {
      verify: { algorithm: "ECDSA_SHA_256", publicKey: await importPublicKey(pair.publicKey) },
    },
    publicKeyPem: pair.publicKey,
  };
}
