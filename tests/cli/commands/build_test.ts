import assert from "node:assert/strict";
import * as path from "node:path";
import { computeDigest } from "../../../src/engine/canonical_payload.ts";
import type { RuntimeBundleV1 } from "../../../src/engine/types.ts";
import { verifyBundleSignature } from "../../../src/verify/mod.ts";
import { generateSec1Key } from "../../_openssl.ts";
import { assertError, assertShape, HMAC_SECRET, NOW, scratch } from "../_helpers.ts";
import { schemaUrl } from "../../../src/cli/kit/schema.ts";

export const BUILD_SHAPE = {
  formatVersion: "number",
  path: "string",
  schemaVersion: "number",
  env: "string",
  orgId: "string|null",
  projectId: "string|null",
  bundleVersion: "number",
  generatedAt: "string",
  checksum: "string",
  etag: "string",
  policyCount: "number",
  ruleCount: "number",
  signed: "boolean",
  signature: "object|null",
  freshness: "object|null",
  parity: "string",
  warnings: "array",
};

Deno.test("build writes the bundle from the draft with generatedAt, bundleVersion 1 and the checksum", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.json(["build"]);
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, BUILD_SHAPE);
  const bundle = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  const { checksum, etag } = await computeDigest(bundle);
  assert.deepEqual(Object.keys(bundle), [
    "$schema",
    "schemaVersion",
    "env",
    "generatedAt",
    "bundleVersion",
    "checksum",
    "policies",
  ]);
  assert.deepEqual(
    [bundle.schemaVersion, bundle.env, bundle.generatedAt, bundle.bundleVersion, bundle.checksum],
    [1, "prod", NOW.toISOString(), 1, checksum],
  );
  // For editors (docs/schemas.md); not part of the canonical payload.
  assert.equal((bundle as { $schema?: string }).$schema, schemaUrl("bundle"));
  assert.deepEqual(Object.keys(bundle.policies[0]!), [
    "policyKey",
    "activeVersion",
    "rules",
    "defaults",
  ]);
  // Rules are written in canonical key order: such a bundle loads on the faster path.
  const rule = bundle.policies[0]!.rules[0]!;
  assert.deepEqual(Object.keys(rule), Object.keys(rule).sort());
  assert.deepEqual(Object.keys(rule.target), ["action", "resource", "service"]);
  assert.deepEqual(
    [
      r.doc.path,
      r.doc.checksum,
      r.doc.etag,
      r.doc.bundleVersion,
      r.doc.signed,
      r.doc.signature,
      r.doc.parity,
    ],
    [path.join(s.wf, "policy-bundle.json"), checksum, etag, 1, false, null, "passed"],
  );
  assert.deepEqual([r.doc.policyCount, r.doc.ruleCount], [2, 5]);
  // No temporary file is left beside the bundle.
  const names = [...Deno.readDirSync(s.wf)].map((e) => e.name).sort();
  assert.deepEqual(names, ["policy-bundle.json", "policy-drafts.json"]);
});

Deno.test("build increments bundleVersion from the bundle already at the output path", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  for (const expected of [1, 2, 3]) {
    const r = await s.json(["build"]);
    assert.equal(r.doc.bundleVersion, expected);
  }
  const bundle = await s.readJson("policy-bundle.json");
  bundle.bundleVersion = 41;
  await s.write("policy-bundle.json", bundle);
  assert.equal((await s.json(["build"])).doc.bundleVersion, 42);
});

Deno.test("build prints path, schema, env, bundle version, checksum, ETag and signature in text", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.run(["build", "--org-id", "acme", "--project-id", "shop"]);
  assert.equal(r.code, 0);
  for (
    const pattern of [
      /wrote .*policy-bundle\.json/,
      /schema: +1/,
      /env: +prod/,
      /bundle version: +1/,
      /checksum: +sha256:[0-9a-f]{64}/,
      /ETag: +"[0-9a-f]{64}"/,
      /signature: +unsigned/,
    ]
  ) {
    assert.match(r.stdout, pattern);
  }
  assert.equal(r.stderr, "");
});

