/**
 * The JSON Schemas of `schemas/`, checked with an independent validator
 * (ajv) against the runtime's own checks, on the fixture corpus and on
 * generated and mutated documents: what the runtime accepts, the schema
 * accepts; what the schema refuses, the runtime refuses (or warns about as a
 * malformed condition); and where the runtime refuses what the schema
 * accepts, it is one of the documented differences.
 */
import assert from "node:assert/strict";
import Ajv from "ajv";
import { parseJsoncObject } from "../../src/cli/kit/jsonc.ts";
import {
  buildSchemas,
  SCHEMA_NAMES,
  type SchemaName,
  schemaText,
  schemaUrl,
} from "../../tools/build_schemas.ts";
import { PACKAGE_VERSION } from "../../src/_internal/version.ts";
import { isDeliberateDifference, runtimeVerdict } from "./_runtime_verdict.ts";
import {
  addedLeaf,
  bundle as propertyBundle,
  conditionFrom,
  conditionLeaf,
  fc,
} from "../properties/_arbitraries.ts";
import { bundle as lintBundle } from "../lint/_arbitraries.ts";
import { draftWith, HMAC_SECRET, rule, scratch } from "../cli/_helpers.ts";
import { hostileDocuments } from "../hostile/_corpus.ts";
import { parseJson } from "../../src/engine/parse_json.ts";
import { validateBundle } from "../../src/engine/validate_bundle.ts";
import { replayHint, testSeed } from "../_random.ts";
import { LONG, noteLong } from "../_long.ts";
import {
  BUNDLE_FORMAT,
  type FieldDefinition,
  fieldNames,
  type ObjectName,
  OBJECTS_WITH_FIELDS,
} from "../../src/engine/bundle_format.ts";

/** The seeds of the generated documents and of the hostile corpus (POLICY_TEST_SEED replays). */
const SEED = testSeed(14);
const HOSTILE_SEED = testSeed(0x14c0_4b05);
noteLong(
  "tests/schemas/schemas_test.ts",
  "the agreement on the hostile corpus, and most runs of the mutation properties,",
);

const ROOT = new URL("../../", import.meta.url);
const AjvClass = Ajv as unknown as typeof Ajv.default;
// Types may be left open where the runtime leaves them open (strictTypes off);
// union types ("string" or "null") are deliberate.
const ajv = new AjvClass({ allErrors: true, strictTypes: false, allowUnionTypes: true });
const SCHEMAS = Object.fromEntries(
  SCHEMA_NAMES.map((name) => [
    name,
    JSON.parse(Deno.readTextFileSync(new URL(`schemas/${name}.schema.json`, ROOT))),
  ]),
) as Record<SchemaName, Record<string, unknown>>;
const VALIDATORS = Object.fromEntries(
  SCHEMA_NAMES.map((name) => [name, ajv.compile(SCHEMAS[name])]),
) as Record<SchemaName, ReturnType<typeof ajv.compile>>;
/** The same schemas, stopping at the first error (millions of bad rules would be millions of errors). */
const firstError = new AjvClass({ allErrors: false, strictTypes: false, allowUnionTypes: true });
const FIRST_ERROR_VALIDATORS = Object.fromEntries(
  SCHEMA_NAMES.map((name) => [name, firstError.compile(SCHEMAS[name])]),
) as typeof VALIDATORS;

/** Tallies of one corpus, to show the check is not vacuous. */
interface Tally {
  accepted: number;
  refusedByBoth: number;
  deliberate: number;
  /** Documents the runtime accepts with warnings, by warning code: the schema accepted each. */
  warned: Map<string, number>;
}

/**
 * Checks that the schema of `kind` and the runtime agree on `document`,
 * except for the documented differences; counts the outcome in `tally`.
 * A document the runtime accepts, with or without warnings, must pass the
 * schema.
 */
