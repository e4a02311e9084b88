/**
 * Writes the JSON Schemas of `schemas/` (JSON Schema draft-07): one file per
 * document a user writes or reads, each self-contained (no reference to
 * another file), built here from shared definitions so that the rule of a
 * bundle, of a draft and of a rule file is described once.
 *
 * The schemas accept every document the runtime's checks accept, with or
 * without warnings (warnings are `policy validate`'s: an unknown condition
 * operator or a malformed condition is accepted, as the runtime accepts it).
 * Where the runtime refuses more than a JSON Schema can say, docs/schemas.md
 * lists the difference; `tests/schemas/schemas_test.ts` checks them with
 * ajv, and that these files are what this script writes.
 *
 * Run it as `deno task build:schemas` after changing a definition (or the
 * package version, which is in every `$id`).
 *
 * @module
 */
import {
  EFFECT_TYPES,
  ENVS,
  RULE_STATUSES,
  SIGNATURE_ALGORITHMS,
} from "../src/_internal/vocabulary.ts";
import { PACKAGE_VERSION } from "../src/_internal/version.ts";
import { SCHEMA_NAMES, type SchemaName, schemaUrl } from "../src/commands/_schema.ts";
import { ENV_NAME, SECRET_LIKE } from "../src/commands/_env.ts";

export { SCHEMA_NAMES, type SchemaName, schemaUrl };

type Schema = Record<string, unknown>;

const ISO_8601 =
  "^\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?$";

const nonEmpty = (description: string): Schema => ({ type: "string", minLength: 1, description });
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const when = (field: string, values: readonly string[], then: Schema): Schema => ({
  if: { properties: { [field]: values.length === 1 ? { const: values[0] } : { enum: values } } },
  then,
});

/** The operators of conditions, for editors' completion (docs/bundle-format.md "Conditions"). */
const CONDITION_OPERATORS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "exists",
  "and",
  "or",
  "not",
];