Deno.test("build warns once, naming what is unset, when orgId or projectId is unset", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.json(["build"]);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), ["SCOPE_UNSET"]);
  assert.match(
    r.stderr,
    /warning: orgId and projectId are not set; .* \(pass --org-id and --project-id or set build\.scope\.orgId and build\.scope\.projectId\) \(SCOPE_UNSET\)/,
  );
  assert.equal(r.stderr.match(/SCOPE_UNSET/g)?.length, 1, r.stderr);
  const one = await s.json(["build", "--org-id", "acme"]);
  assert.deepEqual((one.doc.warnings as { message: string }[]).map((w) => w.message), [
    "projectId is not set; a remote client accepts only a bundle whose orgId, projectId and env are its own, so a bundle served over HTTP needs it, and one read by the local client does not (pass --project-id or set build.scope.projectId)",
  ]);
  const none = await s.json(["build", "--org-id", "acme", "--project-id", "shop"]);
  assert.deepEqual(none.doc.warnings, []);
});

Deno.test("build takes env and scope from flags over build.env and build.scope", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("policy.config.json", {
    build: { env: "staging", scope: { orgId: "cfg-org", projectId: "cfg-project" } },
  });
  let r = await s.json(["build"]);
  assert.deepEqual([r.doc.env, r.doc.orgId, r.doc.projectId, r.doc.warnings], [
    "staging",
    "cfg-org",
    "cfg-project",
    [],
  ]);
  r = await s.json(["build", "--env", "dev", "--org-id", "o", "--project-id", "p"]);
  assert.deepEqual([r.doc.env, r.doc.orgId, r.doc.projectId], ["dev", "o", "p"]);
  const bundle = await s.readJson("policy-bundle.json");
  assert.deepEqual([bundle.env, bundle.orgId, bundle.projectId], ["dev", "o", "p"]);
  assertError(await s.run(["build", "--env", "qa"]), 2, "USAGE_ERROR");
});

Deno.test("build refuses an invalid draft (exit 1) and does not write a bundle", async () => {
  await using s = await scratch();
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    policies: [{ policyKey: "p", activeVersion: 1, rules: [{ id: "r" }] }],
  });
  const r = await s.json(["build"]);
  assertError(r, 1, "DRAFT_INVALID");
  assert.match(r.stderr, /policy validate/);
  await assert.rejects(Deno.stat(path.join(s.wf, "policy-bundle.json")));
});

Deno.test("build --strict refuses a draft with warnings", async () => {
  await using s = await scratch();
  await s.write("policy-drafts.json", {
    schemaVersion: "1.0",
    policies: [{ policyKey: "p", activeVersion: 1, defaults: { effect: "deny" }, rules: [] }],
  });
  assert.equal((await s.run(["build"])).code, 0);
  assertError(await s.run(["build", "--strict"]), 1, "DRAFT_INVALID");
});

Deno.test("build without a draft exits 2 and says how to create one", async () => {
  await using s = await scratch();
  const r = await s.run(["build"]);
  assertError(r, 2, "DOCUMENT_READ_ERROR");
  assert.match(r.stderr, /working-folder init/);
});

Deno.test("build --signed with an ECDSA key file writes a signature that verifies with the public key", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal(
    (await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"])).code,
    0,
  );
  const r = await s.json([
    "build",
    "--signed",
    "--ecdsa-private-key",
    "keys/private-key.pem",
    "--signing-key-id",
    "release-1",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "release-1" });
  const bundle = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  assert.deepEqual(Object.keys(bundle).slice(-2), ["signature", "policies"]);
  const publicKey = await s.read("keys/public-key.pem");
  assert.deepEqual(
    await verifyBundleSignature(bundle, {
      verify: { algorithm: "ECDSA_SHA_256", publicKey, keyId: "release-1" },
    }),
    { status: "verified", algorithm: "ECDSA_SHA_256", keyId: "release-1" },
  );
});