function checkAgreement(
  kind: SchemaName,
  document: unknown,
  label: string,
  tally: Tally,
  validators = VALIDATORS,
): "accepted" | "refused" | "deliberate" {
  const schemaAccepts = validators[kind](document) as boolean;
  const verdict = runtimeVerdict(kind, document);
  const show = () => `${label} (${kind}): ${JSON.stringify(document)?.slice(0, 400)}`;
  if (!schemaAccepts) {
    assert.ok(
      verdict.errors.length > 0,
      `the ${kind} schema refuses what the runtime accepts${
        verdict.warnings.length > 0 ? ` with warnings (${verdict.warnings.join(", ")})` : ""
      }: ${ajv.errorsText(validators[kind].errors)}\n${show()}`,
    );
    tally.refusedByBoth++;
    return "refused";
  }
  const undocumented = verdict.errors.filter((issue) => !isDeliberateDifference(issue));
  assert.deepEqual(
    undocumented,
    [],
    `the runtime refuses what the ${kind} schema accepts\n${show()}`,
  );
  if (verdict.errors.length > 0) {
    tally.deliberate++;
    return "deliberate";
  }
  tally.accepted++;
  for (const code of new Set(verdict.warnings)) {
    tally.warned.set(code, (tally.warned.get(code) ?? 0) + 1);
  }
  return "accepted";
}

function newTally(): Tally {
  return { accepted: 0, refusedByBoth: 0, deliberate: 0, warned: new Map() };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The documents inside a parsed fixture file, with the kind each is read as. */
function* documentsIn(value: unknown, label: string): Generator<[SchemaName, unknown, string]> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* documentsIn(value[i], `${label}/${i}`);
    return;
  }
  if (!isRecord(value)) return;
  if (Object.hasOwn(value, "policies")) {
    yield [typeof value.schemaVersion === "string" ? "draft" : "bundle", value, label];
    if (Array.isArray(value.policies)) {
      for (const policy of value.policies) {
        if (!isRecord(policy) || !Array.isArray(policy.rules)) continue;
        for (const rule of policy.rules) yield ["rule", rule, `${label} (a rule)`];
      }
    }
    return;
  }
  if (Object.hasOwn(value, "scenarios")) {
    yield ["suite", value, label];
    if (Array.isArray(value.scenarios)) {
      for (const s of value.scenarios) {
        if (isRecord(s)) {
          yield ["requests-line", { target: s.target, context: s.context }, `${label} (a line)`];
        }
      }
    }
    return;
  }
  if (Object.hasOwn(value, "when") && !Object.hasOwn(value, "id")) {
    // A condition fixture: as the `when` of a rule.
    yield ["rule", {
      id: "r",
      status: "active",
      priority: 1,
      target: { service: "s", resource: "r", action: "a" },
      effect: { type: "allow" },
      when: value.when,
    }, `${label} (a condition)`];
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === "document") yield ["bundle", child, `${label}/document`];
    else yield* documentsIn(child, `${label}/${key}`);
  }
}

/** Every JSON fixture file of the repository that holds documents. */
function* fixtureFiles(): Generator<string> {
  const walk = function* (dir: string): Generator<string> {
    for (const entry of Deno.readDirSync(new URL(dir, ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory && entry.name !== "node_modules") yield* walk(`${path}/`);
      else if (entry.isFile && entry.name.endsWith(".json")) yield path;
    }
  };
  yield* walk("tests/testdata/");
  yield* walk("tests/clients/testdata/");
  yield* walk("examples/");
}

Deno.test("schemas/ is what tools/build_schemas.ts writes, for this package version", () => {
  const built = buildSchemas();
  for (const name of SCHEMA_NAMES) {
    const text = Deno.readTextFileSync(new URL(`schemas/${name}.schema.json`, ROOT));
    assert.equal(text, schemaText(built[name]), `run 'deno task build:schemas': ${name} is stale`);
    assert.equal(SCHEMAS[name].$id, schemaUrl(name, PACKAGE_VERSION));
    assert.equal(SCHEMAS[name].$schema, "http://json-schema.org/draft-07/schema#");
    // Self-contained: no reference leaves the file.
    for (const [, ref] of text.matchAll(/"\$ref": "([^"]*)"/g)) assert.match(ref!, /^#\//);
  }
});

Deno.test("schemas and runtime agree on every document of the fixture corpus", () => {
  const tally = newTally();
  const kinds = new Set<SchemaName>();
  for (const file of fixtureFiles()) {
    const text = Deno.readTextFileSync(new URL(file, ROOT));
    if (file.endsWith("policy.config.json")) {
      checkAgreement("config", parseJsoncObject(text, file), file, tally);
      kinds.add("config");
      continue;
    }
    const value = JSON.parse(text);
    if (file.includes("/rules/")) {
      checkAgreement("rule", value, file, tally);
      continue;
    }
    for (const [kind, document, label] of documentsIn(value, file)) {
      checkAgreement(kind, document, label, tally);
      kinds.add(kind);
    }
  }
  // The configuration example of docs/cli.md.
  const cli = Deno.readTextFileSync(new URL("docs/cli.md", ROOT));
  const example = /```jsonc\n\/\/ policy\.config\.json\n([\s\S]*?)```/.exec(cli)![1]!;
  checkAgreement("config", parseJsoncObject(example, "docs/cli.md"), "docs/cli.md", tally);
  assert.deepEqual([...kinds].sort(), [...SCHEMA_NAMES].sort(), "every kind is in the corpus");
  // Not vacuous: valid documents are accepted, and the invalid ones of the corpus refused.
  assert.ok(tally.accepted > 100, `only ${tally.accepted} documents accepted`);
  assert.ok(tally.refusedByBoth > 20, `only ${tally.refusedByBoth} documents refused by both`);
});

/** A bundle whose one rule has `when`. */
function bundleWhen(when: unknown): Record<string, unknown> {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [{
        id: "r",
        status: "active",
        priority: 1,
        target: { service: "s", resource: "r", action: "a" },
        effect: { type: "deny" },
        when,
      }],
    }],
  };
}

