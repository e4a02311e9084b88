// This module is browser compatible.
/**
 * The policy key `analyze` gives a discovered target.
 *
 * @module
 */
import type { Target } from "../engine/types.ts";

const HEX = "0123456789ABCDEF";
const encoder = new TextEncoder();

/**
 * The policy key `analyze` gives the policy of a discovered target:
 * `<service>.<resource>.<action>`, each field encoded so that the key stays
 * readable and distinct targets always get distinct keys.
 *
 * Encoding of each field: ASCII letters, digits, `-`, `_` and `~` are kept
 * as they are, case included (targets match case-sensitively, so lower-casing
 * would merge distinct targets). Every other character, the `.` separator and
 * `%` included, is written as `%XX` for each byte of its UTF-8 form, with
 * upper-case hex (`.` is `%2E`, `%` is `%25`, `*` is `%2A`, space is `%20`).
 * A lone UTF-16 surrogate, which has no UTF-8 form, is written `%uXXXX`.
 * Since no encoded field contains a `.`, splitting a key on `.` gives back the
 * three encoded fields, and the encoding is one-to-one: the key of a target
 * is stable across runs, versions and machines, and two keys are equal only
 * when all three fields are.
 *
 * @param target The target found in source code.
 * @returns The policy key, for example `billing.invoice.create`.
 *
 * @example Readable keys for ordinary names
 * ```ts
 * import { policyKeyForTarget } from "./policy_key_for_target.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   policyKeyForTarget({ service: "billing", resource: "invoice", action: "create" }),
 *   "billing.invoice.create",
 * );
 * assert.equal(
 *   policyKeyForTarget({ service: "billing-api", resource: "Invoice_Line", action: "read" }),
 *   "billing-api.Invoice_Line.read",
 * );
 * ```
 *
 * @example Dots inside names cannot collide
 * ```ts
 * import { policyKeyForTarget } from "./policy_key_for_target.ts";
 * import assert from "node:assert/strict";
 *
 * const a = policyKeyForTarget({ service: "a.b", resource: "c", action: "d" });
 * const b = policyKeyForTarget({ service: "a", resource: "b.c", action: "d" });
 * assert.equal(a, "a%2Eb.c.d");
 * assert.equal(b, "a.b%2Ec.d");
 * ```
 */
export function policyKeyForTarget(target: Target): string {
  return `${_encodeField(target.service)}.${_encodeField(target.resource)}.${
    _encodeField(target.action)
  }`;
}

function _encodeField(field: string): string {
  let out = "";
  for (let i = 0; i < field.length; i++) {
    const unit = field.charCodeAt(i);
    if (_isKept(unit)) {
      out += field[i];
      continue;
    }
    let character = field[i]!;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = field.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        character = field.slice(i, i + 2);
        i++;
      }
    }
    if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += `%u${unit.toString(16).toUpperCase().padStart(4, "0")}`;
      continue;
    }
    for (const byte of encoder.encode(character)) {
      out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
    }
  }
  return out;
}

/** ASCII letters, digits, `-`, `_`, `~`. */
function _isKept(unit: number): boolean {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) ||
    (unit >= 0x61 && unit <= 0x7a) || unit === 0x2d || unit === 0x5f || unit === 0x7e;
}