Deno.test("build signs with HMAC from POLICY_HMAC_SECRET, a named variable, or --hmac-secret with a warning", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const verify = async () => {
    const bundle = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
    return await verifyBundleSignature(bundle, {
      verify: { algorithm: "HMAC_SHA256", publicKey: HMAC_SECRET },
    });
  };
  const base = [
    "build",
    "--signed",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "ci",
  ];
  let r = await s.json(base, { env: { POLICY_HMAC_SECRET: HMAC_SECRET } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await verify()).status, "verified");
  r = await s.json([...base, "--hmac-secret-env", "MY_SECRET"], {
    env: { MY_SECRET: HMAC_SECRET },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await verify(), {
    status: "verified",
    algorithm: "HMAC_SHA256",
    keyId: "ci",
  });
  r = await s.json([...base, "--hmac-secret", HMAC_SECRET]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /HMAC_SECRET_ON_COMMAND_LINE/);
  assert.ok(
    (r.doc.warnings as { code: string }[]).some((w) => w.code === "HMAC_SECRET_ON_COMMAND_LINE"),
  );
  assert.equal((await verify()).status, "verified");
});

Deno.test("build.signed and build.signing in the config sign without flags", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("policy.config.json", {
    build: {
      signed: true,
      signing: { algorithm: "HMAC_SHA256", keyId: "cfg", hmacSecretEnv: "CFG_SECRET" },
    },
  });
  const r = await s.json(["build"], { env: { CFG_SECRET: HMAC_SECRET } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.signature, { algorithm: "HMAC_SHA256", keyId: "cfg" });
  // A flag overrides the block's key id.
  const flagged = await s.json(["build", "--signing-key-id", "flag"], {
    env: { CFG_SECRET: HMAC_SECRET },
  });
  assert.deepEqual(flagged.doc.signature, { algorithm: "HMAC_SHA256", keyId: "flag" });
});

Deno.test("build refuses incomplete or contradictory signing settings", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET };
  assertError(await s.run(["build", "--signing-key-id", "k"], { env }), 2, "USAGE_ERROR");
  assertError(await s.run(["build", "--signed"], { env }), 2, "USAGE_ERROR");
  assertError(
    await s.run(["build", "--signed", "--signing-algorithm", "HMAC_SHA256"], { env }),
    2,
    "USAGE_ERROR",
  );
  assertError(
    await s.run([
      "build",
      "--signed",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "k",
    ]),
    2,
    "SIGNING_KEY_MISSING",
  );
  assertError(
    await s.run([
      "build",
      "--signed",
      "--signing-algorithm",
      "ECDSA_SHA_256",
      "--signing-key-id",
      "k",
    ]),
    2,
    "SIGNING_KEY_MISSING",
  );
  assertError(
    await s.run([
      "build",
      "--signed",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "k",
    ], {
      env: { POLICY_HMAC_SECRET: "abc" },
    }),
    2,
    "INVALID_KEY",
  );
  const ed = await s.run(
    ["build", "--signed", "--signing-algorithm", "Ed25519", "--signing-key-id", "k"],
    { env },
  );
  assertError(ed, 2, "USAGE_ERROR");
  assert.match(ed.stderr, /Ed25519 is no longer supported/);
  await s.write("policy.config.json", { build: { signing: { algorithm: "Ed25519" } } });
  const removed = await s.run(["build", "--signed", "--signing-key-id", "k"], { env });
  assertError(removed, 2, "CONFIG_INVALID");
  assert.match(removed.stderr, /Ed25519 is no longer supported/);
  await assert.rejects(Deno.stat(path.join(s.wf, "policy-bundle.json")));
});

Deno.test("build with build.validateParity false skips the parity check", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("policy.config.json", { build: { validateParity: false } });
  assert.equal((await s.json(["build"])).doc.parity, "skipped");
});

Deno.test("build signs with a SEC1 key and checks the signature with the configured public key", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("sec1.pem", await generateSec1Key());
  const args = ["build", "--signed", "--ecdsa-private-key", "sec1.pem", "--signing-key-id", "k"];
  const unchecked = await s.json(args);
  assert.equal(unchecked.code, 0, unchecked.stderr);
  assert.match(unchecked.stderr, /PARITY_SIGNATURE_SKIPPED/);
  // A configured public key that does not belong to the private key fails the parity check.
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "other"]);
  await s.write("policy.config.json", { signature: { publicKeyPath: "other/public-key.pem" } });
  assertError(await s.run(args), 1, "PARITY_FAILED");
});

