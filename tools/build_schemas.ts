/**
 * Writes the JSON Schemas of `schemas/` (JSON Schema draft-07): one file per
 * document a user writes or reads, each self-contained (no reference to
 * another file). The objects of a bundle (and so of a draft and of a rule
 * file) are generated from the one definition of the format,
 * `src/engine/bundle_format.ts`, which the validator's field table is also
 * derived from; the CLI's own documents (suite, configuration, requests)
 * are described here.
 *
 * The schemas accept every document the runtime's checks accept, with or
 * without warnings (warnings are `policy validate`'s: an unknown condition
 * operator or a malformed condition of the specification's operators is
 * accepted, as the runtime accepts it), and refuse a malformed condition of
 * the operators added after them, as validation does.
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
  CONDITION_OPERATORS,
  EFFECT_TYPES,
  ENVS,
  SIGNATURE_ALGORITHMS,
} from "../src/public/vocabulary.ts";
import {
  BUNDLE_FORMAT,
  type FieldDefinition,
  type FieldType,
  OBJECT_KINDS,
  type ObjectDefinition,
  STRING_FORMATS,
  type UnionDefinition,
} from "../src/engine/bundle_format.ts";
import { PACKAGE_VERSION } from "../src/_internal/version.ts";
import { SCHEMA_NAMES, type SchemaName, schemaUrl } from "../src/cli/kit/schema.ts";
import { ENV_NAME, SECRET_LIKE } from "../src/cli/kit/env.ts";

export { SCHEMA_NAMES, type SchemaName, schemaUrl };

type Schema = Record<string, unknown>;

const nonEmpty = (description: string): Schema => ({ type: "string", minLength: 1, description });
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const withDescription = (schema: Schema, description: string | undefined): Schema =>
  description === undefined ? schema : { ...schema, description };

/** The schema of a value of type `type`. */
function typeSchema(type: FieldType): Schema {
  switch (type.kind) {
    case "string": {
      const pattern = type.format !== undefined
        ? STRING_FORMATS[type.format].pattern
        : type.pattern;
      return {
        type: "string",
        ...(type.nonEmpty && { minLength: 1 }),
        ...(type.maxLength !== undefined && { maxLength: type.maxLength }),
        ...(pattern !== undefined && { pattern }),
      };
    }
    case "number":
      return {
        type: "number",
        ...(type.minimum !== undefined && { minimum: type.minimum }),
        ...(type.exclusiveMinimum !== undefined && { exclusiveMinimum: type.exclusiveMinimum }),
        ...(type.maximum !== undefined && { maximum: type.maximum }),
      };
    case "integer":
      return { type: "integer", minimum: type.minimum, maximum: Number.MAX_SAFE_INTEGER };
    case "const":
      return { const: type.value };
    case "enum":
      return type.open || type.refusedAtLoad
        ? { anyOf: [{ enum: [...type.values] }, { type: "string" }] }
        : { enum: [...type.values] };
    case "object":
      return ref(type.of);
    case "array":
      return { type: "array", items: ref(type.of) };
    case "primitive":
      return { type: ["string", "number", "boolean", "null"] };
    case "primitives":
      return {
        type: "array",
        ...(type.nonEmpty && { minItems: 1 }),
        items: { type: ["string", "number", "boolean", "null"] },
      };
    case "any":
      return {};
  }
}

/**
 * The schema of a field of a condition: described, not checked (the runtime
 * accepts any condition, see {@link conditionSchema}).
 */
function lenientSchema(field: FieldDefinition): Schema {
  return withDescription({}, field.description);
}

/** The schema of a field holding conditions: the conditions it holds. */
function nestedSchema(field: FieldDefinition): Schema {
  const type = field.type;
  if (type.kind === "array") return { items: ref(type.of) };
  if (type.kind === "object") return { allOf: [ref(type.of)] };
  throw new TypeError(`a field of kind ${type.kind} holds no condition`);
}

/**
 * The conditions a kind of condition holds (`and`/`or`, `not`), checked
 * where the runtime reads them: under its own operators only, and a legacy
 * spelling only when the current one is absent (`args` without
 * `conditions`); the runtime never reads the children of another node.
 */
function childrenSchema(definition: ObjectDefinition): Schema | null {
  const fields = Object.entries(definition.fields).filter(([, f]) =>
    (f.type.kind === "array" || f.type.kind === "object") && f.type.of === "condition"
  );
  if (fields.length === 0) return null;
  const parts = fields.filter(([, f]) => f.legacyOf === undefined).map(([name, field]) => {
    const present = { properties: { [name]: nestedSchema(field) } };
    const legacy = fields.find(([, f]) => f.legacyOf === name);
    return legacy === undefined ? present : {
      if: { required: [name] },
      then: present,
      else: { properties: { [legacy[0]]: nestedSchema(legacy[1]) } },
    };
  });
  return { if: opIs(definition), then: parts.length === 1 ? parts[0]! : { allOf: parts } };
}