/** Shared definitions; each schema copies those it uses. */
const DEFINITIONS: Record<string, Schema> = {
  target: {
    type: "object",
    description: 'What a rule applies to: exact, case-sensitive strings ("*" is not a wildcard)',
    required: ["service", "resource", "action"],
    properties: {
      service: nonEmpty("The service, for example billing"),
      resource: nonEmpty("The resource, for example invoice"),
      action: nonEmpty("The action, for example create"),
    },
  },
  killSwitch: {
    type: "object",
    required: ["service"],
    properties: {
      service: nonEmpty("The service the kill switch turns off"),
      reason: { type: "string", description: "Why, for people" },
    },
  },
  throttle: {
    type: "object",
    description: "limit requests per windowSeconds per key; the lowest rate wins among throttles",
    required: ["limit", "windowSeconds", "key"],
    properties: {
      limit: { type: "number", minimum: 0 },
      windowSeconds: { type: "number", exclusiveMinimum: 0 },
      key: { type: "string", description: "What requests are counted by, for example tenant" },
    },
  },
  effect: {
    type: "object",
    description: "A decision: type plus the descriptor the type needs",
    required: ["type"],
    properties: {
      type: { enum: EFFECT_TYPES, description: "kill_switch > deny > throttle > allow > custom" },
      killSwitch: { description: "kill_switch: {service, reason?}" },
      throttle: { description: "throttle: {limit, windowSeconds, key}" },
      value: { description: "custom: the value, a string (often JSON-encoded)" },
    },
    // Descriptors are checked for the type that uses them only, as the runtime does.
    allOf: [
      when("type", ["kill_switch"], {
        required: ["killSwitch"],
        properties: { killSwitch: ref("killSwitch") },
      }),
      when("type", ["throttle"], {
        required: ["throttle"],
        properties: { throttle: ref("throttle") },
      }),
      when("type", ["custom"], { required: ["value"], properties: { value: { type: "string" } } }),
    ],
  },
  defaults: {
    type: "object",
    description:
      "Applied when the policy applies to a target and none of its rules fires; a kill_switch or throttle default without its descriptor is ignored",
    required: ["effect"],
    properties: {
      effect: { enum: EFFECT_TYPES },
      killSwitch: { description: "Required for a kill_switch default (without it, it is ignored)" },
      throttle: { description: "Required for a throttle default (without it, it is ignored)" },
      customEffect: { description: "custom: the value, a string" },
    },
    allOf: [
      {
        if: { properties: { effect: { const: "kill_switch" } }, required: ["killSwitch"] },
        then: { properties: { killSwitch: ref("killSwitch") } },
      },
      {
        if: { properties: { effect: { const: "throttle" } }, required: ["throttle"] },
        then: { properties: { throttle: ref("throttle") } },
      },
      when("effect", ["custom"], {
        required: ["customEffect"],
        properties: { customEffect: { type: "string" } },
      }),
    ],
  },
  // Any value is a condition to the runtime: a malformed one or an unknown operator evaluates
  // to false, with a warning from validation (docs/bundle-format.md "Conditions"), so that a
  // bundle written for a newer runtime still loads. The schema accepts them all, as the runtime
  // does, and only describes the known operators and their fields, for editors.
  condition: {
    description:
      'A condition (docs/bundle-format.md, "Conditions"). An unknown op or a malformed condition evaluates to false: policy validate warns (CONDITION_UNKNOWN_OPERATOR, CONDITION_MALFORMED), the schema accepts it as the runtime does',
    properties: {
      op: {
        description:
          "eq, neq, gt, gte, lt, lte (path, value); in (path, values); exists (path); and, or (conditions); not (condition). ne, args and arg are legacy spellings of neq, conditions and condition",
        examples: CONDITION_OPERATORS,
      },
      path: {
        description: "Dotted path into the context, a string; one leading ctx. is stripped",
      },
      value: {
        description:
          "eq, neq: the JSON primitive compared with; gt, gte, lt, lte: a number, or a string that is a JSON number",
      },
      values: { description: "in: the JSON primitives accepted, an array" },
      conditions: {
        description: "and, or: the operands, a non-empty array of conditions",
        items: ref("condition"),
      },
      args: { description: "Legacy spelling of conditions", items: ref("condition") },
      condition: { allOf: [ref("condition")], description: "not: the condition inverted" },
      arg: { allOf: [ref("condition")], description: "Legacy spelling of condition" },
    },
  },
  rule: {
    type: "object",
    required: ["id", "status", "priority", "target", "effect"],
    properties: {
      id: nonEmpty("Unique within the policy"),
      status: { enum: [...RULE_STATUSES], description: "Only active rules fire" },
      priority: { type: "number", description: "Higher wins among candidates of one effect type" },
      target: ref("target"),
      effect: ref("effect"),
      when: ref("condition"),
      thenEffect: ref("effect"),
      elseEffect: ref("effect"),
      description: { type: "string" },
    },
  },
  policy: {
    type: "object",
    required: ["policyKey", "activeVersion", "rules"],
    properties: {
      policyKey: nonEmpty("Unique in the bundle"),
      activeVersion: { type: "number" },
      defaults: ref("defaults"),
      rules: { type: "array", items: ref("rule") },
    },
  },
};

/** The target of a request (any strings, as `evaluate` takes them). */
const requestTarget: Schema = {
  type: "object",
  required: ["service", "resource", "action"],
  properties: {
    service: { type: "string" },
    resource: { type: "string" },
    action: { type: "string" },
  },
};

const requestContext: Schema = { type: "object", description: "The request context (default {})" };

// No type: every reader accepts and ignores whatever $schema holds.
const schemaProperty: Schema = {
  description: "The URL of this document's JSON Schema, for editors (ignored by the runtime)",
};

/** A freshness statement's time: UTC, whole seconds or milliseconds (statementTime checks the date). */
const STATEMENT_TIME = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?Z$";

const nullableString = (description: string): Schema => ({
  type: ["string", "null"],
  minLength: 1,
  description,
});