/** A draft of `rules` rules whose compact JSON is about `rules` * 270 bytes. */
function bigDraft(rules: number): Record<string, unknown> {
  return {
    schemaVersion: "1.0",
    generatedAt: NOW.toISOString(),
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: Array.from({ length: rules }, (_, i) => ({
        id: `rule-${i}`,
        status: "active",
        priority: i % 7,
        target: { service: "billing", resource: "invoice", action: `a${i}` },
        when: { op: "and", conditions: [{ op: "eq", path: "ctx.plan", value: `p${i}` }] },
        effect: { type: "allow" },
        elseEffect: { type: "deny" },
      })),
    }],
  };
}

Deno.test("build refuses a bundle over limits.maxFileBytes (BUNDLE_TOO_LARGE) and writes nothing", async () => {
  await using s = await scratch();
  const draft = JSON.stringify(bigDraft(200)); // compact: about 54 KB
  await s.write("policy-drafts.json", draft);
  const limit = draft.length + 1_000; // the draft fits; a bundle three times its size would not
  await s.write("policy.config.json", { limits: { maxFileBytes: limit } });
  const built = await s.json(["build"]);
  assert.equal(built.code, 0, built.stderr);
  assert.ok((await Deno.stat(path.join(s.wf, "policy-bundle.json"))).size <= limit);
  // What a client would refuse is refused before anything is written: here the draft fits
  // and the bundle, with its checksum and metadata, does not.
  const before = await s.read("policy-bundle.json");
  const grown = JSON.stringify(bigDraft(210));
  await s.write("policy-drafts.json", grown);
  await s.write("policy.config.json", { limits: { maxFileBytes: grown.length + 10 } });
  assert.equal((await s.run(["validate", "--strict"])).code, 0, "the draft itself is fine");
  const refused = await s.run(["build"]);
  assertError(refused, 2, "BUNDLE_TOO_LARGE");
  assert.match(refused.stderr, /nothing was written/);
  assert.equal(await s.read("policy-bundle.json"), before);
  // And so does a build whose parity check is off: the size check is the write path's.
  await s.write("policy.config.json", {
    limits: { maxFileBytes: grown.length + 10 },
    build: { validateParity: false },
  });
  assertError(await s.run(["build"]), 2, "BUNDLE_TOO_LARGE");
  assert.equal(await s.read("policy-bundle.json"), before);
});

Deno.test("build is not stuck behind a previous bundle it cannot read: it warns and says where the count starts", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  for (
    const [previous, why] of [
      ["{ truncated", /not valid JSON/],
      ["x".repeat(9_000), /over limits\.maxFileBytes|bytes or more/],
    ] as const
  ) {
    await s.write("policy.config.json", { limits: { maxFileBytes: 8_000 } });
    await s.write("policy-bundle.json", previous);
    const built = await s.json(["build"]);
    assert.equal(built.code, 0, built.stderr);
    assert.equal(built.doc.bundleVersion, 1);
    assert.match(built.stderr, /PREVIOUS_BUNDLE_UNREADABLE/);
    assert.match(built.stderr, why);
    assert.match(built.stderr, /starts the count again at 1 \(pass --bundle-version/);
    const again = await s.json(["build"]);
    assert.equal(again.doc.bundleVersion, 2, "and the next build goes on from the new bundle");
  }
  const chosen = await s.json(["build", "--bundle-version", "41"]);
  assert.equal(chosen.doc.bundleVersion, 41);
  assertError(await s.run(["build", "--bundle-version", "2.5"]), 2, "USAGE_ERROR");
});

Deno.test("build continues a bundleVersion written as a string or a fraction, and says so", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  for (
    const [version, next] of [["7", 8], [2.5, 3], [0, 1], [{ v: 1 }, 1]] as const
  ) {
    await s.write("policy-bundle.json", {
      schemaVersion: 1,
      env: "prod",
      policies: [],
      bundleVersion: version,
    });
    const built = await s.json(["build"]);
    assert.equal(built.code, 0, built.stderr);
    assert.equal(built.doc.bundleVersion, next, JSON.stringify(version));
    assert.match(built.stderr, /PREVIOUS_BUNDLE_VERSION_INVALID/);
    assert.match(built.stderr, new RegExp(`this build writes ${next}`));
  }
});

Deno.test("build writes the bundle as compact JSON", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  const text = await s.read("policy-bundle.json");
  assert.equal(text, JSON.stringify(JSON.parse(text)) + "\n");
});

