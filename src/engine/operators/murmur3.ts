// This module is browser compatible.
/**
 * MurmurHash3, x86 32-bit (Austin Appleby's public-domain algorithm), over
 * the UTF-8 bytes of a string: the hash of `rollout` (docs/bundle-format.md
 * "Rollout buckets"). Written from the algorithm's description; checked
 * against the published vectors and an independent Python computation
 * (tests/engine/murmur3_test.ts).
 *
 * A string is hashed from its UTF-16 code units, encoding each as UTF-8 on
 * the way (a lone surrogate as U+FFFD, as `TextEncoder` does), so nothing is
 * allocated. A hash can start from a {@link HashPrefix}, the state after the
 * bytes of a fixed prefix (a rollout's `salt:`), so that an evaluation hashes
 * only the value it reads.
 *
 * @module
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/**
 * The state of a hash after some bytes: `h1` after every whole 4-byte
 * block, the bytes of the block begun (`tail`, little-endian, `tailBytes` of
 * them), and how many bytes in all.
 */
export interface HashPrefix {
  readonly h1: number;
  readonly tail: number;
  readonly tailBytes: number;
  readonly length: number;
}

/** Mixes one 4-byte block `k` into `h1`. */
function mixBlock(h1: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h1 ^= k;
  h1 = (h1 << 13) | (h1 >>> 19);
  return (Math.imul(h1, 5) + 0xe6546b64) | 0;
}

/** The hash, from the state after every byte: the tail mixed in, then the finalisation. */
function finish(h1: number, tail: number, tailBytes: number, length: number): number {
  if (tailBytes > 0) {
    let k = Math.imul(tail, C1);
    k = (k << 15) | (k >>> 17);
    h1 ^= Math.imul(k, C2);
  }
  h1 ^= length;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

/** The state after `bytes`, continuing from `state`. */
function feedBytes(state: HashPrefix, bytes: Uint8Array): HashPrefix {
  let { h1, tail, tailBytes } = state;
  for (let i = 0; i < bytes.length; i++) {
    tail |= bytes[i]! << (tailBytes << 3);
    if (++tailBytes === 4) {
      h1 = mixBlock(h1, tail);
      tail = 0;
      tailBytes = 0;
    }
  }
  return { h1, tail, tailBytes, length: (state.length + bytes.length) >>> 0 };
}

/** The state of a hash with `seed` before any byte. */
function start(seed: number): HashPrefix {
  return { h1: seed | 0, tail: 0, tailBytes: 0, length: 0 };
}

/** MurmurHash3 x86 32-bit of `bytes`, as an unsigned 32-bit integer. */
export function murmur3Bytes(bytes: Uint8Array, seed = 0): number {
  const { h1, tail, tailBytes, length } = feedBytes(start(seed), bytes);
  return finish(h1, tail, tailBytes, length);
}

/** The state after the UTF-8 bytes of `prefix` (seed 0): what {@link murmur3After} continues. */
export function hashPrefix(prefix: string, seed = 0): HashPrefix {
  return feedBytes(start(seed), new TextEncoder().encode(prefix));
}

/** MurmurHash3 x86 32-bit of the UTF-8 bytes of `text`, as an unsigned 32-bit integer. */
export function murmur3(text: string, seed = 0): number {
  return murmur3After(start(seed), text);
}

/**
 * MurmurHash3 x86 32-bit of the bytes of `prefix` followed by the UTF-8
 * bytes of `text`: one pass over `text`'s code units, nothing allocated.
 */
export function murmur3After(prefix: HashPrefix, text: string): number {
  let h1 = prefix.h1;
  let tail = prefix.tail;
  let tailBytes = prefix.tailBytes;
  let length = prefix.length;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // Up to four bytes of UTF-8, the first in the lowest byte, and how many.
    let bytes: number;
    let count: number;
    if (c < 0x80) {
      bytes = c;
      count = 1;
    } else if (c < 0x800) {
      bytes = (0xc0 | (c >> 6)) | ((0x80 | (c & 0x3f)) << 8);
      count = 2;
    } else {
      let unit = c;
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          i++;
          const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          bytes = (0xf0 | (point >> 18)) | ((0x80 | ((point >> 12) & 0x3f)) << 8) |
            ((0x80 | ((point >> 6) & 0x3f)) << 16) | ((0x80 | (point & 0x3f)) << 24);
          count = 4;
        } else {
          unit = 0xfffd; // a lone surrogate, as TextEncoder writes it
          bytes = 0;
          count = 0;
        }
      } else {
        bytes = 0;
        count = 0;
      }
      if (count === 0) {
        bytes = (0xe0 | (unit >> 12)) | ((0x80 | ((unit >> 6) & 0x3f)) << 8) |
          ((0x80 | (unit & 0x3f)) << 16);
        count = 3;
      }
    }
    length += count;
    for (;;) {
      tail |= (bytes & 0xff) << (tailBytes << 3);
      if (++tailBytes === 4) {
        h1 = mixBlock(h1, tail);
        tail = 0;
        tailBytes = 0;
      }
      if (--count === 0) break;
      bytes >>>= 8;
    }
  }
  return finish(h1, tail, tailBytes, length >>> 0);
}
