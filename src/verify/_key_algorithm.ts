// This module is browser compatible.
/**
 * Recognising the algorithm and curve of key structures (SPKI, PKCS#8,
 * SEC1), so that a wrong key gets a message saying what it is.
 *
 * @module
 */
import { bytesEqual, type DerElement, readChildren, TAG } from "./_der.ts";

/** Contents of the OID `id-ecPublicKey` (1.2.840.10045.2.1). */
export const OID_EC_PUBLIC_KEY: Uint8Array<ArrayBuffer> = new Uint8Array([
  0x2a,
  0x86,
  0x48,
  0xce,
  0x3d,
  0x02,
  0x01,
]);
/** Contents of the OID `prime256v1`, also called P-256 and secp256r1 (1.2.840.10045.3.1.7). */
export const OID_P256: Uint8Array<ArrayBuffer> = new Uint8Array([
  0x2a,
  0x86,
  0x48,
  0xce,
  0x3d,
  0x03,
  0x01,
  0x07,
]);

const KEY_ALGORITHMS: Record<string, string> = {
  "1.2.840.113549.1.1.1": "an RSA key",
  "1.2.840.113549.1.1.10": "an RSA-PSS key",
  "1.2.840.10040.4.1": "a DSA key",
  "1.3.101.110": "an X25519 key",
  "1.3.101.111": "an X448 key",
  "1.3.101.112": "an Ed25519 key",
  "1.3.101.113": "an Ed448 key",
};

const CURVES: Record<string, string> = {
  "1.2.840.10045.3.1.7": "prime256v1 (P-256)",
  "1.3.132.0.34": "secp384r1 (P-384)",
  "1.3.132.0.35": "secp521r1 (P-521)",
  "1.3.132.0.10": "secp256k1",
  "1.2.840.10045.3.1.1": "prime192v1 (P-192)",
  "1.3.132.0.33": "secp224r1 (P-224)",
};

/** Dotted form of an OID's contents, for messages; `?` for a malformed one. */
export function oidToString(contents: Uint8Array): string {
  if (contents.length === 0) return "?";
  const first = contents[0]!;
  const arcs = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  let value = 0;
  for (let i = 1; i < contents.length; i++) {
    value = value * 128 + (contents[i]! & 0x7f);
    if (!(contents[i]! & 0x80)) {
      arcs.push(value);
      value = 0;
    } else if (i === contents.length - 1) {
      return "?";
    }
  }
  return arcs.join(".");
}

/**
 * Checks an EC domain parameters element (a named-curve OID, or explicit
 * parameters) and returns what is wrong with it, or `undefined` for P-256.
 */
export function curveProblem(parameters: DerElement | undefined): string | undefined {
  if (parameters === undefined) return "the key does not name its curve";
  if (parameters.tag !== TAG.OID) {
    return "the key has explicit curve parameters; only the named curve prime256v1 (P-256) is supported";
  }
  if (bytesEqual(parameters.contents, OID_P256)) return undefined;
  const oid = oidToString(parameters.contents);
  return `the key is on curve ${
    CURVES[oid] ?? oid
  }; ECDSA_SHA_256 needs a key on prime256v1 (P-256)`;
}

/**
 * Checks an `AlgorithmIdentifier` (of SPKI or PKCS#8) and returns what is
 * wrong with it, or `undefined` for an EC key on P-256.
 */
export function keyAlgorithmProblem(algorithm: DerElement | undefined): string | undefined {
  const children = algorithm?.tag === TAG.SEQUENCE ? readChildren(algorithm.contents) : undefined;
  const oid = children?.[0];
  if (children === undefined || oid?.tag !== TAG.OID) {
    return "the key's algorithm identifier is malformed";
  }
  if (!bytesEqual(oid.contents, OID_EC_PUBLIC_KEY)) {
    const dotted = oidToString(oid.contents);
    const name = KEY_ALGORITHMS[dotted] ?? `a key of algorithm ${dotted}`;
    return `the key is ${name}; ECDSA_SHA_256 needs an EC key on prime256v1 (P-256)`;
  }
  return curveProblem(children[1]);
}

const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * Checks the `subjectPublicKey` BIT STRING contents of a P-256 key: an
 * uncompressed point must lie on the curve (some WebCrypto implementations,
 * Deno's among them, import a point that does not). Compressed points are
 * left to WebCrypto, which decompresses them onto the curve or fails.
 * Returns what is wrong, or `undefined`.
 */
export function p256PointProblem(bitString: Uint8Array): string | undefined {
  if (bitString[0] !== 0) return "the public key BIT STRING is malformed";
  const point = bitString.subarray(1);
  if (point[0] !== 0x04) return undefined;
  if (point.length !== 65) return "the public key is not a 65-byte uncompressed P-256 point";
  const x = toBigInt(point.subarray(1, 33));
  const y = toBigInt(point.subarray(33));
  const onCurve = x < P256_P && y < P256_P &&
    (y * y - (x * x * x - 3n * x + P256_B)) % P256_P === 0n;
  return onCurve ? undefined : "the public key is not a point on the P-256 curve";
}

function toBigInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}