Deno.test("build after the highest bundleVersion (2^53 - 1) says so and names --bundle-version; nothing is written", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const top = await s.json(["build", "--bundle-version", String(Number.MAX_SAFE_INTEGER)]);
  assert.equal(top.code, 0, top.stderr);
  assert.equal(top.doc.bundleVersion, 9007199254740991);
  const before = await s.read("policy-bundle.json");
  const next = await s.run(["build"]);
  assertError(next, 2, "BUNDLE_VERSION_EXHAUSTED");
  assert.match(next.stderr, /has bundleVersion 9007199254740991, the highest a bundle can have/);
  assert.match(next.stderr, /--bundle-version <n>/);
  assert.match(next.stderr, /allowRollback/);
  assert.equal(await s.read("policy-bundle.json"), before, "nothing was written");
  // A version given on purpose (lower: clients refuse it as a rollback unless told otherwise).
  const chosen = await s.json(["build", "--bundle-version", "5"]);
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.equal(chosen.doc.bundleVersion, 5);
  assertError(
    await s.run(["build", "--bundle-version", String(Number.MAX_SAFE_INTEGER + 1)]),
    2,
    "USAGE_ERROR",
  );
});

Deno.test("build does not replace a signed bundle with an unsigned one unless --unsigned says so", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET };
  const signed = [
    "build",
    "--signed",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "ci",
  ];
  assert.equal((await s.run(signed, { env })).code, 0);
  const before = await s.read("policy-bundle.json");
  for (const args of [["build"], ["build", "--bundle-version", "7"]]) {
    for (const json of [false, true]) {
      const r = await s.run([...args, ...(json ? ["--format", "json"] : [])], { env });
      assertError(r, 2, "SIGNATURE_DOWNGRADE");
      assert.match(r.stderr, /is signed \(HMAC_SHA256, key id "ci"\)/);
      assert.match(r.stderr, /hint: .*--signed.*--unsigned/);
      if (json) assert.equal(JSON.parse(r.stdout).error.code, "SIGNATURE_DOWNGRADE");
    }
  }
  assert.equal(await s.read("policy-bundle.json"), before, "nothing was written");
  // Signed again: fine. --unsigned: the downgrade is what was asked for.
  assert.equal((await s.run(signed, { env })).code, 0);
  const unsigned = await s.json(["build", "--unsigned"]);
  assert.equal(unsigned.code, 0, unsigned.stderr);
  assert.equal(unsigned.doc.signed, false);
  assert.equal((await s.readJson("policy-bundle.json")).signature, undefined);
  // Over an unsigned bundle, a plain build needs nothing.
  assert.equal((await s.run(["build"])).code, 0);
  // --unsigned wins over build.signed; it cannot be combined with --signed or signing flags.
  await s.write("policy.config.json", {
    build: { signed: true, signing: { algorithm: "HMAC_SHA256", keyId: "ci" } },
  });
  assert.equal((await s.run(["build"], { env })).code, 0);
  const overConfig = await s.json(["build", "--unsigned"], { env });
  assert.equal(overConfig.code, 0, overConfig.stderr);
  assert.equal(overConfig.doc.signed, false);
  assertError(await s.run(["build", "--signed", "--unsigned"], { env }), 2, "USAGE_ERROR");
  assertError(
    await s.run(["build", "--unsigned", "--signing-key-id", "k"], { env }),
    2,
    "USAGE_ERROR",
  );
});

Deno.test("SCOPE_UNSET speaks of the remote client's scope, and --quiet silences it", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const loud = await s.run(["build"]);
  assert.equal(loud.code, 0, loud.stderr);
  assert.match(loud.stderr, /a remote client accepts only a bundle whose orgId, projectId and env/);
  assert.doesNotMatch(loud.stderr, /cloud|control plane/);
  const quiet = await s.run(["build", "--quiet"]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, "");
  // The JSON document still lists it, --quiet or not.
  const json = await s.json(["build", "--quiet"]);
  assert.deepEqual((json.doc.warnings as { code: string }[]).map((w) => w.code), ["SCOPE_UNSET"]);
  assert.equal(json.stderr, "");
});
