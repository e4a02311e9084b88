// This module is browser compatible.
/**
 * The bundle format (docs/bundle-format.md), defined once as data: each kind
 * of object, its fields, their types and which are required, with the
 * enumerations drawn from the kernel's vocabulary lists. From it:
 *
 * - `validate_bundle.ts` derives, at module load, the fields each object may
 *   have (an `UNKNOWN_FIELD` warning for any other, with the closest known
 *   name);
 * - `tools/build_schemas.ts` generates the JSON Schemas of `schemas/`
 *   (`deno task build:schemas`);
 * - `tests/engine/bundle_format_test.ts` proves, at type level, that
 *   the hand-written types of `types.ts` (which carry the documentation users
 *   read) declare exactly these fields, with these types, required or not.
 *
 * The checks themselves (codes, messages, JSON Pointers) stay in the
 * validator: a JSON Schema cannot say everything it says (see
 * docs/schemas.md), and it says more than a field table can.
 *
 * Not exported by `mod.ts`.
 *
 * @module
 */
import {
  COMPARISON_OPERATORS,
  EFFECT_TYPES,
  ENVS,
  ROLLOUT_BUCKETINGS,
  RULE_STATUSES,
  SEMVER_COMPARISONS,
  SIGNATURE_ALGORITHMS,
} from "../public/vocabulary.ts";
import { SEMVER_PATTERN } from "./operators/semver.ts";
import { LIKE_PATTERN_PATTERN, MAX_LIKE_PATTERN } from "./operators/like_pattern.ts";

/** The kinds of condition: the specification's, then the operators added after them. */
const CONDITION_KINDS = [
  "comparison",
  "in",
  "exists",
  "list",
  "not",
  "contains",
  "containsList",
  "affix",
  "like",
  "semver",
  "rollout",
] as const;

/** The kinds of object of a bundle, the document itself first. */
export const OBJECT_KINDS = [
  "bundle",
  "signature",
  "freshness",
  "statementSignature",
  "policy",
  "rule",
  "target",
  "effect",
  "defaults",
  "killSwitch",
  "throttle",
  "condition",
  ...CONDITION_KINDS,
] as const;

/** The name of a kind of object. */
export type ObjectName = typeof OBJECT_KINDS[number];

/**
 * Forms of string some fields must have: `validate_bundle.ts` checks each
 * with its parser (in linear time, whatever the string), the JSON Schemas
 * with `pattern`, and `tests/schemas/schemas_test.ts` that both agree; `means`
 * says it to people.
 */
export const STRING_FORMATS = {
  semver: {
    pattern: SEMVER_PATTERN,
    means: "a SemVer 2.0.0 version such as 1.4.0, v2.0.0 or 2.1.0-rc.1",
  },
  like: {
    pattern: LIKE_PATTERN_PATTERN,
    means: "a pattern that does not end in a lone \\ (write \\\\ for a backslash)",
  },
} as const;

/** A name of {@link STRING_FORMATS}. */
export type StringFormat = keyof typeof STRING_FORMATS;

/** The type of a field's value. */
export type FieldType =
  /**
   * A string; `nonEmpty`: at least one character; `maxLength`: at most this
   * many characters (Unicode code points, as JSON Schema counts them);
   * `pattern`: a regular expression it matches; `format`: one of
   * {@link STRING_FORMATS}, which validation checks with a parser and the
   * JSON Schema with a pattern.
   */
  | {
    readonly kind: "string";
    readonly nonEmpty?: true;
    readonly maxLength?: number;
    readonly pattern?: string;
    readonly format?: StringFormat;
  }
  /** A finite number, with its bounds. */
  | {
    readonly kind: "number";
    readonly minimum?: number;
    readonly exclusiveMinimum?: number;
    readonly maximum?: number;
  }
  /** A safe integer of at least `minimum`. */
  | { readonly kind: "integer"; readonly minimum: number }
  /** Exactly this value. */
  | { readonly kind: "const"; readonly value: number | string }
  /**
   * One of `values`. `open`: any other string too, and the type says so
   * (refused later, at a check of its own); `refusedAtLoad`: any other string
   * passes the structural check and the schema, the type is one of `values`,
   * and the load refuses the others (the value must be the bundle's own).
   */
  | {
    readonly kind: "enum";
    readonly values: readonly string[];
    readonly open?: true;
    readonly refusedAtLoad?: true;
  }
  /** An object of the named kind. */
  | { readonly kind: "object"; readonly of: ObjectName }
  /** An array of objects of the named kind. */
  | { readonly kind: "array"; readonly of: ObjectName }
  /** A JSON primitive a condition compares with: string, number, boolean or null. */
  | { readonly kind: "primitive" }
  /** An array of JSON primitives; `nonEmpty`: at least one. */
  | { readonly kind: "primitives"; readonly nonEmpty?: true }
  /** Any value: the runtime reads none of it. */
  | { readonly kind: "any" };

