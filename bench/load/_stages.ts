// The load pipeline of src/verify/load_bundle.ts, one stage at a time, with the
// time each takes (ms). The stages call the same functions loadBundle calls.
import {
  compileBundle,
  type LoadBundleOptions,
  parseJson,
  type RuntimeBundleV1,
} from "../../mod.ts";
import { verifyPayload } from "../../src/verify/mod.ts";
import { validateForLoad } from "../../src/engine/validate_bundle.ts";
import { canonicalPayloadBytesOfParsed } from "../../src/engine/canonical_payload.ts";

export interface StageTimes {
  decode: number;
  parse: number;
  validate: number;
  canonical: number;
  sha256: number;
  signature: number;
  compile: number;
}

export async function timeStages(
  bytes: Uint8Array,
  options: LoadBundleOptions,
): Promise<StageTimes> {
  let t = performance.now();
  const lap = () => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const decode = lap();
  const document = parseJson(text) as RuntimeBundleV1;
  const parse = lap();
  const { keysInOrder } = validateForLoad(document);
  const validate = lap();
  const payload = canonicalPayloadBytesOfParsed(document, bytes.byteLength, keysInOrder);
  const canonical = lap();
  await crypto.subtle.digest("SHA-256", payload);
  const sha256 = lap();
  const { algorithm, publicKey } = [options.verify!].flat()[0]!; // the bench signs with one key
  if (!await verifyPayload(algorithm, publicKey, payload, document.signature!.value)) {
    throw new Error("the bench bundle's signature does not verify");
  }
  const signature = lap();
  compileBundle(document, { skipValidation: true });
  const compile = lap();
  return { decode, parse, validate, canonical, sha256, signature, compile };
}