/**
 * Conditions `validateBundle` accepts with a warning only (they evaluate to
 * false), by the warning they get. A newer runtime's operator must not make
 * this version's schema refuse the bundle (docs/bundle-format.md
 * "Conditions").
 */
const WARNED_CONDITIONS: [unknown, string][] = [
  [{ op: "matches", path: "email", value: ".*@acme\\.com$" }, "CONDITION_UNKNOWN_OPERATOR"],
  [
    { op: "regex", path: "plan", value: "^pro", caseSensitive: false },
    "CONDITION_UNKNOWN_OPERATOR",
  ],
  [
    { op: "and", conditions: [{ op: "eq", path: "plan", value: "pro" }, { op: "near" }] },
    "CONDITION_UNKNOWN_OPERATOR",
  ],
  [{ op: "eq", path: "plan" }, "CONDITION_MALFORMED"],
  [{ op: "eq", path: 7, value: "pro" }, "CONDITION_MALFORMED"],
  [{ op: "eq", path: "plan", value: { tier: "pro" } }, "CONDITION_MALFORMED"],
  [{ op: "gt", path: "seats", value: "many" }, "CONDITION_MALFORMED"],
  [{ op: "in", path: "plan", values: "pro" }, "CONDITION_MALFORMED"],
  [{ op: "in", path: "plan", values: [["pro"], { p: 1 }] }, "CONDITION_MALFORMED"],
  [{ op: "exists" }, "CONDITION_MALFORMED"],
  [{ op: "and", conditions: [] }, "CONDITION_MALFORMED"],
  [{ op: "or", args: "x" }, "CONDITION_MALFORMED"],
  [{ op: "not" }, "CONDITION_MALFORMED"],
  [{ op: "not", condition: [{ op: "exists", path: "plan" }] }, "CONDITION_MALFORMED"],
  [{ op: 7, path: "plan" }, "CONDITION_MALFORMED"],
  [{ path: "plan", value: "pro" }, "CONDITION_MALFORMED"],
  [{ op: "or", conditions: [5, null, "plan"] }, "CONDITION_MALFORMED"],
  ["plan == pro", "CONDITION_MALFORMED"],
  [null, "CONDITION_MALFORMED"],
  [[{ op: "exists", path: "plan" }], "CONDITION_MALFORMED"],
];

Deno.test("the schemas accept every condition validateBundle accepts with a warning (an unknown operator, a malformed condition)", () => {
  for (const [when, code] of WARNED_CONDITIONS) {
    const bundle = bundleWhen(when);
    const result = validateBundle(bundle);
    const show = JSON.stringify(when);
    assert.deepEqual(result.errors, [], show);
    assert.ok(result.warnings.some((w) => w.code === code), `${show}: warns ${code}`);
    assert.ok(
      VALIDATORS.bundle(bundle),
      `bundle, ${show}: ${ajv.errorsText(VALIDATORS.bundle.errors)}`,
    );
    const rule = (bundle.policies as { rules: unknown[] }[])[0]!.rules[0];
    assert.ok(VALIDATORS.rule(rule), `rule, ${show}: ${ajv.errorsText(VALIDATORS.rule.errors)}`);
    const draft = { schemaVersion: "1.0", policies: bundle.policies };
    assert.ok(
      VALIDATORS.draft(draft),
      `draft, ${show}: ${ajv.errorsText(VALIDATORS.draft.errors)}`,
    );
  }
});

