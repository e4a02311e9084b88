// This module is browser compatible.
/**
 * The little DER this module needs: a reader for key structures, a builder
 * for wrapping SEC1 keys into PKCS#8, and the strict conversion between the
 * DER form of an ECDSA P-256 signature (what bundles and openssl carry) and
 * the raw `r‖s` form (IEEE P1363, what WebCrypto signs and verifies).
 *
 * @module
 */
import { PolicyError } from "../public/policy_error.ts";

/** DER tags used here. */
export const TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OID: 0x06,
  SEQUENCE: 0x30,
  CONTEXT_0: 0xa0,
  CONTEXT_1: 0xa1,
} as const;

/** One element: its tag and where its contents lie in the input. */
export interface DerElement {
  tag: number;
  /** The contents (a view into the input, not a copy). */
  contents: Uint8Array<ArrayBuffer>;
  /** Offset of the byte after the element. */
  end: number;
}

/**
 * Reads the element at `offset` of `bytes`. Accepts single-byte tags and
 * minimal definite lengths only. Returns `undefined` when the input is
 * truncated or not DER.
 */
export function readElement(
  bytes: Uint8Array<ArrayBuffer>,
  offset: number,
): DerElement | undefined {
  if (offset + 2 > bytes.length) return undefined;
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) return undefined; // multi-byte tag
  let length = bytes[offset + 1]!;
  let start = offset + 2;
  if (length >= 0x80) {
    const count = length & 0x7f;
    // 0x80 is the indefinite length (BER only); more than 3 length bytes is far beyond any key.
    if (count === 0 || count > 3 || start + count > bytes.length) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    // Minimal: no leading zero byte, and the long form only from 128 up.
    if (bytes[start] === 0 || length < 0x80) return undefined;
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) return undefined;
  return { tag, contents: bytes.subarray(start, end), end };
}

/**
 * Reads the elements that make up `contents` (of a SEQUENCE or a context
 * tag), requiring them to fill it exactly. Returns `undefined` otherwise.
 */
export function readChildren(contents: Uint8Array<ArrayBuffer>): DerElement[] | undefined {
  const children: DerElement[] = [];
  let offset = 0;
  while (offset < contents.length) {
    const child = readElement(contents, offset);
    if (child === undefined) return undefined;
    children.push(child);
    offset = child.end;
  }
  return children;
}

/** Reads `bytes` as exactly one element with tag `tag`, or returns `undefined`. */
export function readWhole(bytes: Uint8Array<ArrayBuffer>, tag: number): DerElement | undefined {
  const element = readElement(bytes, 0);
  return element !== undefined && element.tag === tag && element.end === bytes.length
    ? element
    : undefined;
}

/** Encodes one element with a minimal definite length. */
export function encodeElement(tag: number, ...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.length;
  const header = [tag];
  if (length < 0x80) {
    header.push(length);
  } else {
    const lengthBytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) lengthBytes.unshift(n % 256);
    header.push(0x80 | lengthBytes.length, ...lengthBytes);
  }
  const out = new Uint8Array(header.length + length);
  out.set(header);
  let offset = header.length;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** True when the two byte strings are equal (not constant time; for public structure only). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Size in bytes of a P-256 scalar, and of each half of a raw signature. */
const SCALAR_BYTES = 32;

/** The order n of the P-256 group, big-endian. */
const P256_ORDER = new Uint8Array([
  0xff,
  0xff,
  0xff,
  0xff,
  0x00,
  0x00,
  0x00,
  0x00,
  0xff,
  0xff,
  0xff,
  0xff,
  0xff,
  0xff,
  0xff,
  0xff,
  0xbc,
  0xe6,
  0xfa,
  0xad,
  0xa7,
  0x17,
  0x9e,
  0x84,
  0xf3,
  0xb9,
  0xca,
  0xc2,
  0xfc,
  0x63,
  0x25,
  0x51,
]);

function invalid(reason: string): PolicyError {
  return new PolicyError(
    "BUNDLE_SIGNATURE_INVALID",
    `the ECDSA signature is not a valid DER-encoded P-256 signature: ${reason}`,
  );
}

/**
 * Converts a DER ECDSA P-256 signature (`SEQUENCE { INTEGER r, INTEGER s }`)
 * to the 64-byte raw form `r‖s`. Strict: short-form lengths only (a P-256
 * signature is always shorter than 128 bytes), no trailing bytes, minimal
 * positive integers, and 0 < r, s < n.
 *
 * @throws {PolicyError} `BUNDLE_SIGNATURE_INVALID` for anything else; never another error.
 */
export function ecdsaDerToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> {
  if (der.length < 2 || der[0] !== TAG.SEQUENCE) throw invalid("it does not start with a SEQUENCE");
  if (der[1]! >= 0x80) throw invalid("the SEQUENCE length is not in short form");
  if (der[1]! + 2 !== der.length) {
    throw invalid(der[1]! + 2 > der.length ? "it is truncated" : "it has trailing bytes");
  }
  const raw = new Uint8Array(2 * SCALAR_BYTES);
  let offset = 2;
  for (const [index, name] of ["r", "s"].entries()) {
    if (offset + 2 > der.length || der[offset] !== TAG.INTEGER) {
      throw invalid(`${name} is not an INTEGER`);
    }
    const length = der[offset + 1]!;
    if (length >= 0x80) throw invalid(`the length of ${name} is not in short form`);
    const start = offset + 2;
    const end = start + length;
    if (length === 0 || end > der.length) throw invalid(`${name} is truncated`);
    let value = der.subarray(start, end);
    if (value[0]! & 0x80) throw invalid(`${name} is negative`);
    if (value[0] === 0) {
      if (length === 1) throw invalid(`${name} is zero`);
      if (!(value[1]! & 0x80)) throw invalid(`${name} has an unnecessary leading zero byte`);
      value = value.subarray(1);
    }
    if (value.length > SCALAR_BYTES) throw invalid(`${name} is longer than 32 bytes`);
    const scalar = raw.subarray(index * SCALAR_BYTES, (index + 1) * SCALAR_BYTES);
    scalar.set(value, SCALAR_BYTES - value.length);
    if (compare(scalar, P256_ORDER) >= 0) throw invalid(`${name} is not less than the group order`);
    offset = end;
  }
  if (offset !== der.length) throw invalid("it has bytes after s");
  return raw;
}

/**
 * Converts a 64-byte raw ECDSA P-256 signature `r‖s` to minimal DER, the
 * encoding openssl writes.
 *
 * @throws {PolicyError} `BUNDLE_SIGNATURE_INVALID` when `raw` is not 64 bytes or r or s is zero.
 */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  if (raw.length !== 2 * SCALAR_BYTES) {
    throw new PolicyError(
      "BUNDLE_SIGNATURE_INVALID",
      `a raw P-256 signature is 64 bytes, not ${raw.length}`,
    );
  }
  const integers = [raw.subarray(0, SCALAR_BYTES), raw.subarray(SCALAR_BYTES)].map((scalar) => {
    let start = 0;
    while (start < scalar.length && scalar[start] === 0) start++;
    if (start === scalar.length) {
      throw new PolicyError("BUNDLE_SIGNATURE_INVALID", "a raw P-256 signature has a zero half");
    }
    const value = scalar.subarray(start);
    // A set high bit would read as negative: prefix a zero byte.
    return value[0]! & 0x80
      ? encodeElement(TAG.INTEGER, new Uint8Array([0]), value)
      : encodeElement(TAG.INTEGER, value);
  });
  return encodeElement(TAG.SEQUENCE, ...integers);
}

/** Compares two big-endian numbers of the same length. */
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}
