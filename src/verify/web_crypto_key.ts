// This module is browser compatible.
/**
 * The WebCrypto key type of the public API, named without the DOM library
 * (docs/install.md "TypeScript").
 *
 * @module
 */

/**
 * A WebCrypto `CryptoKey`, as the key functions take and return it: the
 * platform's own global `CryptoKey` type wherever one is declared (the DOM
 * library of browsers, Deno, Bun, Cloudflare Workers, `@types/node` 24+),
 * and otherwise {@link CryptoKeyShape}, the members that Node's
 * `webcrypto.CryptoKey` declares, so that a Node project whose `lib` has no
 * `"DOM"` type-checks. A key from `crypto.subtle` (global, or
 * `node:crypto`'s `webcrypto.subtle`) fits either way.
 *
 * @example A key from WebCrypto, passed to importHmacKey
 * ```ts
 * import { importHmacKey, type WebCryptoKey } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const generated: WebCryptoKey = await crypto.subtle.generateKey(
 *   { name: "HMAC", hash: "SHA-256", length: 256 },
 *   false,
 *   ["sign", "verify"],
 * );
 * const key: WebCryptoKey = await importHmacKey(generated, "verify");
 * assert.equal(key.type, "secret");
 * ```
 */
export type WebCryptoKey = typeof globalThis extends { CryptoKey: { prototype: infer Key } } ? Key
  : CryptoKeyShape;

/** The usages a WebCrypto key may allow (W3C Web Cryptography API, `KeyUsage`). */
export type CryptoKeyUsage =
  | "decrypt"
  | "deriveBits"
  | "deriveKey"
  | "encrypt"
  | "sign"
  | "unwrapKey"
  | "verify"
  | "wrapKey";

/**
 * The members of a WebCrypto `CryptoKey` (W3C Web Cryptography API): what
 * {@link WebCryptoKey} is where no global `CryptoKey` type is declared.
 */
export interface CryptoKeyShape {
  /** The algorithm the key is for, with its parameters (`{ name: "ECDSA", namedCurve: "P-256" }`). */
  readonly algorithm: { name: string };
  /** Whether `exportKey` may export it. */
  readonly extractable: boolean;
  /** A public or private key of a pair, or a secret key. */
  readonly type: "private" | "public" | "secret";
  /** What the key may be used for. */
  readonly usages: CryptoKeyUsage[];
}