/** Field names of the documents: added where they are not expected, they must be checked as the runtime does. */
const FIELDS = [
  "path",
  "value",
  "values",
  "conditions",
  "args",
  "condition",
  "arg",
  "op",
  "type",
  "effect",
  "killSwitch",
  "throttle",
  "customEffect",
  "when",
  "thenEffect",
  "elseEffect",
  "description",
  "defaults",
  "generatedAt",
  "orgId",
  "signature",
  "context",
  "ruleId",
  "reason",
  "source",
  "signing",
  "extra",
];

/** Values near `value`: the boundaries a check of it would test. */
function near(value: unknown): unknown[] {
  if (typeof value === "number") return [value - 1, value + 1, value + 0.5, -value, 0, 1];
  if (typeof value === "string") return ["", `${value}x`, value.toUpperCase(), Number(value)];
  return [null];
}

/**
 * A document with one place changed: a value replaced (by one near it or
 * any other), a key or entry removed, or a known field added anywhere.
 */
function mutated(document: unknown): fc.Arbitrary<unknown> {
  const places: { at: (string | number)[]; value: unknown }[] = [];
  const visit = (value: unknown, at: (string | number)[]) => {
    places.push({ at, value });
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, [...at, i]));
    else if (isRecord(value)) { for (const [k, v] of Object.entries(value)) visit(v, [...at, k]); }
  };
  visit(document, []);
  const replacement = fc.oneof(
    fc.constantFrom(
      null,
      0,
      -1,
      1.5,
      "",
      "x",
      "1e999",
      true,
      [],
      {},
      [1],
      { op: "eq" },
      { op: "zz", path: "p" },
      "2026-13-45T00:00:00Z",
      "1.0",
      1,
      "allow",
      "kill_switch",
      "throttle",
      "custom",
      { service: "" },
      { limit: -1, windowSeconds: 0, key: 1 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  return fc.constantFrom(...places).chain(({ at, value: current }) =>
    fc.tuple(
      fc.constant(at),
      fc.constantFrom("replace", "replace", "remove", "add"),
      fc.oneof(fc.constantFrom(...near(current)), replacement),
      fc.constantFrom(...FIELDS),
    )
  ).map(([at, how, value, field]) => {
    const copy = structuredClone(document);
    if (how === "add") {
      let target = copy as Record<string | number, unknown>;
      for (const segment of at) target = target[segment] as typeof target;
      if (isRecord(target)) target[field] = value;
      return copy;
    }
    if (at.length === 0) return how === "replace" ? value : copy;
    let parent = copy as Record<string | number, unknown>;
    for (const segment of at.slice(0, -1)) parent = parent[segment] as typeof parent;
    const last = at[at.length - 1]!;
    if (how === "replace") parent[last] = value;
    else if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
    return copy;
  });
}

const fixture = (file: string) => JSON.parse(Deno.readTextFileSync(new URL(file, ROOT)));

/** A valid document of each kind, to mutate. */
const VALID: Record<SchemaName, unknown> = {
  bundle: fixture("examples/bundle.json"),
  draft: fixture("tests/testdata/cli/draft.json"),
  rule: fixture("examples/service/policy/rules/export-per-tenant.rule.json"),
  suite: {
    $schema: schemaUrl("suite"),
    name: "s",
    scenarios: [{
      name: "one",
      target: { service: "s", resource: "r", action: "a" },
      context: { plan: "pro" },
      expected: { decision: "allow", ruleId: "r", reason: "rule" },
    }],
  },
  config: {
    $schema: schemaUrl("config"),
    schemaVersion: 1,
    draft: { path: "d.json" },
    bundle: { path: "b.json" },
    signature: { publicKeyPath: "k.pem" },
    limits: { maxFileBytes: 1000 },
    build: {
      env: "prod",
      outputDirectory: "out",
      signed: true,
      validateParity: true,
      bundleVersionStrategy: "increment",
      scope: { orgId: "o", projectId: "p" },
      signing: { algorithm: "ECDSA_SHA_256", keyId: "k", ecdsaPrivateKeyPath: "p.pem" },
    },
    sign: { signing: { algorithm: "HMAC_SHA256", hmacSecretEnv: "POLICY_HMAC_SECRET" } },
    analyze: { source: "src", skipDirectories: ["vendor"] },
    simulate: {},
  },
  "requests-line": {
    target: { service: "s", resource: "r", action: "a" },
    context: { plan: "pro" },
    recordedAt: "2026-01-01T00:00:00Z",
  },
};

/**
 * Conditions of the operators added after the spec's that validation
 * refuses, each with the field its `CONDITION_MALFORMED` error points at
 * (docs/bundle-format.md "Conditions"): every malformed payload the table
 * names, and more.
 */
const REFUSED_CONDITIONS: [unknown, string][] = [
  [{ op: "contains", path: "roles", value: ["admin"] }, "value"],
  [{ op: "contains", path: "roles" }, "value"],
  [{ op: "contains", path: 7, value: "admin" }, "path"],
  [{ op: "containsAny", path: "roles", values: [] }, "values"],
  [{ op: "containsAll", path: "roles", values: ["a", { b: 1 }] }, "values"],
  [{ op: "containsAny", path: "roles", values: "admin" }, "values"],
  [{ op: "startsWith", path: "email", value: 5 }, "value"],
  [{ op: "endsWith", path: "email" }, "value"],
  [{ op: "like", path: "email", pattern: "*@acme.com\\" }, "pattern"],
  [{ op: "like", path: "email", pattern: "x".repeat(1025) }, "pattern"],
  [{ op: "like", path: "email", pattern: "😀".repeat(1025) }, "pattern"],
  [{ op: "like", path: "email", pattern: null }, "pattern"],
  [{ op: "semver", path: "version", cmp: "gte", value: "1.2" }, "value"],
  [{ op: "semver", path: "version", cmp: "gte", value: "01.2.3" }, "value"],
  [{ op: "semver", path: "version", cmp: "ge", value: "1.2.3" }, "cmp"],
  [{ op: "semver", path: "version", value: "1.2.3" }, "cmp"],
  [{ op: "rollout", path: "userId", salt: "s", to: 101 }, "to"],
  [{ op: "rollout", path: "userId", salt: "s", to: -1 }, "to"],
  [{ op: "rollout", path: "userId", salt: "s" }, "to"],
  [{ op: "rollout", path: "userId", salt: "s", to: "30" }, "to"],
  [{ op: "rollout", path: "userId", salt: "s", from: 40, to: 30 }, "from"],
  [{ op: "rollout", path: "userId", salt: "s", from: -5, to: 30 }, "from"],
  [{ op: "rollout", path: "userId", to: 30 }, "salt"],
  [{ op: "rollout", path: "userId", salt: "", to: 30 }, "salt"],
  [{ op: "rollout", path: "userId", salt: "s", to: 30, bucketing: "percent" }, "bucketing"],
];

Deno.test("a malformed condition of an added operator is an error at its field, and the schemas refuse it (but from above to)", () => {
  for (const [when, field] of REFUSED_CONDITIONS) {
    const bundle = bundleWhen(when);
    const result = validateBundle(bundle);
    const show = JSON.stringify(when).slice(0, 120);
    assert.deepEqual(
      result.errors.map((e) => [e.code, e.path]),
      [["CONDITION_MALFORMED", `/policies/0/rules/0/when/${field}`]],
      show,
    );
    // Anywhere in a tree too.
    const nested = validateBundle(
      bundleWhen({ op: "not", condition: { op: "or", conditions: [when] } }),
    );
    assert.deepEqual(
      nested.errors.map((e) => e.path),
      [`/policies/0/rules/0/when/condition/conditions/0/${field}`],
      show,
    );
    const deliberate = isDeliberateDifference(result.errors[0]!);
    assert.equal(deliberate, field === "from" && (when as { from: number }).from > 0, show);
    const rule = (bundle.policies as { rules: unknown[] }[])[0]!.rules[0];
    for (const [kind, document] of [["bundle", bundle], ["rule", rule]] as const) {
      assert.equal(VALIDATORS[kind](document), deliberate, `${kind}, ${show}`);
    }
  }
});

/**
 * Conditions of every kind the runtime reads: well formed, in legacy
 * spellings (`ne`, `args`, `arg`, from the shared leaves and trees), with
 * unknown operators, and malformed, as `when` of a rule and anywhere in a
 * tree; the operators added after the spec's, well formed and refused.
 */
const anyCondition = conditionFrom(
  fc.oneof(
    conditionLeaf,
    addedLeaf,
    fc.constantFrom(...WARNED_CONDITIONS.map(([when]) => when)),
    fc.constantFrom(...REFUSED_CONDITIONS.map(([when]) => when)),
  ),
);

/** The optional top-level fields of a bundle, each present or not, in the forms the runtime accepts. */
const optionalBundleFields = fc.record({
  $schema: fc.constantFrom(schemaUrl("bundle"), "./bundle.schema.json"),
  orgId: fc.constantFrom("acme", ""),
  projectId: fc.constantFrom("storefront", ""),
  generatedAt: fc.constantFrom("2026-01-01T00:00:00Z", "2026-01-01", "2026-02-03 04:05:06.7+02:00"),
  bundleVersion: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  checksum: fc.constantFrom(`sha256:${"0".repeat(64)}`, `sha256:${"ab12".repeat(16)}`),
  etag: fc.constantFrom('"v1"', 'W/"5-abc"', ""),
  signature: fc.record({
    algorithm: fc.constantFrom("ECDSA_SHA_256", "HMAC_SHA256", "ED25519"),
    keyId: fc.constantFrom("signing-2026-01", ""),
    value: fc.constantFrom("MEUCIQ==", ""),
  }),
  // A freshness statement in every form validation accepts (whether it names the bundle and
  // verifies is the load pipeline's business, not the schema's).
  freshness: fc.record({
    type: fc.constant("policy-bundle-freshness/v1"),
    checksum: fc.constantFrom(`sha256:${"0".repeat(64)}`, `sha256:${"ab12".repeat(16)}`),
    bundleVersion: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constant(Number.MAX_SAFE_INTEGER)),
    orgId: fc.constantFrom("acme", ""),
    projectId: fc.constantFrom("storefront", ""),
    env: fc.constantFrom("prod", "staging", "other"),
    issuedAt: fc.constantFrom("2026-11-26T10:00:00Z", "2026-11-26T10:00:00.250Z"),
    expiresAt: fc.constantFrom("2026-12-03T10:00:00Z", "1970-01-01T00:00:00.000Z"),
    signature: fc.record({
      algorithm: fc.constantFrom("ECDSA_SHA_256", "HMAC_SHA256", "ED25519"),
      keyId: fc.constantFrom("k2", ""),
      value: fc.constantFrom("MEUCIQ==", ""),
    }),
  }, {
    requiredKeys: [
      "type",
      "checksum",
      "bundleVersion",
      "env",
      "issuedAt",
      "expiresAt",
      "signature",
    ],
  }),
}, { requiredKeys: [] });

/** A generated bundle with optional top-level fields and any conditions in place of its rules' `when`. */
const anyBundle = fc.tuple(
  fc.oneof(propertyBundle, lintBundle),
  optionalBundleFields,
  fc.array(fc.option(anyCondition, { nil: undefined }), { maxLength: 8 }),
).map(([bundle, fields, whens]) => {
  const copy = { ...structuredClone(bundle), ...fields } as { policies: { rules: unknown[] }[] };
  let i = 0;
  for (const policy of copy.policies) {
    policy.rules = policy.rules.map((rule) => {
      const when = whens[i++];
      return when === undefined ? rule : { ...(rule as object), when };
    });
  }
  return copy;
});

/** Every property name the schema declares, anywhere in it. */
function declaredProperties(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) { for (const item of schema) declaredProperties(item, into); }
  else if (isRecord(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties" && isRecord(value)) {
        for (const name of Object.keys(value)) into.add(name);
      }
      declaredProperties(value, into);
    }
  }
  return into;
}

