// The load pipeline of src/verify/load_bundle.ts, one stage at a time, with the
// time each takes (ms). The stages call the same functions loadBundle calls;
// here they run one after the other (loadBundle makes the programs while
// WebCrypto hashes and verifies).
import { type LoadBundleOptions, parseJson, type RuntimeBundleV1 } from "../../mod.ts";
import { compileForLoad } from "../../src/engine/compile_bundle.ts";
import { verifyPayload } from "../../src/verify/mod.ts";
import { canonicalPayloadBytesOfParsed } from "../../src/engine/canonical_payload.ts";

export interface StageTimes {
  /** UTF-8 decoding. */
  decode: number;
  /** `parseJson`. */
  parse: number;
  /** The one walk: validation, rules collected, conditions compiled. */
  walk: number;
  /** The canonical payload's bytes. */
  canonical: number;
  /** SHA-256 of the payload. */
  sha256: number;
  /** ECDSA verification of the payload. */
  signature: number;
  /** The targets' programs and index. */
  programs: number;
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
  const { keysInOrder, finish } = compileForLoad(document);
  const walk = lap();
  const payload = canonicalPayloadBytesOfParsed(document, bytes.byteLength, keysInOrder);
  const canonical = lap();
  await crypto.subtle.digest("SHA-256", payload);
  const sha256 = lap();
  const { algorithm, publicKey } = [options.verify!].flat()[0]!; // the bench signs with one key
  if (!await verifyPayload(algorithm, publicKey, payload, document.signature!.value)) {
    throw new Error("the bench bundle's signature does not verify");
  }
  const signature = lap();
  finish();
  const programs = lap();
  return { decode, parse, walk, canonical, sha256, signature, programs };
}
