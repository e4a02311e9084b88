/**
 * The mapping table of docs/openfeature.md as data: a bundle
 * (`tests/testdata/openfeature/flags_bundle.json`) and one case per row, type,
 * reason and error code (`cases.json`: flag, type, default, context, and the
 * evaluation details expected). The Deno tests, the Node tests and the page
 * of the browser test all run these same cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { RuntimeBundleV1, Target } from "../../mod.ts";

/** One row: what a flag evaluation gives. */
export interface FlagCase {
  name: string;
  type: "boolean" | "string" | "number" | "object";
  flag: string;
  default: unknown;
  /** The evaluation context; `{"$date": "…"}` stands for a `Date`. */
  context?: Record<string, unknown>;
  /** Which provider options: absent for the common ones, else a key of `providers`. */
  provider?: string;
  want: {
    value: unknown;
    reason: string;
    variant?: string;
    errorCode?: string;
    /** A part of the error message. */
    errorMessage?: string;
    /** `"$checksum"` stands for the bundle's checksum. */
    flagMetadata: Record<string, unknown>;
  };
}

/** The cases file. */
export interface FlagCases {
  /** `options.flags` of every provider. */
  flags: Record<string, Target>;
  /** Other options, by provider name. */
  providers: Record<string, Record<string, unknown>>;
  cases: FlagCase[];
}

const DATA = new URL("../testdata/openfeature/", import.meta.url);

/** The bundle the cases run against (unsigned; orgId acme, projectId storefront, env prod). */
export const FLAGS_BUNDLE: RuntimeBundleV1 = JSON.parse(
  await Deno.readTextFile(new URL("flags_bundle.json", DATA)),
);

/** Its path, for a local client. */
export const FLAGS_BUNDLE_PATH = decodeURIComponent(new URL("flags_bundle.json", DATA).pathname);

/** The cases. */
export const CASES: FlagCases = JSON.parse(await Deno.readTextFile(new URL("cases.json", DATA)));

/** The provider options of a case. */
export function providerOptions(name: string | undefined): Record<string, unknown> {
  return { flags: CASES.flags, ...(name === undefined ? {} : CASES.providers[name]) };
}

/** The context of a case, with its `{"$date": …}` values as Dates. */
export function contextOf(context: Record<string, unknown> | undefined): Record<string, never> {
  const revive = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    if (typeof record.$date === "string") return new Date(record.$date);
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, revive(v)]));
  };
  return revive(context ?? {}) as Record<string, never>;
}

/** What OpenFeature's `get…Details` returned. */
export interface Details {
  value: unknown;
  reason?: string;
  variant?: string;
  errorCode?: string;
  errorMessage?: string;
  flagMetadata: Readonly<Record<string, unknown>>;
}

/** Asserts the details of `c`, where the bundle in force has `checksum`. */
export function assertCase(c: FlagCase, got: Details, checksum: string): void {
  const want = c.want;
  const metadata = Object.fromEntries(
    Object.entries(want.flagMetadata).map(([k, v]) => [k, v === "$checksum" ? checksum : v]),
  );
  assert.deepEqual(
    {
      value: got.value,
      reason: got.reason,
      variant: got.variant,
      errorCode: got.errorCode,
      flagMetadata: { ...got.flagMetadata },
    },
    {
      value: want.value,
      reason: want.reason,
      variant: want.variant,
      errorCode: want.errorCode,
      flagMetadata: metadata,
    },
    c.name,
  );
  if (want.errorMessage !== undefined) {
    assert.ok(got.errorMessage?.includes(want.errorMessage), `${c.name}: ${got.errorMessage}`);
  }
  if (want.errorCode !== undefined) assert.ok(got.errorMessage, `${c.name}: a message`);
}

/** The `get…Details` method of a flag type. */
export function detailsMethod(type: FlagCase["type"]): string {
  return `get${type[0]!.toUpperCase()}${type.slice(1)}Details`;
}