/** Every key of every object in `value`. */
function keysIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) { for (const item of value) keysIn(item, into); }
  else if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      into.add(key);
      keysIn(child, into);
    }
  }
}

Deno.test(`property (seed ${SEED}): schemas and runtime agree on generated and mutated documents`, () => {
  const tallies = new Map<SchemaName, Tally>(SCHEMA_NAMES.map((n) => [n, newTally()]));
  const check = (kind: SchemaName, document: unknown) =>
    checkAgreement(kind, document, "generated", tallies.get(kind)!);
  /** The keys of the bundles both accept: every field the bundle schema declares must be among them. */
  const acceptedKeys = new Set<string>();
  // A condition of each added operator, with every optional field (generated ones are rarer).
  const added = bundleWhen({
    op: "and",
    conditions: [
      { op: "contains", path: "roles", value: "admin" },
      { op: "containsAny", path: "roles", values: ["admin", "editor"] },
      { op: "startsWith", path: "email", value: "admin@" },
      { op: "like", path: "email", pattern: "*@acme.com" },
      { op: "semver", path: "version", cmp: "gte", value: "v1.2.0-rc.1+b" },
      { op: "rollout", path: "userId", salt: "s", from: 10, to: 30, bucketing: "mod100" },
    ],
  });
  assert.equal(check("bundle", added), "accepted");
  keysIn(added, acceptedKeys);
  fc.assert(
    fc.property(anyBundle.chain((b) => fc.tuple(fc.constant(b), mutated(b))), ([b, m]) => {
      if (check("bundle", b) === "accepted") keysIn(b, acceptedKeys);
      check("bundle", m);
      const draft = { ...b, schemaVersion: "1.0", generatedAt: "2026-01-01T00:00:00Z" };
      delete (draft as Record<string, unknown>).env;
      check("draft", draft);
      check("draft", { ...(m as object), schemaVersion: "1.0" });
      for (const p of b.policies) for (const r of p.rules) check("rule", r);
    }),
    { seed: SEED, numRuns: LONG ? 300 : 60 },
  );
  const missing = [...declaredProperties(SCHEMAS.bundle)].filter((key) => !acceptedKeys.has(key));
  assert.deepEqual(
    missing,
    [],
    "every field of the bundle schema is generated in accepted bundles",
  );
  // Conditions, the most intricate part, mutated as the when of a rule.
  const rule = (when: unknown) => ({ ...(VALID.rule as object), when });
  fc.assert(
    fc.property(anyCondition.chain((c) => fc.tuple(fc.constant(c), mutated(c))), ([c, m]) => {
      check("rule", rule(c));
      check("rule", rule(m));
    }),
    { seed: SEED + 1, numRuns: LONG ? 2000 : 300 },
  );
  for (const [kind, document] of Object.entries(VALID) as [SchemaName, unknown][]) {
    check(kind, document);
    fc.assert(fc.property(mutated(document), (m) => void check(kind, m)), {
      seed: SEED + 2,
      numRuns: LONG ? 2000 : 150,
    });
  }
  for (const [kind, tally] of tallies) {
    assert.ok(tally.accepted > 0 && tally.refusedByBoth > 0, `${kind}: ${JSON.stringify(tally)}`);
  }
  // Not vacuous: the schemas accepted documents the runtime warns about.
  for (const kind of ["bundle", "draft", "rule"] as const) {
    const warned = tallies.get(kind)!.warned;
    for (const code of ["CONDITION_UNKNOWN_OPERATOR", "CONDITION_MALFORMED"]) {
      assert.ok((warned.get(code) ?? 0) > 10, `${kind}: ${code} ${warned.get(code) ?? 0} times`);
    }
  }
});

