// This module is browser compatible.
/**
 * The fields each kind of object of a bundle may have, from the format's
 * definition, and the `UNKNOWN_FIELD` warnings of the others.
 *
 * @module
 */
import { unknownFieldIssue } from "../../_internal/unknown_field_issue.ts";
import { isRecord } from "../../_internal/guards.ts";
import { fieldNames, type FieldsObjectName, OBJECTS_WITH_FIELDS } from "../bundle_format.ts";
import { type Collector, type Site, WARNING } from "./walk.ts";

/** The fields one kind of object may have, and its bit in {@link fieldBits}. */
export interface FieldSet {
  readonly names: readonly string[];
  readonly bit: number;
}

/**
 * The fields each object of a bundle may have, derived from the format's
 * definition (`bundle_format.ts`, docs/bundle-format.md), each kind with
 * its own bit. Any other field is kept and ignored by the runtime, and
 * reported as an `UNKNOWN_FIELD` warning with the closest known name: a
 * typo such as `thenEfect` would otherwise change decisions without a word.
 */
export const FIELDS = {} as Record<FieldsObjectName, FieldSet>;
OBJECTS_WITH_FIELDS.forEach((name, i) => FIELDS[name] = { names: fieldNames(name), bit: 1 << i });

/** Every field name, with the bits of the kinds of object it belongs to. */
const BITS: ReadonlyMap<string, number> = (() => {
  const bits = new Map<string, number>();
  for (const set of Object.values<FieldSet>(FIELDS)) {
    for (const name of set.names) bits.set(name, (bits.get(name) ?? 0) | set.bit);
  }
  return bits;
})();

/** The bits of the field sets `key` belongs to (0 for a field of none). */
export function fieldBits(key: string): number {
  return BITS.get(key) ?? 0;
}

/** `UNKNOWN_FIELD` warnings of an effect or default and of its descriptors (the site is at it). */
export function descriptorFields(
  effect: unknown,
  fields: FieldSet,
  site: Site,
  out: Collector,
): void {
  if (!isRecord(effect)) return;
  unknownFieldsAt(effect, fields, site, out);
  for (const key of ["killSwitch", "throttle"] as const) {
    const descriptor = effect[key];
    if (!isRecord(descriptor)) continue;
    site.below.push(key);
    unknownFieldsAt(descriptor, FIELDS[key], site, out);
    site.below.length -= 1;
  }
}

/**
 * Reports the fields of `object` that are not in `known` (`UNKNOWN_FIELD`
 * warnings, with the closest known name). Allocates nothing for an object
 * without unknown fields.
 */
export function unknownFields(
  object: Record<string, unknown>,
  known: FieldSet,
  out: Collector,
  path: string,
  name: string,
): void {
  for (const key in object) {
    if ((fieldBits(key) & known.bit) !== 0 || !Object.hasOwn(object, key)) continue;
    if (!out.keep(WARNING)) continue;
    const issue = unknownFieldIssue(key, known.names, path, name);
    out.warn(issue.code, issue.path, issue.message);
  }
}

/** {@link unknownFields} of the object at the site's current place; true when it has any. */
export function unknownFieldsAt(
  object: Record<string, unknown>,
  known: FieldSet,
  site: Site,
  out: Collector,
): boolean {
  for (const key in object) {
    if ((fieldBits(key) & known.bit) !== 0 || !Object.hasOwn(object, key)) continue;
    // Rare: the path and name are built only now.
    unknownFields(object, known, out, site.path(), site.name());
    return true;
  }
  return false;
}
