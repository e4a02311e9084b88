// This module is browser compatible.
/**
 * The `UNKNOWN_FIELD` warning, shared by `validateBundle` and the CLI's
 * checks of the documents it reads (drafts, suites, imports).
 *
 * @module
 */
import type { Issue } from "../public/issue.ts";
import { suggest } from "./suggest.ts";

/**
 * The warning for the field `key` of the object at `parentPath`, which is
 * not one of `known`: it names the closest known field when one is close
 * (`thenEfect`: did you mean `thenEffect`?). `name` says whose field it is
 * in the message; `ignoredBy` who ignores it.
 */
export function unknownFieldIssue(
  key: string,
  known: Iterable<string>,
  parentPath: string,
  name: string,
  ignoredBy = "the runtime",
): Issue {
  const close = suggest(key, known);
  const quoted = JSON.stringify(key.length > 40 ? key.slice(0, 40) + "…" : key);
  return {
    code: "UNKNOWN_FIELD",
    path: `${parentPath}/${pointerSegment(key)}`,
    message: `${name}: unknown field ${quoted}${
      close === undefined ? "" : ` (did you mean "${close}"?)`
    }, which ${ignoredBy} ignores; correct or remove it`,
  };
}

/**
 * The {@link unknownFieldIssue}s of every own field of `object` that is
 * not one of `known` (none when `object` is not a plain object).
 */
export function unknownFieldIssues(
  object: unknown,
  known: readonly string[] | ReadonlySet<string>,
  parentPath: string,
  name: string,
  ignoredBy?: string,
): Issue[] {
  if (typeof object !== "object" || object === null || Array.isArray(object)) return [];
  const has = (key: string) =>
    Array.isArray(known) ? known.includes(key) : (known as ReadonlySet<string>).has(key);
  return Object.keys(object).filter((key) => !has(key)).map((key) =>
    unknownFieldIssue(key, known, parentPath, name, ignoredBy)
  );
}

/** A key as one JSON Pointer segment (RFC 6901: `~` is `~0`, `/` is `~1`). */
export function pointerSegment(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