Deno.test("documents the CLI writes name their schema with $schema and validate against it", async () => {
  await using s = await scratch();
  await draftWith(s, [
    rule("paid", { when: { op: "in", path: "plan", values: ["pro", "enterprise"] } }),
    rule("cap", { effect: { type: "deny" }, when: { op: "gt", path: "seats", value: 50 } }),
  ]);
  // Written by working-folder init, then by update-policy and add-rule.
  const draft = await s.readJson("policy-drafts.json");
  assert.equal(draft.$schema, schemaUrl("draft"));
  assert.ok(VALIDATORS.draft(draft), ajv.errorsText(VALIDATORS.draft.errors));
  const built = await s.run([
    "build",
    "--signed",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "k",
  ], {
    env: { POLICY_HMAC_SECRET: HMAC_SECRET },
  });
  assert.equal(built.code, 0, built.stderr);
  const bundle = await s.readJson("policy-bundle.json");
  assert.equal(bundle.$schema, schemaUrl("bundle"));
  assert.ok(VALIDATORS.bundle(bundle), ajv.errorsText(VALIDATORS.bundle.errors));
});

// Long (deno task test:long): the corpus is large, and its documents are read by the same
// definitions as the generated ones above.
Deno.test({
  name: `schemas and runtime agree on the hostile corpus (seed ${HOSTILE_SEED})`,
  ignore: !LONG,
}, () => {
  const tally = newTally();
  for (const document of hostileDocuments(HOSTILE_SEED)) {
    let value: unknown;
    try {
      value = parseJson(document.text);
    } catch {
      continue; // not JSON (BUNDLE_PARSE_ERROR): no schema applies
    }
    checkAgreement(
      "bundle",
      value,
      `${document.name} (${replayHint(HOSTILE_SEED)})`,
      tally,
      FIRST_ERROR_VALIDATORS,
    );
  }
  assert.ok(tally.accepted > 5 && tally.refusedByBoth > 5, JSON.stringify(tally));
});