/** A field of an object. */
export interface FieldDefinition {
  readonly type: FieldType;
  /** The document cannot do without it. */
  readonly required?: true;
  /** For people: the JSON Schemas carry it to editors. */
  readonly description?: string;
  /**
   * Accepted and ignored by every reader, but not part of the TypeScript
   * type (`$schema`, for editors).
   */
  readonly untyped?: true;
  /** A legacy spelling of the named field, read only when that field is absent (`args`). */
  readonly legacyOf?: string;
}

/**
 * Fields checked only when the discriminator (`on`) has a value: an effect's
 * descriptor is checked for the type that uses it, and ignored otherwise.
 */
export interface Variant {
  /** The value of the discriminator. */
  readonly when: string;
  /** The field read for that value. */
  readonly field: string;
  /**
   * `required`: the object is invalid without it; `ignored`: without it, the
   * object is ignored (a policy default), so it is checked only when present.
   */
  readonly absent: "required" | "ignored";
}

/** A kind of object of the format. */
export interface ObjectDefinition {
  readonly description?: string;
  readonly fields: Readonly<Record<string, FieldDefinition>>;
  /**
   * Only these fields: any other makes the object invalid (signed data a
   * reader must understand whole), instead of an `UNKNOWN_FIELD` warning.
   */
  readonly closed?: true;
  /** The field whose value decides which other fields are read (see {@link Variant}). */
  readonly variants?: { readonly on: string; readonly cases: readonly Variant[] };
  /**
   * A kind of condition: any value is accepted where a condition is, as the
   * runtime accepts it (a malformed condition or an unknown operator
   * evaluates to false, with a warning from validation); the fields describe
   * the known operators.
   */
  readonly condition?: true;
  /**
   * A kind of condition added after the specification's operators: its
   * fields are checked as typed here. A malformed one is an error of
   * validation (`CONDITION_MALFORMED` at the field), and the schema refuses
   * it; an unknown operator stays false, never an error.
   */
  readonly checked?: true;
}

/** A value that is one of several kinds of object (a condition). */
export interface UnionDefinition {
  readonly description?: string;
  /** The kinds it can be. */
  readonly union: readonly ObjectName[];
}

/** The fields of a signature: of the bundle's, and of a freshness statement's. */
const SIGNATURE_FIELDS = {
  algorithm: { type: { kind: "enum", values: SIGNATURE_ALGORITHMS, open: true }, required: true },
  keyId: { type: { kind: "string" }, required: true },
  value: { type: { kind: "string" }, required: true },
} as const;

/** A freshness statement's time: UTC, whole seconds or milliseconds (the load checks the date). */
const STATEMENT_TIME = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?Z$";

/**
 * A checksum, of a bundle or named by its freshness statement: `sha256:`
 * and 64 lowercase hex digits. Validation, the statement's check and the
 * JSON Schemas read it from here.
 */
export const CHECKSUM_PATTERN = "^sha256:[0-9a-f]{64}$";

/** A bundle's `generatedAt`: an ISO 8601 date, or date and time (validation also parses it). */
export const GENERATED_AT_PATTERN =
  "^\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?$";

/** The lowest `bundleVersion` (of a bundle, and of the statement that names it). */
export const MIN_BUNDLE_VERSION = 1;

