// This module is browser compatible.
// The mapping both OpenFeature providers share (docs/openfeature.md "The
// mapping"): a flag key to a target, an evaluation context to a context, a
// decision to OpenFeature's resolution details. Every known failure becomes
// an OpenFeature error code in the details; nothing here throws.
import {
  ErrorCode,
  type EvaluationContext,
  type FlagMetadata,
  type JsonValue,
  type ResolutionDetails,
  StandardResolutionReasons,
} from "@openfeature/core";
import type { Decision, EvaluationRequest, Target } from "../engine/types.ts";
import { isPolicyError, PolicyError } from "../public/policy_error.ts";
import { parseJson } from "../engine/parse_json.ts";
import { isPlainObject, isRecord } from "../_internal/guards.ts";
import { describeValue, type Fields, stringField } from "../_internal/check_options.ts";
import type { FlagMappingOptions } from "./types.ts";

/** The four flag types of OpenFeature. */
export type FlagType = "boolean" | "string" | "number" | "object";

/** What the bundle in force says of itself, for the flag metadata. */
export interface BundleFacts {
  readonly checksum: string;
  readonly bundleVersion: number | null;
}

/** The variant of a decision made by a policy's `defaults`. */
export const DEFAULT_VARIANT = "__default__";

/**
 * The codes with which an evaluation fails closed: the bundle in force may
 * not be used (`BUNDLE_EXPIRED` by its string, for clients that have it).
 */
export const FAIL_CLOSED_CODES: ReadonlySet<string> = new Set(["BUNDLE_STALE", "BUNDLE_EXPIRED"]);

/** The most flags `options.flags` may map. */
export const MAX_FLAGS = 100_000;

/** Flag keys parsed as `service/resource/action` are remembered, up to this many. */
const PARSED_KEYS_KEPT = 4096;

/** Context objects nested deeper than this are passed on unconverted. */
const MAX_CONTEXT_DEPTH = 64;

/** Flag keys and targets as messages show them: JSON-quoted, cut to 100 characters. */
function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

const targetField = (value: unknown): boolean =>
  isRecord(value) && Object.keys(value).length === 3 &&
  ["service", "resource", "action"].every((key) =>
    typeof value[key] === "string" && value[key] !== ""
  );

/** The options of {@link FlagMappingOptions}, for the library's option checker. */
export const FLAG_MAPPING_FIELDS: Fields = {
  flags: {
    check: (value, name) => {
      if (!isRecord(value)) return `must be an object of flag keys; got ${describeValue(value)}`;
      const keys = Object.keys(value);
      if (keys.length > MAX_FLAGS) return `maps ${keys.length} flags, more than ${MAX_FLAGS}`;
      for (const key of keys) {
        if (!targetField(value[key])) {
          return `${name}[${
            quote(key)
          }] must be a target { service, resource, action } of three non-empty strings; got ${
            describeValue(value[key])
          }`;
        }
      }
      return undefined;
    },
  },
  targetingKey: stringField,
};

/** A flag type's OpenFeature resolution of one request. */
export type Resolution<T> = ResolutionDetails<T>;

/** Maps flags, contexts and decisions for one provider. */
export class FlagResolver {
  /** `options.flags`, copied into a map (so no key can reach a prototype). */
  readonly #flags = new Map<string, Target>();
  /** The flag keys mapped to each target, by {@link keyOf}. */
  readonly #names = new Map<string, string[]>();
  /** Keys read as `service/resource/action` (or null: not of that form). */
  readonly #parsed = new Map<string, Target | null>();
  readonly #targetingKey: string;

  /** `options` must have been checked against {@link FLAG_MAPPING_FIELDS}. */
  constructor(options: FlagMappingOptions) {
    this.#targetingKey = options.targetingKey ?? "targetingKey";
    for (const [flag, t] of Object.entries(options.flags ?? {})) {
      const target = { service: t.service, resource: t.resource, action: t.action };
      this.#flags.set(flag, target);
      const key = keyOf(target);
      const names = this.#names.get(key);
      if (names === undefined) this.#names.set(key, [flag]);
      else names.push(flag);
    }
  }