/** The `if` of a kind of condition: its `op` is one of the kind's operators. */
function opIs(definition: ObjectDefinition): Schema {
  const op = definition.fields.op!.type as { values: readonly string[] };
  return { required: ["op"], properties: { op: { enum: [...op.values] } } };
}

/** The schema of an object of the format. */
function objectSchema(definition: ObjectDefinition): Schema {
  const fields = Object.entries(definition.fields);
  const variants = definition.variants;
  const variantFields = new Set(variants?.cases.map((c) => c.field));
  const required = fields.filter(([name, f]) => f.required && !variantFields.has(name));
  const properties = Object.fromEntries(
    fields.map(([name, field]) => [
      name,
      // A descriptor is checked by its variant only, as the runtime does.
      variantFields.has(name)
        ? withDescription({}, field.description)
        : withDescription(typeSchema(field.type), field.description),
    ]),
  );
  const schema: Schema = {
    type: "object",
    ...(definition.description !== undefined && { description: definition.description }),
    ...(required.length > 0 && { required: required.map(([name]) => name) }),
    ...(definition.closed && { additionalProperties: false }),
    properties,
  };
  if (variants !== undefined) {
    schema.allOf = variants.cases.map(({ when, field, absent }) => {
      const on = { properties: { [variants.on]: { const: when } } };
      const then = { properties: { [field]: typeSchema(definition.fields[field]!.type) } };
      return absent === "required"
        ? { if: on, then: { required: [field], ...then } }
        : { if: { ...on, required: [field] }, then };
    });
  }
  return schema;
}

/**
 * The schema of a condition: any value, as the runtime accepts it (a
 * malformed one or an unknown operator evaluates to false, with a warning
 * from validation, so that a bundle written for a newer runtime still
 * loads); the fields of every kind are described, for editors. The kinds
 * whose fields are checked (the operators added after the specification's)
 * are checked as validation checks them: for such an `op`, its fields'
 * types (`then` of an `if` on `op`); and so are the conditions a condition
 * holds, where the runtime reads them ({@link childrenSchema}).
 */
function conditionSchema(definition: UnionDefinition): Schema {
  const properties: Record<string, Schema> = {};
  const checks: Schema[] = [];
  for (const kind of definition.union) {
    const object = BUNDLE_FORMAT[kind] as ObjectDefinition;
    for (const [name, field] of Object.entries(object.fields)) {
      if (name in properties) continue;
      properties[name] = lenientSchema(field);
    }
    const children = childrenSchema(object);
    if (children !== null) checks.push(children);
    if (object.checked) checks.push(checkedSchema(object));
  }
  properties.op = { ...properties.op, examples: CONDITION_OPERATORS.filter((op) => op !== "ne") };
  return { ...withDescription({}, definition.description), properties, allOf: checks };
}

/** A checked kind of condition: when `op` is one of its operators, its fields and their types. */
function checkedSchema(definition: ObjectDefinition): Schema {
  const fields = Object.entries(definition.fields);
  return {
    if: opIs(definition),
    then: {
      required: fields.filter(([, f]) => f.required).map(([name]) => name),
      properties: Object.fromEntries(
        fields.filter(([name]) => name !== "op").map(([name, f]) => [name, typeSchema(f.type)]),
      ),
    },
  };
}

/** The definitions of the format's objects, generated from `bundle_format.ts`. */
const DEFINITIONS: Record<string, Schema> = Object.fromEntries(
  OBJECT_KINDS.filter((name) => name !== "bundle").map((name) => {
    const definition: ObjectDefinition | UnionDefinition = BUNDLE_FORMAT[name];
    return [name, "union" in definition ? conditionSchema(definition) : objectSchema(definition)];
  }),
);

/** The definitions `schema` refers to, directly or through other definitions, in format order. */
function definitionsOf(schema: Schema): string[] {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "$ref" && typeof child === "string") {
          const name = child.slice("#/definitions/".length);
          if (!used.has(name)) {
            used.add(name);
            visit(DEFINITIONS[name]);
          }
        } else visit(child);
      }
    }
  };
  visit(schema);
  // Kinds of condition that are not their own definition are folded into `condition`.
  return OBJECT_KINDS.filter((name) => used.has(name));
}

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
const schemaProperty: Schema = withDescription({}, BUNDLE_FORMAT.bundle.fields.$schema.description);

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

/** The bundle document: its object's schema, with `$schema` and `signature` as the runtime reads them. */
function bundleSchema(): Schema {
  const { description: _, ...schema } = objectSchema(BUNDLE_FORMAT.bundle);
  return schema;
}

/** The top level of each schema. */
const TOP: Record<SchemaName, { title: string; schema: Schema }> = {
  bundle: {
    title: "Policy bundle (RuntimeBundleV1)",
    schema: bundleSchema(),
  },
  draft: {
    title: "Policy draft",
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
    schema: {
      type: "object",
      allOf: [ref("rule")],
      properties: { $schema: schemaProperty },
    },
  },
  suite: {
    title: "Simulation suite (policy simulate --suite, policy diff --suite)",
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
    const { title, schema } = TOP[name];
    const uses = definitionsOf(schema);
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