/**
 * An object of kind `name` with every field of the definition and, unless
 * the kind is closed (any other field is an error), one more (`zz`).
 */
function sample(name: ObjectName, at: string, depth: number, placed: Map<string, ObjectName>) {
  const definition = BUNDLE_FORMAT[name];
  if ("union" in definition) {
    const kinds = definition.union;
    return sample(kinds[depth % kinds.length]!, at, depth, placed);
  }
  const fields: Record<string, FieldDefinition> = definition.fields;
  const object: Record<string, unknown> = {};
  for (const [field, { type }] of Object.entries(fields)) {
    const where = `${at}/${field}`;
    switch (type.kind) {
      case "object":
        object[field] = depth > 4
          ? { op: "exists", path: "p" }
          : sample(type.of, where, depth + 1, placed);
        break;
      case "array": {
        // A list of conditions holds one of each kind.
        const of = BUNDLE_FORMAT[type.of];
        const kinds: readonly ObjectName[] = "union" in of ? of.union : [type.of];
        object[field] = depth > 4
          ? []
          : kinds.map((kind, i) => sample(kind, `${where}/${i}`, depth + 1, placed));
        break;
      }
      case "enum":
        object[field] = type.values[0];
        break;
      case "const":
        object[field] = type.value;
        break;
      case "primitives":
        object[field] = ["x"];
        break;
      case "string":
        object[field] = type.format === "semver"
          ? "1.0.0"
          : type.pattern === undefined
          ? "x"
          : type.pattern.startsWith("^sha256:")
          ? "sha256:" + "0".repeat(64)
          : "2026-01-01T00:00:00Z";
        break;
      default:
        object[field] = 1;
    }
  }
  if (!("closed" in definition)) {
    object.zz = true;
    placed.set(`${at}/zz`, name);
  }
  return object;
}