const signing: Schema = {
  type: ["object", "null"],
  properties: {
    algorithm: {
      anyOf: [{ enum: [...SIGNATURE_ALGORITHMS] }, { type: "null" }, {
        type: "string",
        minLength: 1,
      }],
    },
    keyId: nullableString("The key id written into signatures"),
    hmacSecretEnv: {
      ...nullableString("The NAME of the variable holding the HMAC secret, never the secret"),
      pattern: ENV_NAME.source,
      // A long run of hex digits is a secret pasted where its name belongs.
      not: { type: "string", pattern: SECRET_LIKE.source },
    },
    ecdsaPrivateKeyPath: nullableString("PKCS#8 or SEC1 PEM, from the working folder"),
    expiresIn: {
      ...nullableString("Also sign a freshness statement lasting this long: 90s, 15m, 12h, 7d"),
      pattern: "^[1-9][0-9]{0,9}[smhd]$",
    },
  },
};

/** The top level of each schema. */
const TOP: Record<SchemaName, { title: string; uses: string[]; schema: Schema }> = {
  bundle: {
    title: "Policy bundle (RuntimeBundleV1)",
    uses: ["policy", "rule", "target", "effect", "killSwitch", "throttle", "defaults", "condition"],
    schema: {
      type: "object",
      required: ["schemaVersion", "env", "policies"],
      properties: {
        $schema: schemaProperty,
        schemaVersion: { const: 1 },
        env: { enum: ENVS },
        orgId: { type: "string" },
        projectId: { type: "string" },
        generatedAt: { type: "string", pattern: ISO_8601, description: "ISO 8601" },
        bundleVersion: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        checksum: { type: "string", pattern: "^sha256:[0-9a-f]{64}$" },
        etag: { type: "string" },
        signature: {
          type: "object",
          required: ["algorithm", "keyId", "value"],
          properties: {
            algorithm: {
              anyOf: [{ enum: [...SIGNATURE_ALGORITHMS] }, { type: "string" }],
            },
            keyId: { type: "string" },
            value: { type: "string" },
          },
        },
        freshness: {
          type: "object",
          description:
            "A signed freshness statement for this bundle (docs/bundle-format.md, Freshness statement)",
          required: [
            "type",
            "checksum",
            "bundleVersion",
            "env",
            "issuedAt",
            "expiresAt",
            "signature",
          ],
          additionalProperties: false,
          properties: {
            type: { const: "policy-bundle-freshness/v1" },
            checksum: { type: "string", pattern: "^sha256:[0-9a-f]{64}$" },
            bundleVersion: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
            orgId: { type: "string" },
            projectId: { type: "string" },
            env: { type: "string" },
            issuedAt: { type: "string", pattern: STATEMENT_TIME, description: "UTC" },
            expiresAt: { type: "string", pattern: STATEMENT_TIME, description: "UTC" },
            signature: {
              type: "object",
              required: ["algorithm", "keyId", "value"],
              additionalProperties: false,
              properties: {
                algorithm: {
                  anyOf: [{ enum: [...SIGNATURE_ALGORITHMS] }, { type: "string" }],
                },
                keyId: { type: "string" },
                value: { type: "string" },
              },
            },
          },
        },
        policies: { type: "array", items: ref("policy") },
      },
    },
  },
  draft: {
    title: "Policy draft",
    uses: ["policy", "rule", "target", "effect", "killSwitch", "throttle", "defaults", "condition"],
    schema: {
      type: "object",
      required: ["schemaVersion", "policies"],
      properties: {
        $schema: schemaProperty,
        schemaVersion: { const: "1.0" },
        generatedAt: { type: "string", description: "ISO 8601" },
        policies: {
          type: "array",
          items: {
            type: "object",
            allOf: [ref("policy")],
            properties: {
              friendlyName: {
                type: "string",
                description: "A name for people (not built into the bundle)",
              },
              discoveredTarget: {
                allOf: [ref("target")],
                description:
                  "The target policy analyze found in the code (not built into the bundle)",
              },
            },
          },
        },
      },
    },
  },
  rule: {
    title: "Policy rule (policy policies add-rule --rule-file)",
    uses: ["rule", "target", "effect", "killSwitch", "throttle", "condition"],
    schema: {
      type: "object",
      allOf: [ref("rule")],
      properties: { $schema: schemaProperty },
    },
  },
  suite: {
    title: "Simulation suite (policy simulate --suite, policy diff --suite)",
    uses: [],
    schema: {
      type: "object",
      required: ["name", "scenarios"],
      properties: {
        $schema: schemaProperty,
        name: nonEmpty("The suite's name"),
        scenarios: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "target", "expected"],
            properties: {
              name: nonEmpty("The scenario's name"),
              target: requestTarget,
              context: requestContext,
              expected: {
                type: "object",
                required: ["decision"],
                properties: {
                  decision: { enum: EFFECT_TYPES },
                  ruleId: { type: "string" },
                  reason: { enum: ["rule", "default"] },
                },
              },
            },
          },
        },
      },
    },
  },
  config: {
    title: "Project configuration (policy.config.json, JSON with comments)",
    uses: [],
    schema: {
      type: "object",
      properties: {
        $schema: schemaProperty,
        schemaVersion: { type: ["number", "null"] },
        draft: { properties: { path: nullableString("Default policy-drafts.json") } },
        bundle: { properties: { path: nullableString("Default policy-bundle.json") } },
        signature: {
          properties: { publicKeyPath: nullableString("SPKI PEM, from the working folder") },
        },
        limits: {
          properties: {
            maxFileBytes: {
              type: ["integer", "null"],
              minimum: 1,
              maximum: Number.MAX_SAFE_INTEGER,
              description: "Largest document read (default 8388608)",
            },
          },
        },
        build: {
          properties: {
            env: { enum: [...ENVS, null] },
            outputDirectory: nullableString("Where build writes the bundle"),
            signed: { type: ["boolean", "null"] },
            validateParity: { type: ["boolean", "null"] },
            bundleVersionStrategy: {
              anyOf: [{ const: "increment" }, { type: "null" }, { type: "string", minLength: 1 }],
            },
            scope: {
              properties: {
                orgId: nullableString("orgId of built bundles"),
                projectId: nullableString("projectId of built bundles"),
              },
            },
            signing,
          },
        },
        sign: { properties: { signing } },
        analyze: {
          type: ["object", "null"],
          properties: {
            source: nullableString("The folder or file analyze scans"),
            skipDirectories: {
              type: ["array", "null"],
              items: { type: "string", minLength: 1 },
            },
          },
        },
        simulate: { type: ["object", "null"] },
      },
    },
  },
  "requests-line": {
    title: "One line of a requests file (policy diff --requests, JSON Lines)",
    uses: [],
    schema: {
      type: "object",
      required: ["target"],
      properties: {
        target: requestTarget,
        context: requestContext,
      },
    },
  },
};

/** Every schema, by name, for the package version given. */
export function buildSchemas(version = PACKAGE_VERSION): Record<SchemaName, Schema> {
  const out = {} as Record<SchemaName, Schema>;
  for (const name of SCHEMA_NAMES) {
    const { title, uses, schema } = TOP[name];
    out[name] = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: schemaUrl(name, version),
      title,
      ...schema,
      ...(uses.length === 0
        ? {}
        : { definitions: Object.fromEntries(uses.map((d) => [d, DEFINITIONS[d]])) }),
    };
  }
  return out;
}

/** The text of a schema file. */
export function schemaText(schema: Schema): string {
  return JSON.stringify(schema, null, 2) + "\n";
}

if (import.meta.main) {
  const dir = new URL("../schemas/", import.meta.url);
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, schema] of Object.entries(buildSchemas())) {
    await Deno.writeTextFile(new URL(`${name}.schema.json`, dir), schemaText(schema));
  }
  console.log(`schemas/: ${SCHEMA_NAMES.map((n) => `${n}.schema.json`).join(", ")}`);
}
