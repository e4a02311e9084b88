// The load pipeline as it was before loadBundle yielded between its steps:
// parse, validate, canonical payload and compile run back to back, and the
// only awaits are WebCrypto's. For comparison in the reload benchmark only.
import { compileBundle, type LoadBundleOptions, type RuntimeBundleV1 } from "../../mod.ts";
import { assertValidBundle, canonicalPayloadBytes } from "../../src/engine/mod.ts";
import { parseBundleBytes } from "../../src/verify/load_bundle.ts";
import { verifyPayload } from "../../src/verify/mod.ts";

export async function unyieldingLoad(bytes: Uint8Array, options: LoadBundleOptions) {
  const bundle = parseBundleBytes(bytes) as RuntimeBundleV1;
  assertValidBundle(bundle);
  const payload = canonicalPayloadBytes(bundle);
  await crypto.subtle.digest("SHA-256", payload);
  const { algorithm, publicKey } = [options.verify!].flat()[0]!; // the bench signs with one key
  await verifyPayload(algorithm, publicKey, payload, bundle.signature!.value);
  return { compiled: compileBundle(bundle, { skipValidation: true }) };
}
