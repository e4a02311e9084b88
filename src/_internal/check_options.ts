// This module is browser compatible.
// The library's one option checker (docs/local-client.md "Options",
// docs/remote.md "Options", docs/enforcement.md): every factory describes its
// options as fields and checks them here before any I/O. An unknown key fails
// like a wrong value, naming the key and the closest known one, so
// `watch: { interval: 5 }` is an error, not a silent default.
import { suggest } from "./suggest.ts";
import { isRecord } from "./guards.ts";
import { PolicyError } from "./policy_error.ts";

/** The largest delay a timer accepts (setTimeout fires at once beyond it). */
export const MAX_DELAY_MS = 2_147_483_647;

/**
 * How one option is checked: `check` returns what is wrong with a present
 * value (a phrase that follows the option's name), or undefined. It may
 * also throw a PolicyError of its own code.
 */
export interface Field {
  check(value: unknown, name: string): string | undefined;
  /** The option must be present. */
  required?: boolean;
}

/** The fields of an options object, by key. */
export type Fields = Readonly<Record<string, Field>>;

/** An `INVALID_OPTIONS` error. */
export function invalidOption(message: string): PolicyError {
  return new PolicyError("INVALID_OPTIONS", message);
}

/**
 * A value described for a message, the one way values given by a caller or
 * a user are quoted: strings quoted and cut to a short prefix (at most 60
 * characters in all), and not shown at all when they look like a secret
 * ({@link looksLikeSecret}: a value pasted into the wrong option or flag is
 * often one); numbers as they are; others by type.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    if (looksLikeSecret(value)) return SECRET_NOT_SHOWN;
    const text = JSON.stringify(value.slice(0, 60));
    return text.length > 60 ? `${text.slice(0, 56)}…"` : text;
  }
  if (typeof value === "number") return String(value);
  return typeof value;
}

/** What {@link describeValue} says instead of a value that looks like a secret. */
export const SECRET_NOT_SHOWN = "a value that looks like a secret (not shown)";

/** What {@link redactSecrets} puts in place of text that looks like a secret. */
export const REDACTED = "<not shown: looks like a secret>";

/**
 * A PEM block: a BEGIN line, then on the next lines its body up to the END
 * line (or the end of the text). A BEGIN line alone, as messages quote it
 * for guidance, is not key material.
 */
const PEM_TEXT =
  /-----BEGIN [A-Z0-9 ]{1,40}-----[ \t]*\r?\n[\s\S]*?(?:-----END [A-Z0-9 ]{1,40}-----|$)/g;
/** 32 or more hex digits: an HMAC secret or a similar key. */
const HEX_RUN = /[0-9a-fA-F]{32,}/g;
/** 32 or more characters of the base64 (and base64url) alphabet. */
const BASE64_RUN = /[A-Za-z0-9+/=_-]{32,}/g;

/**
 * True for a base64 run that looks random: upper case, lower case and
 * digits all present, and the kind of character changing between at least
 * 40 % of neighbours (random base64 changes at about 64 %; words, paths and
 * camelCase names far less often).
 */
function randomLooking(run: string): boolean {
  const kind = (c: string) =>
    c >= "a" && c <= "z" ? 0 : c >= "A" && c <= "Z" ? 1 : c >= "0" && c <= "9" ? 2 : 3;
  const seen = [0, 0, 0, 0];
  let changes = 0;
  for (let i = 0; i < run.length; i++) {
    const k = kind(run[i]!);
    seen[k]!++;
    if (i > 0 && k !== kind(run[i - 1]!)) changes++;
  }
  return seen[0]! > 0 && seen[1]! > 0 && seen[2]! > 0 && changes >= 0.4 * (run.length - 1);
}

/**
 * `text` with everything that looks like key material replaced by
 * {@link REDACTED}: PEM text, runs of 32 or more hex digits (except a
 * `sha256:` checksum), and long random-looking base64. The CLI passes every
 * diagnostic it prints (errors, hints, warnings, notes) through it, so that a
 * secret pasted into a flag, a path or a configuration field is not printed
 * back, whatever message it ends up in.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(PEM_TEXT, REDACTED)
    .replace(
      HEX_RUN,
      (run, offset: number, whole: string) =>
        run.length === 64 && whole.slice(offset - 7, offset) === "sha256:" ? run : REDACTED,
    )
    .replace(BASE64_RUN, (run) => randomLooking(run) ? REDACTED : run);
}

/** True when `text` holds something that looks like key material (see {@link redactSecrets}). */
export function looksLikeSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}