  /** The target of a flag key, or null when it has none. */
  target(flagKey: string): Target | null {
    const mapped = this.#flags.get(flagKey);
    if (mapped !== undefined) return mapped;
    const known = this.#parsed.get(flagKey);
    if (known !== undefined) return known;
    const parts = flagKey.split("/", 4);
    const target = parts.length === 3 && parts.every((part) => part !== "")
      ? { service: parts[0]!, resource: parts[1]!, action: parts[2]! }
      : null;
    if (this.#parsed.size < PARSED_KEYS_KEPT) this.#parsed.set(flagKey, target);
    return target;
  }

  /**
   * The flag keys of `targets`, sorted: each target under the keys `flags`
   * maps to it, or, when none does, under its `service/resource/action`
   * key (when that key reads back as the target: no `/` in its parts).
   */
  flagsOf(targets: readonly Target[]): string[] {
    const out = new Set<string>();
    for (const target of targets) {
      const names = this.#names.get(keyOf(target));
      if (names !== undefined) {
        for (const name of names) out.add(name);
        continue;
      }
      const key = `${target.service}/${target.resource}/${target.action}`;
      const back = this.target(key);
      if (back !== null && keyOf(back) === keyOf(target)) out.add(key);
    }
    return [...out].sort();
  }

  /**
   * The request context of an evaluation context: every attribute, with
   * `targetingKey` under `options.targetingKey`, and `Date` values (in
   * plain objects, to 64 levels) as ISO 8601 strings. The context itself
   * when nothing needs converting.
   *
   * @throws {PolicyError} `INVALID_REQUEST` for a `Date` that is not a valid time.
   */
  context(source: EvaluationContext): Record<string, unknown> {
    const rename = this.#targetingKey !== "targetingKey" && Object.hasOwn(source, "targetingKey");
    if (!rename && !hasObjects(source)) return source;
    const copy = convertObject(source, 0, []);
    if (rename) {
      const value = copy.targetingKey;
      delete copy.targetingKey;
      copy[this.#targetingKey] = value;
    }
    return copy;
  }

  /**
   * Resolves `flagKey` as a flag of `type` (docs/openfeature.md "The
   * mapping") with `evaluate`, or `PROVIDER_NOT_READY` while it is null (a
   * provider not initialized). `failedClosed` is called with the error when
   * the evaluation failed closed (`BUNDLE_STALE`, `BUNDLE_EXPIRED`).
   */
  resolve<T extends boolean | string | number | JsonValue>(
    type: FlagType,
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext | undefined,
    evaluate: ((request: EvaluationRequest) => Decision) | null,
    bundle: BundleFacts,
    failedClosed: (error: PolicyError) => void,
  ): Resolution<T> {
    if (evaluate === null) {
      return {
        value: defaultValue,
        reason: StandardResolutionReasons.ERROR,
        errorCode: ErrorCode.PROVIDER_NOT_READY,
        errorMessage:
          "the provider is not initialized yet: set it with OpenFeature.setProviderAndWait",
      };
    }
    const target = this.target(flagKey);
    if (target === null) {
      return failure(
        defaultValue,
        ErrorCode.FLAG_NOT_FOUND,
        `flag ${
          quote(flagKey)
        } is not in the provider's flags and is not of the form service/resource/action`,
        bundleMetadata(bundle),
      );
    }
    let decision: Decision;
    try {
      decision = evaluate({ target, context: this.context(context ?? {}) });
    } catch (error) {
      return evaluationFailure(defaultValue, flagKey, error, bundle, failedClosed);
    }
    const metadata = decisionMetadata(decision, bundle);
    if (decision.reason === "default" && decision.policyKey === undefined) {
      return failure(
        defaultValue,
        ErrorCode.FLAG_NOT_FOUND,
        `no policy decides flag ${quote(flagKey)} (target ${
          quote(`${target.service}/${target.resource}/${target.action}`)
        }): the bundle's deny-by-default applies`,
        metadata,
      );
    }
    const variant = decision.reason === "rule" ? decision.ruleId : DEFAULT_VARIANT;
    if (decision.decision === "kill_switch") {
      return {
        value: (type === "boolean" ? false : defaultValue) as T,
        variant,
        reason: StandardResolutionReasons.DISABLED,
        flagMetadata: metadata,
      };
    }
    const value = valueOf(type, decision);
    if (value === MISMATCH) {
      return failure(
        defaultValue,
        ErrorCode.TYPE_MISMATCH,
        `flag ${quote(flagKey)} is read as a ${type} flag, but ${describeDecision(decision, type)}`,
        metadata,
      );
    }
    return {
      value: value as T,
      variant,
      reason: decision.reason === "rule"
        ? StandardResolutionReasons.TARGETING_MATCH
        : StandardResolutionReasons.DEFAULT,
      flagMetadata: metadata,
    };
  }
}

/** A key that identifies a target (its three strings, unambiguously). */
function keyOf(target: Target): string {
  return JSON.stringify([target.service, target.resource, target.action]);
}

/** Some own value of `context` is an object other than an array (a Date or a nested object). */
function hasObjects(context: Record<string, unknown>): boolean {
  for (const key in context) {
    const value = context[key];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      if (Object.hasOwn(context, key)) return true;
    }
  }
  return false;
}

/**
 * A copy of a plain object with its Dates as ISO strings, in an object with
 * no prototype (so a `__proto__` key stays an own key). Objects already on
 * the way down (a cycle) and objects deeper than {@link MAX_CONTEXT_DEPTH}
 * are passed on as they are: the engine reads own properties of plain
 * objects only, and never inside arrays.
 */
function convertObject(
  source: Record<string, unknown>,
  depth: number,
  path: object[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = Object.create(null);
  path.push(source);
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (value instanceof Date) {
      const time = value.getTime();
      if (Number.isNaN(time)) {
        throw new PolicyError(
          "INVALID_REQUEST",
          `context value ${quote(key)} is an invalid Date; pass a valid Date or an ISO 8601 string`,
        );
      }
      copy[key] = value.toISOString();
    } else if (
      isPlainObject(value) && depth + 1 < MAX_CONTEXT_DEPTH && !path.includes(value)
    ) {
      copy[key] = convertObject(value, depth + 1, path);
    } else {
      copy[key] = value;
    }
  }
  path.pop();
  return copy;
}

/** What {@link valueOf} returns for a decision the flag type cannot take. */
const MISMATCH = Symbol("type mismatch");

/** The flag value of a decision (not a kill switch) for a flag type, or {@link MISMATCH}. */
function valueOf(type: FlagType, decision: Decision): unknown {
  const kind = decision.decision;
  if (type === "boolean") {
    if (kind === "allow" || kind === "throttle") return true;
    if (kind === "deny") return false;
    const value = decision.value!;
    if (value === "true") return true;
    if (value === "false") return false;
    const parsed = parsedValue(value);
    return typeof parsed === "boolean" ? parsed : MISMATCH;
  }
  if (kind !== "custom") return MISMATCH;
  if (type === "string") return decision.value;
  const parsed = parsedValue(decision.value);
  if (type === "number") {
    return typeof parsed === "number" && Number.isFinite(parsed) ? parsed : MISMATCH;
  }
  return typeof parsed === "object" && parsed !== null ? parsed : MISMATCH;
}

/** A custom value parsed as JSON (exactly as written), or {@link MISMATCH}. */
function parsedValue(value: string): unknown {
  try {
    return parseJson(value);
  } catch {
    return MISMATCH;
  }
}

function describeDecision(decision: Decision, type: FlagType): string {
  const by = decision.reason === "rule"
    ? `rule ${quote(decision.ruleId)} of policy ${quote(decision.policyKey)}`
    : `the defaults of policy ${quote(decision.policyKey!)}`;
  if (decision.decision !== "custom") {
    return `${by} decided ${quote(decision.decision)}, which only a boolean flag can take`;
  }
  const wanted = type === "boolean"
    ? "JSON true or false"
    : type === "number"
    ? "a JSON number"
    : "a JSON object or array";
  return `the custom value of ${by} is not ${wanted}`;
}

/** The metadata every resolution carries: the bundle in force. */
function bundleMetadata(bundle: BundleFacts): FlagMetadata {
  const metadata: FlagMetadata = { checksum: bundle.checksum };
  if (bundle.bundleVersion !== null) metadata.bundleVersion = bundle.bundleVersion;
  return metadata;
}

/** The flag metadata of a decision (docs/openfeature.md "Flag metadata"). */
function decisionMetadata(decision: Decision, bundle: BundleFacts): FlagMetadata {
  const metadata = bundleMetadata(bundle);
  metadata.decision = decision.decision;
  if (decision.policyKey !== undefined) metadata.policyKey = decision.policyKey;
  if (decision.reason === "rule") metadata.ruleId = decision.ruleId;
  if (decision.decision === "throttle") {
    metadata.throttleLimit = decision.throttle.limit;
    metadata.throttleWindowSeconds = decision.throttle.windowSeconds;
    metadata.throttleKey = decision.throttle.key;
  } else if (decision.decision === "kill_switch") {
    metadata.killSwitchService = decision.killSwitch.service;
    if (decision.killSwitch.reason !== undefined) {
      metadata.killSwitchReason = decision.killSwitch.reason;
    }
  }
  return metadata;
}

function failure<T>(
  value: T,
  errorCode: ErrorCode,
  errorMessage: string,
  flagMetadata: FlagMetadata,
): Resolution<T> {
  return {
    value,
    reason: StandardResolutionReasons.ERROR,
    errorCode,
    errorMessage,
    flagMetadata,
  };
}

/** An evaluation that threw: its OpenFeature error code, the `PolicyError` code in the message. */
function evaluationFailure<T>(
  value: T,
  flagKey: string,
  error: unknown,
  bundle: BundleFacts,
  failedClosed: (error: PolicyError) => void,
): Resolution<T> {
  const metadata = bundleMetadata(bundle);
  if (!isPolicyError(error)) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return failure(
      value,
      ErrorCode.GENERAL,
      `evaluating flag ${quote(flagKey)} failed: ${detail}`,
      metadata,
    );
  }
  metadata.policyErrorCode = error.code;
  const message = `${error.code}: ${error.message}`;
  if (error.code === "CONTEXT_KEY_NOT_ALLOWED" || error.code === "INVALID_REQUEST") {
    return failure(value, ErrorCode.INVALID_CONTEXT, message, metadata);
  }
  if (FAIL_CLOSED_CODES.has(error.code)) failedClosed(error);
  return failure(value, ErrorCode.GENERAL, message, metadata);
}