Deno.test("generated from one definition: each object's fields, in the schema and in validateBundle", () => {
  // The schema: each kind's definition declares the format's fields, and requires the required ones.
  const bundleSchema = buildSchemas().bundle as {
    properties: Record<string, unknown>;
    required: string[];
    definitions: Record<string, { properties: Record<string, unknown>; required?: string[] }>;
  };
  const union: readonly string[] = BUNDLE_FORMAT.condition.union;
  for (const name of OBJECTS_WITH_FIELDS) {
    const fields = Object.entries(BUNDLE_FORMAT[name].fields as Record<string, FieldDefinition>);
    const schema = name === "bundle"
      ? bundleSchema
      : bundleSchema.definitions[union.includes(name) ? "condition" : name]!;
    for (const [field] of fields) assert.ok(field in schema.properties, `${name}.${field}`);
    if (union.includes(name)) {
      assert.equal(schema.required, undefined, "any condition is accepted");
      continue;
    }
    assert.deepEqual(Object.keys(schema.properties), fieldNames(name), name);
    const variant = new Set(
      "variants" in BUNDLE_FORMAT[name]
        ? (BUNDLE_FORMAT[name] as { variants: { cases: { field: string }[] } }).variants.cases
          .map((c) => c.field)
        : [],
    );
    assert.deepEqual(
      schema.required ?? [],
      fields.filter(([f, d]) => d.required && !variant.has(f)).map(([f]) => f),
      name,
    );
  }
  // validateBundle: no field of the definition is unknown where it belongs; any other is.
  const placed = new Map<string, ObjectName>();
  const document = sample("bundle", "", 0, placed);
  const warned = validateBundle(document).warnings.filter((w) => w.code === "UNKNOWN_FIELD");
  const seen = new Set<ObjectName>();
  for (const warning of warned) {
    const kind = placed.get(warning.path);
    assert.ok(kind !== undefined, `a known field is reported unknown: ${warning.path}`);
    seen.add(kind);
  }
  const open = OBJECTS_WITH_FIELDS.filter((name) => !("closed" in BUNDLE_FORMAT[name]));
  assert.deepEqual([...seen].sort(), [...open].sort(), "every open kind was checked");
  // A closed kind (a freshness statement and its signature): its fields are an error-free
  // sample, and one more field is an error.
  assert.deepEqual(validateBundle(document).errors, []);
  const statement = document.freshness as Record<string, Record<string, unknown>>;
  for (const object of [statement, statement.signature!]) {
    object.zz = true;
    assert.deepEqual(
      validateBundle(document).errors.map((e) => [e.code, e.path]),
      [["INVALID_FIELD", "/freshness"]],
    );
    delete object.zz;
  }
});