const string = (description?: string, extra: { nonEmpty?: true; pattern?: string } = {}) =>
  ({
    type: { kind: "string", ...extra },
    ...(description === undefined ? {} : { description }),
  }) as const;

/**
 * Every kind of object in a bundle, by name, the document itself first.
 * The order of the fields is the order of the docs; it is also the order in
 * which `UNKNOWN_FIELD` suggestions are tried.
 */
export const BUNDLE_FORMAT = {
  bundle: {
    fields: {
      $schema: {
        type: { kind: "any" },
        description: "The URL of this document's JSON Schema, for editors (ignored by the runtime)",
        untyped: true,
      },
      schemaVersion: { type: { kind: "const", value: 1 }, required: true },
      env: { type: { kind: "enum", values: ENVS }, required: true },
      policies: { type: { kind: "array", of: "policy" }, required: true },
      orgId: { type: { kind: "string" } },
      projectId: { type: { kind: "string" } },
      generatedAt: {
        type: { kind: "string", pattern: GENERATED_AT_PATTERN },
        description: "ISO 8601",
      },
      bundleVersion: { type: { kind: "integer", minimum: MIN_BUNDLE_VERSION } },
      checksum: { type: { kind: "string", pattern: CHECKSUM_PATTERN } },
      etag: { type: { kind: "string" } },
      signature: { type: { kind: "object", of: "signature" } },
      freshness: { type: { kind: "object", of: "freshness" } },
    },
  },
  signature: { fields: SIGNATURE_FIELDS },
  // Signed data a v1 reader must understand whole: no other member (docs/bundle-format.md,
  // "Freshness statement"); validation checks it whole (freshness_statement.ts).
  freshness: {
    description:
      "A signed freshness statement for this bundle (docs/bundle-format.md, Freshness statement)",
    closed: true,
    fields: {
      type: { type: { kind: "const", value: "policy-bundle-freshness/v1" }, required: true },
      checksum: { type: { kind: "string", pattern: CHECKSUM_PATTERN }, required: true },
      bundleVersion: { type: { kind: "integer", minimum: MIN_BUNDLE_VERSION }, required: true },
      orgId: { type: { kind: "string" } },
      projectId: { type: { kind: "string" } },
      env: { type: { kind: "enum", values: ENVS, refusedAtLoad: true }, required: true },
      issuedAt: {
        type: { kind: "string", pattern: STATEMENT_TIME },
        required: true,
        description: "UTC",
      },
      expiresAt: {
        type: { kind: "string", pattern: STATEMENT_TIME },
        required: true,
        description: "UTC",
      },
      signature: { type: { kind: "object", of: "statementSignature" }, required: true },
    },
  },
  statementSignature: { closed: true, fields: SIGNATURE_FIELDS },
  policy: {
    fields: {
      policyKey: { ...string("Unique in the bundle", { nonEmpty: true }), required: true },
      activeVersion: { type: { kind: "number" }, required: true },
      rules: { type: { kind: "array", of: "rule" }, required: true },
      defaults: { type: { kind: "object", of: "defaults" } },
    },
  },
  rule: {
    fields: {
      id: { ...string("Unique within the policy", { nonEmpty: true }), required: true },
      status: {
        type: { kind: "enum", values: RULE_STATUSES },
        required: true,
        description: "Only active rules fire",
      },
      priority: {
        type: { kind: "number" },
        required: true,
        description: "Higher wins among candidates of one effect type",
      },
      target: { type: { kind: "object", of: "target" }, required: true },
      effect: { type: { kind: "object", of: "effect" }, required: true },
      when: { type: { kind: "object", of: "condition" } },
      thenEffect: { type: { kind: "object", of: "effect" } },
      elseEffect: { type: { kind: "object", of: "effect" } },
      description: { type: { kind: "string" } },
    },
  },
  target: {
    description: 'What a rule applies to: exact, case-sensitive strings ("*" is not a wildcard)',
    fields: {
      service: {
        ...string("The service, for example billing", { nonEmpty: true }),
        required: true,
      },
      resource: {
        ...string("The resource, for example invoice", { nonEmpty: true }),
        required: true,
      },
      action: { ...string("The action, for example create", { nonEmpty: true }), required: true },
    },
  },
  effect: {
    description: "A decision: type plus the descriptor the type needs",
    fields: {
      type: {
        type: { kind: "enum", values: EFFECT_TYPES },
        required: true,
        description: "kill_switch > deny > throttle > allow > custom",
      },
      killSwitch: {
        type: { kind: "object", of: "killSwitch" },
        description: "kill_switch: {service, reason?}",
      },
      throttle: {
        type: { kind: "object", of: "throttle" },
        description: "throttle: {limit, windowSeconds, key}",
      },
      value: string("custom: the value, a string (often JSON-encoded)"),
    },
    // Descriptors are checked for the type that uses them only, as the runtime does.
    variants: {
      on: "type",
      cases: [
        { when: "kill_switch", field: "killSwitch", absent: "required" },
        { when: "throttle", field: "throttle", absent: "required" },
        { when: "custom", field: "value", absent: "required" },
      ],
    },
  },
  defaults: {
    description:
      "Applied when the policy applies to a target and none of its rules fires; a kill_switch or throttle default without its descriptor is ignored",
    fields: {
      effect: { type: { kind: "enum", values: EFFECT_TYPES }, required: true },
      killSwitch: {
        type: { kind: "object", of: "killSwitch" },
        description: "Required for a kill_switch default (without it, it is ignored)",
      },
      throttle: {
        type: { kind: "object", of: "throttle" },
        description: "Required for a throttle default (without it, it is ignored)",
      },
      customEffect: string("custom: the value, a string"),
    },
    variants: {
      on: "effect",
      cases: [
        { when: "kill_switch", field: "killSwitch", absent: "ignored" },
        { when: "throttle", field: "throttle", absent: "ignored" },
        { when: "custom", field: "customEffect", absent: "required" },
      ],
    },
  },
  killSwitch: {
    fields: {
      service: {
        ...string("The service the kill switch turns off", { nonEmpty: true }),
        required: true,
      },
      reason: string("Why, for people"),
    },
  },
  throttle: {
    description: "limit requests per windowSeconds per key; the lowest rate wins among throttles",
    fields: {
      limit: { type: { kind: "number", minimum: 0 }, required: true },
      windowSeconds: { type: { kind: "number", exclusiveMinimum: 0 }, required: true },
      key: {
        ...string("What requests are counted by, for example tenant"),
        required: true,
      },
    },
  },
  // A rule's `when`: any of the kinds of condition below.
  condition: {
    description:
      'A condition (docs/bundle-format.md, "Conditions"). An unknown op, or a malformed condition of the specification\'s operators, evaluates to false: policy validate warns (CONDITION_UNKNOWN_OPERATOR, CONDITION_MALFORMED), the schema accepts it as the runtime does. A malformed contains, containsAny, containsAll, startsWith, endsWith, like, semver or rollout is refused (CONDITION_MALFORMED error)',
    union: CONDITION_KINDS,
  },
  comparison: {
    condition: true,
    fields: {
      op: {
        type: { kind: "enum", values: COMPARISON_OPERATORS },
        required: true,
        description:
          "eq, neq, gt, gte, lt, lte (path, value); in (path, values); exists (path); and, or (conditions); not (condition); contains (path, value); containsAny, containsAll (path, values); startsWith, endsWith (path, value); like (path, pattern); semver (path, cmp, value); rollout (path, salt, from, to, bucketing). ne, args and arg are legacy spellings of neq, conditions and condition",
      },
      path: {
        ...string("Dotted path into the context, a string; one leading ctx. is stripped"),
        required: true,
      },
      value: {
        type: { kind: "primitive" },
        required: true,
        description:
          "eq, neq: the JSON primitive compared with; gt, gte, lt, lte: a number, or a string that is a JSON number",
      },
    },
  },
  in: {
    condition: true,
    fields: {
      op: { type: { kind: "enum", values: ["in"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      values: {
        type: { kind: "primitives" },
        required: true,
        description: "in: the JSON primitives accepted, an array",
      },
    },
  },
  exists: {
    condition: true,
    fields: {
      op: { type: { kind: "enum", values: ["exists"] }, required: true },
      path: { type: { kind: "string" }, required: true },
    },
  },
  list: {
    condition: true,
    fields: {
      op: { type: { kind: "enum", values: ["and", "or"] }, required: true },
      conditions: {
        type: { kind: "array", of: "condition" },
        description: "and, or: the operands, a non-empty array of conditions",
      },
      args: {
        type: { kind: "array", of: "condition" },
        description: "Legacy spelling of conditions",
        legacyOf: "conditions",
      },
    },
  },
  not: {
    condition: true,
    fields: {
      op: { type: { kind: "enum", values: ["not"] }, required: true },
      condition: {
        type: { kind: "object", of: "condition" },
        description: "not: the condition inverted",
      },
      arg: {
        type: { kind: "object", of: "condition" },
        description: "Legacy spelling of condition",
        legacyOf: "condition",
      },
    },
  },
  // The operators added after the specification's (docs/bundle-format.md "Conditions"):
  // their fields are checked, a malformed one refused.
  contains: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["contains"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      value: {
        type: { kind: "primitive" },
        required: true,
        description:
          "contains: the JSON primitive the array at path must hold (compared as eq compares)",
      },
    },
  },
  containsList: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["containsAny", "containsAll"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      values: {
        type: { kind: "primitives", nonEmpty: true },
        required: true,
        description:
          "containsAny, containsAll: the JSON primitives the array at path holds one of, or all of (a non-empty array)",
      },
    },
  },
  affix: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["startsWith", "endsWith"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      value: {
        type: { kind: "string" },
        required: true,
        description: "startsWith, endsWith: the prefix or suffix, a string (UTF-16 code units)",
      },
    },
  },
  like: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["like"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      pattern: {
        type: { kind: "string", maxLength: MAX_LIKE_PATTERN, format: "like" },
        required: true,
        description:
          "like: the pattern the whole string must match: * any run of characters, \\ makes the next one literal; at most 1024 characters, not ending in a lone \\",
      },
    },
  },
  semver: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["semver"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      cmp: {
        type: { kind: "enum", values: SEMVER_COMPARISONS },
        required: true,
        description: "semver: how the version at path compares with value (SemVer precedence)",
      },
      value: {
        type: { kind: "string", format: "semver" },
        required: true,
        description: "semver: a SemVer 2.0.0 version, a leading v allowed",
      },
    },
  },
  rollout: {
    condition: true,
    checked: true,
    fields: {
      op: { type: { kind: "enum", values: ["rollout"] }, required: true },
      path: { type: { kind: "string" }, required: true },
      salt: {
        type: { kind: "string", nonEmpty: true },
        required: true,
        description:
          'rollout: hashed before the value (salt + ":" + value); the same salt buckets a user the same way',
      },
      from: {
        type: { kind: "number", minimum: 0, maximum: 100 },
        description: "rollout: the lowest bucket in the rollout (default 0); at most to",
      },
      to: {
        type: { kind: "number", minimum: 0, maximum: 100 },
        required: true,
        description: "rollout: buckets below to are in the rollout (0 to 100)",
      },
      bucketing: {
        type: { kind: "enum", values: ROLLOUT_BUCKETINGS },
        description: "rollout: fraction (default), h / 2^32 × 100; or mod100, h mod 100",
      },
    },
  },
} as const satisfies { readonly [N in ObjectName]: ObjectDefinition | UnionDefinition };

/** A kind of object that has fields (every one but the unions). */
export type FieldsObjectName = {
  [N in ObjectName]: (typeof BUNDLE_FORMAT)[N] extends { fields: unknown } ? N : never;
}[ObjectName];

/** The kinds of object that have fields, in order. */
export const OBJECTS_WITH_FIELDS = OBJECT_KINDS.filter((name): name is FieldsObjectName =>
  "fields" in BUNDLE_FORMAT[name]
);

/** The fields an object of kind `name` may have, in order. */
export function fieldNames(name: FieldsObjectName): string[] {
  return Object.keys(BUNDLE_FORMAT[name].fields);
}