/** `field` marked as required. */
export function required(field: Field): Field {
  return { ...field, required: true };
}

/** true or false. */
export const booleanField: Field = {
  check: (value) =>
    typeof value === "boolean" ? undefined : `must be true or false; got ${describeValue(value)}`,
};

/** A function. */
export const functionField: Field = {
  check: (value) =>
    typeof value === "function" ? undefined : `must be a function; got ${describeValue(value)}`,
};

/** A non-empty string. */
export const stringField: Field = {
  check: (value) =>
    typeof value === "string" && value !== ""
      ? undefined
      : `must be a non-empty string; got ${describeValue(value)}`,
};

/** A whole number of bytes, at least 1. */
export const bytesField: Field = {
  check: (value) =>
    typeof value === "number" && Number.isSafeInteger(value) && value >= 1
      ? undefined
      : `must be a whole number of bytes, at least 1; got ${describeValue(value)}`,
};

/** Milliseconds a timer can wait: above 0, at most 2^31 - 1. */
export const durationField: Field = {
  check: (value) =>
    typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_DELAY_MS
      ? undefined
      : `must be a number of milliseconds above 0 and at most ${MAX_DELAY_MS}; got ${
        describeValue(value)
      }`,
};

/** The option `clock`: an object with the four methods of `Clock` (clock.ts). */
export const clockField: Field = {
  check: (value) => {
    if (typeof value !== "object" || value === null) {
      return `must be an object with now(), wallNow(), setTimeout() and clearTimeout(); got ${
        describeValue(value)
      }`;
    }
    const missing = (["now", "wallNow", "setTimeout", "clearTimeout"] as const)
      .filter((method) => typeof (value as Record<string, unknown>)[method] !== "function");
    return missing.length === 0
      ? undefined
      : `must be an object with now(), wallNow(), setTimeout() and clearTimeout(); ${
        missing.map((m) => `${m}()`).join(", ")
      } missing`;
  },
};

/** A list of at most `max` non-empty strings. */
export function stringListField(max: number): Field {
  return {
    check: (value) =>
      Array.isArray(value) && value.length <= max &&
        value.every((item) => typeof item === "string" && item !== "")
        ? undefined
        : `must be a list of at most ${max} non-empty strings`,
  };
}

/** An object with the given fields (unknown keys refused). */
export function objectField(fields: Fields, shape: string): Field {
  return {
    check: (value, name) =>
      isRecord(value)
        ? fieldsProblem(value, fields, `${name}.`)
        : `must be an object ${shape}; got ${describeValue(value)}`,
  };
}

/** An option that is refused whenever it is present, with the reason. */
export function refusedField(reason: string): Field {
  return { check: () => reason };
}

/**
 * Checks `options` against `fields` (the common ones and the client's own):
 * an object, no unknown key (at any depth), every required field present,
 * every present field valid, `decisionLog` only with `onDecision`.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` whose message starts with
 * `caller` and names the option; or the code a field throws.
 */
export function checkOptions(options: unknown, fields: Fields, caller: string): void {
  if (!isRecord(options)) {
    throw invalidOption(`${caller}: options must be an object; got ${describeValue(options)}`);
  }
  const problem = fieldsProblem(options, fields, "");
  if (problem !== undefined) throw invalidOption(`${caller}: ${problem}`);
  if (options.decisionLog !== undefined && options.onDecision === undefined) {
    throw invalidOption(
      `${caller}: decisionLog needs onDecision, the function that receives each logged decision`,
    );
  }
}

function fieldsProblem(
  value: Record<string, unknown>,
  fields: Fields,
  prefix: string,
): string | undefined {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) {
      const known = Object.keys(fields);
      const match = suggest(key, known);
      return `unknown option ${JSON.stringify(`${prefix}${key}`)}; ${
        match === undefined
          ? `the known ones are ${known.map((k) => `${prefix}${k}`).join(", ")}`
          : `did you mean ${JSON.stringify(`${prefix}${match}`)}?`
      }`;
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    const name = `${prefix}${key}`;
    const item = value[key];
    if (item === undefined) {
      if (field.required) return `${name} is required`;
      continue;
    }
    const problem = field.check(item, name);
    if (problem !== undefined) return problem.startsWith(name) ? problem : `${name} ${problem}`;
  }
  return undefined;
}
