// This module is browser compatible.
// The library's one option checker (docs/local-client.md "Options",
// docs/remote.md "Options", docs/enforcement.md): every factory describes its
// options as fields and checks them here before any I/O. An unknown key fails
// like a wrong value, naming the key and the closest known one, so
// `watch: { interval: 5 }` is an error, not a silent default.
import { suggest } from "./suggest.ts";
import { isRecord } from "./guards.ts";
import { PolicyError } from "../public/policy_error.ts";
import { describeValue } from "./describe_value.ts";

// Values are described by describe_value.ts (which the CLI's start-up
// modules import alone); re-exported for the factories that check options.
export {
  describeValue,
  looksLikeSecret,
  REDACTED,
  redactSecrets,
  SECRET_NOT_SHOWN,
} from "./describe_value.ts";

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
 * The default of an optional options parameter on a hot path: a call that
 * passes none skips the check (`options === NO_OPTIONS`).
 */
export const NO_OPTIONS: Readonly<Record<string, never>> = Object.freeze({});

/**
 * A field whose value the function checks itself, with its own codes and
 * messages: listed so that the key is known (a typo of it is refused).
 */
export const checkedByCaller: Field = { check: () => undefined };

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

/** A whole number of `what` (bytes, records), at least 1. */
function countOf(what: string): Field {
  return {
    check: (value) =>
      typeof value === "number" && Number.isSafeInteger(value) && value >= 1
        ? undefined
        : `must be a whole number of ${what}, at least 1; got ${describeValue(value)}`,
  };
}

/** A whole number of bytes, at least 1. */
export const bytesField: Field = countOf("bytes");

/** A whole number of records, at least 1. */
export const recordsField: Field = countOf("records");

/** A rate: a number from 0 to 1 (sampling). */
export const rateField: Field = {
  check: (value) =>
    typeof value === "number" && value >= 0 && value <= 1
      ? undefined
      : `must be a number from 0 to 1; got ${describeValue(value)}`,
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

/** How the message of an unknown key starts (it names the key with its whole path). */
export const UNKNOWN_OPTION = "unknown option ";

/**
 * What is wrong with the options object `value` (described by `fields`,
 * its keys named after `prefix`, such as `"watch."` or `"verify[1]."`): an
 * unknown key, with the closest known one; a required field missing; a
 * field's own problem. Undefined when nothing is. The one place option
 * objects are checked, nested ones included (`objectField`, the keys of
 * `verify`).
 */
export function fieldsProblem(
  value: Record<string, unknown>,
  fields: Fields,
  prefix: string,
): string | undefined {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) {
      const known = Object.keys(fields);
      const match = suggest(key, known);
      return `${UNKNOWN_OPTION}${JSON.stringify(`${prefix}${key}`)}; ${
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
    if (problem === undefined) continue;
    // A nested unknown key already names its whole path ("watch.interval").
    return problem.startsWith(name) || problem.startsWith(UNKNOWN_OPTION)
      ? problem
      : `${name} ${problem}`;
  }
  return undefined;
}
