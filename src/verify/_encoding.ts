// This module is browser compatible.
/**
 * Strict base64 and hex codecs for signature values and key material. Every
 * decoder returns `undefined` for input it does not accept, so that each
 * caller can report the failure with its own error code.
 *
 * @module
 */

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_VALUES: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE64_ALPHABET.length; i++) table[BASE64_ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/** Standard base64 with `=` padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! +
      BASE64_ALPHABET[(n >> 6) & 63]! + BASE64_ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! + "==";
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! +
      BASE64_ALPHABET[(n >> 6) & 63]! + "=";
  }
  return out;
}

/**
 * Decodes canonical standard base64: only the `A–Z a–z 0–9 + /` alphabet, a
 * length that is a multiple of 4, at most two `=` and only at the end, and
 * zero bits in the unused low bits of the last character (so every byte
 * string has exactly one accepted encoding). No whitespace, no URL-safe
 * alphabet. Returns `undefined` for anything else.
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const chars = text.length - padding;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < chars; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? BASE64_VALUES[code]! : -1;
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
      buffer &= (1 << bits) - 1;
    }
  }
  // Leftover bits are padding bits of the last character: canonical encoders write zeros.
  if (buffer !== 0) return undefined;
  return out;
}

/** True for exactly 64 lowercase hex characters (the form of an HMAC-SHA256 signature value). */
export function isLowerHex64(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}

/**
 * Decodes hex (either case). Returns `undefined` for an odd length or a
 * non-hex character.
 */
export function decodeHex(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 2 !== 0) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = hexValue(text.charCodeAt(2 * i));
    const lo = hexValue(text.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Index of the first character of `text` that is not a hex digit, or -1. */
export function firstNonHexIndex(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (hexValue(text.charCodeAt(i)) < 0) return i;
  }
  return -1;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30; // 0-9
  if (code >= 0x61 && code <= 0x66) return code - 0x57; // a-f
  if (code >= 0x41 && code <= 0x46) return code - 0x37; // A-F
  return -1;
}
