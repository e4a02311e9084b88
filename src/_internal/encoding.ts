// This module is browser compatible.
/**
 * Strict base64 and hex codecs for signature values and key material. Every
 * decoder returns `undefined` for input it does not accept, so that each
 * caller can report the failure with its own error code.
 *
 * @module
 */

/** Standard base64 with `=` padding, in groups of four. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with `=` padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Decodes canonical standard base64: only the `A–Z a–z 0–9 + /` alphabet, a
 * length that is a multiple of 4, `=` padding only at the end, and zero
 * unused bits in the last character (so every byte string has exactly one
 * accepted encoding). No whitespace, no URL-safe alphabet. Returns
 * `undefined` for anything else.
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  // atob ignores the unused bits of the last character; a canonical encoding has them zero.
  return encodeBase64(bytes) === text ? bytes : undefined;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (let i = 0; i < view.length; i++) out += view[i]!.toString(16).padStart(2, "0");
  return out;
}

/** True for exactly 64 lowercase hex characters (the form of an HMAC-SHA256 signature value). */
export function isLowerHex64(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}

/** Decodes hex (either case). Returns `undefined` for an odd length or a non-hex character. */
export function decodeHex(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/** Index of the first character of `text` that is not a hex digit, or -1. */
export function firstNonHexIndex(text: string): number {
  return text.search(/[^0-9a-fA-F]/);
}
