import assert from "node:assert/strict";
import * as path from "node:path";
import { posix } from "node:path";
import { resolveConfig } from "../../../src/cli/kit/config.ts";
import { assertError, draftWith, rule, scratch } from "../_helpers.ts";

Deno.test("resolveConfig() applies every documented default", () => {
  const config = resolveConfig("/wf", null, {}, posix);
  assert.deepEqual(config, {
    file: null,
    schemaVersion: null,
    draftPath: "/wf/policy-drafts.json",
    bundlePath: "/wf/policy-bundle.json",
    publicKeyPath: null,
    maxFileBytes: 8388608,
    build: {
      env: "prod",
      outputDirectory: "/wf",
      signed: false,
      validateParity: true,
      bundleVersionStrategy: "increment",
      orgId: null,
      projectId: null,
      signing: null,
    },
    sign: { signing: null },
    analyze: null,
    simulate: null,
    warnings: [],
  });
});

Deno.test("resolveConfig() honours every documented field and ignores unknown ones", () => {
  const config = resolveConfig("/wf", "/wf/policy.config.json", {
    schemaVersion: 1,
    unknownTopLevel: { anything: true },
    draft: { path: "d/draft.json", extra: 1 },
    bundle: { path: "out/bundle.json" },
    signature: { publicKeyPath: "keys/pub.pem" },
    limits: { maxFileBytes: 1024 },
    build: {
      env: "staging",
      outputDirectory: "dist",
      signed: true,
      validateParity: false,
      bundleVersionStrategy: "increment",
      scope: { orgId: "acme", projectId: "shop" },
      signing: { algorithm: "HMAC_SHA256", keyId: "k", hmacSecretEnv: "S", other: 1 },
    },
    sign: { signing: { algorithm: "ECDSA_SHA_256", ecdsaPrivateKeyPath: "k.pem" } },
    analyze: { source: "src" },
    simulate: { suite: "s.json" },
  }, posix);
  assert.equal(config.schemaVersion, 1);
  assert.equal(config.draftPath, "/wf/d/draft.json");
  assert.equal(config.bundlePath, "/wf/dist/bundle.json");
  assert.equal(config.publicKeyPath, "/wf/keys/pub.pem");
  assert.equal(config.maxFileBytes, 1024);
  assert.deepEqual(config.build, {
    env: "staging",
    outputDirectory: "/wf/dist",
    signed: true,
    validateParity: false,
    bundleVersionStrategy: "increment",
    orgId: "acme",
    projectId: "shop",
    signing: { algorithm: "HMAC_SHA256", keyId: "k", hmacSecretEnv: "S" },
  });
  assert.deepEqual(config.sign.signing, {
    algorithm: "ECDSA_SHA_256",
    ecdsaPrivateKeyPath: "k.pem",
  });
  assert.deepEqual(config.analyze, { source: "src" });
  assert.deepEqual(config.simulate, { suite: "s.json" });
});

Deno.test("resolveConfig() falls back to increment for another bundleVersionStrategy, with a warning", () => {
  const config = resolveConfig(
    "/wf",
    null,
    { build: { bundleVersionStrategy: "timestamp" } },
    posix,
  );
  assert.equal(config.build.bundleVersionStrategy, "increment");
  assert.equal(config.warnings[0]?.code, "CONFIG_STRATEGY_FALLBACK");
});

Deno.test("resolveConfig() rejects documented fields of the wrong type", () => {
  for (
    const raw of [
      { draft: { path: 3 } },
      { limits: { maxFileBytes: -1 } },
      { limits: { maxFileBytes: "big" } },
      { build: { env: "qa" } },
      { build: { signed: "yes" } },
      { build: { signing: "HMAC" } },
    ]
  ) {
    assert.throws(() => resolveConfig("/wf", "c.json", raw, posix), { code: "CONFIG_INVALID" });
  }
});

Deno.test("policy.config.json is read as JSONC (comments, trailing commas)", async () => {
  await using s = await scratch();
  await s.write(
    "policy.config.json",
    `// project config\n{\n  /* where */ "draft": { "path": "my-draft.json", },\n  "futureField": 1,\n}\n`,
  );
  const r = await s.json(["working-folder", "init"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.draftPath, path.join(s.wf, "my-draft.json"));
});

Deno.test("a config that is not JSONC is a configuration error (exit 2) naming line and column", async () => {
  await using s = await scratch();
  await s.write("policy.config.json", '{\n  "draft": { "path": }\n}');
  const r = await s.run(["validate"]);
  assertError(r, 2, "CONFIG_INVALID");
  assert.match(r.stderr, /policy\.config\.json:2:/);
});

Deno.test("a named --config that does not exist exits 2; a missing default config is fine", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  assertError(await s.run(["validate", "--config", "nope.json"]), 2, "CONFIG_NOT_FOUND");
  assert.equal((await s.run(["validate"])).code, 0);
});

Deno.test("a relative --config resolves from the working folder, not the current folder", async () => {
  await using s = await scratch();
  await s.write("conf/custom.json", '{"draft": {"path": "custom-draft.json"}}');
  const r = await s.json(["working-folder", "init", "-w", s.wf, "--config", "conf/custom.json"], {
    cwd: s.root,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.draftPath, path.join(s.wf, "custom-draft.json"));
});

Deno.test("limits.maxFileBytes applies to every document read", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("r1")]);
  assert.equal((await s.run(["build"])).code, 0);
  await s.write("policy.config.json", '{"limits": {"maxFileBytes": 200}}');
  // The draft is larger than 200 bytes.
  assertError(await s.run(["validate", "policy-drafts.json"]), 2, "DOCUMENT_TOO_LARGE");
  assertError(await s.run(["build"]), 2, "DOCUMENT_TOO_LARGE");
  assertError(await s.run(["inspect"]), 2, "BUNDLE_TOO_LARGE");
  assertError(
    await s.run(["simulate", "--service", "a", "--resource", "b", "--action", "c"]),
    2,
    "BUNDLE_TOO_LARGE",
  );
  await s.write("big-rule.json", rule("big", { description: "x".repeat(3000) }));
  await s.write("policy.config.json", '{"limits": {"maxFileBytes": 2000}}');
  assertError(
    await s.run([
      "policies",
      "add-rule",
      "--policy-key",
      "billing",
      "--rule-file",
      "big-rule.json",
    ]),
    2,
    "DOCUMENT_TOO_LARGE",
  );
});

Deno.test("build.outputDirectory moves the bundle for every command", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("r1")]);
  await s.write(
    "policy.config.json",
    '{"build": {"outputDirectory": "dist"}, "bundle": {"path": "b.json"}}',
  );
  const built = await s.json(["build"]);
  assert.equal(built.doc.path, path.join(s.wf, "dist", "b.json"));
  const inspected = await s.json(["inspect"]);
  assert.equal(inspected.doc.path, path.join(s.wf, "dist", "b.json"));
});

Deno.test("an unknown field inside a block of policy.config.json is a warning naming the closest field; other tools' blocks are left alone", async () => {
  await using s = await scratch();
  await s.write(
    "policy.config.json",
    '{ "build": { "sigend": true, "scope": { "orgID": "acme" } }, "toolkit": { "anything": 1 } }',
  );
  await s.run(["working-folder", "init"]);
  const r = await s.json(["validate"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /unknown field "sigend" \(did you mean "signed"\?\), which the CLI ignores/,
  );
  assert.match(r.stderr, /unknown field "orgID" \(did you mean "orgId"\?\)/);
  assert.doesNotMatch(r.stderr, /toolkit|anything/);
});
