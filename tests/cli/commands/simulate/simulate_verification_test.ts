// simulate and the bundle's signature (docs/cli.md "simulate"): with a configured key the bundle
// is verified before anything is evaluated; without one a signed bundle is evaluated, reported
// unverified with a warning saying how to configure a key, and --strict refuses it. The key is
// found as inspect finds it (--public-key from the current folder, POLICY_HMAC_SECRET last), and
// messages speak in the CLI's words.
import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, HMAC_SECRET, type Scratch, scratch } from "../../_helpers.ts";

const target = ["--service", "billing", "--resource", "invoice", "--action", "create"];

/** A working folder whose bundle is signed with an ECDSA key pair under keys/ (no key configured). */
async function signedEcdsa(): Promise<Scratch> {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const signed = await s.run([
    "sign",
    "--ecdsa-private-key",
    "keys/private-key.pem",
    "--signing-key-id",
    "release-1",
  ]);
  assert.equal(signed.code, 0, signed.stderr);
  return s;
}

/** A working folder whose bundle is signed with HMAC_SECRET (no key configured). */
async function signedHmac(): Promise<Scratch> {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"])).code, 0);
  const signed = await s.run([
    "sign",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "h",
  ], {
    env: { POLICY_HMAC_SECRET: HMAC_SECRET },
  });
  assert.equal(signed.code, 0, signed.stderr);
  return s;
}

Deno.test("simulate evaluates a signed bundle when no key is configured: unverified, with a warning that says how to configure one", async () => {
  await using s = await signedEcdsa();
  const r = await s.json([...["simulate", ...target], "--context", '{"plan":"pro"}']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.verification, {
    status: "unverified",
    algorithm: "ECDSA_SHA_256",
    keyId: "release-1",
    keySource: null,
  });
  assert.equal((r.doc.decision as { ruleId: string }).ruleId, "paid-plans");
  const warnings = r.doc.warnings as { code: string; message: string }[];
  assert.deepEqual(warnings.map((w) => w.code), ["SIGNATURE_NOT_VERIFIED"]);
  assert.match(warnings[0]!.message, /--public-key/);
  assert.match(warnings[0]!.message, /POLICY_PUBLIC_KEY_PATH/);
  assert.match(warnings[0]!.message, /signature\.publicKeyPath/);
  const text = await s.run(["simulate", ...target]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stderr, /warning: .*not verified.*\(SIGNATURE_NOT_VERIFIED\)/);
  assert.match(
    text.stdout,
    /signature: unverified \(ECDSA_SHA_256, key id release-1; no key configured\)/,
  );
  // A suite runs too.
  await s.fixture("suite.json");
  const suite = await s.json(["simulate", "--suite", "suite.json"]);
  assert.equal(suite.code, 0, suite.stderr);
  assert.equal((suite.doc.verification as { status: string }).status, "unverified");
});

Deno.test("simulate --strict turns the unverified warning into a failure that says how to configure a key", async () => {
  await using s = await signedEcdsa();
  const r = await s.json(["simulate", ...target, "--strict"]);
  assertError(r, 2, "BUNDLE_SIGNATURE_UNVERIFIED");
  assert.match(r.stderr, /hint: .*--public-key/);
});

Deno.test("simulate --public-key verifies with a key file resolved from the current folder", async () => {
  await using s = await signedEcdsa();
  const elsewhere = path.join(s.root, "elsewhere");
  await Deno.mkdir(elsewhere);
  await Deno.copyFile(path.join(s.wf, "keys/public-key.pem"), path.join(elsewhere, "release.pem"));
  const r = await s.json(["simulate", ...target, "-w", s.wf, "--public-key", "release.pem"], {
    cwd: elsewhere,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.verification, {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "release-1",
    keySource: path.join(elsewhere, "release.pem"),
  });
  assert.deepEqual(r.doc.warnings, []);
  // Another key: the signature fails, and nothing is evaluated.
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "other"]);
  const wrong = await s.json(["simulate", ...target, "--public-key", "other/public-key.pem"]);
  assertError(wrong, 2, "BUNDLE_SIGNATURE_INVALID");
  assert.equal((wrong.doc.error as { code: string }).code, "BUNDLE_SIGNATURE_INVALID");
  // --public-key names a key to verify with: it cannot be combined with --skip-verify.
  assertError(
    await s.run(["simulate", ...target, "--public-key", "keys/public-key.pem", "--skip-verify"]),
    2,
    "USAGE_ERROR",
  );
});

Deno.test("simulate verifies an HMAC bundle with POLICY_HMAC_SECRET, as inspect does", async () => {
  await using s = await signedHmac();
  const r = await s.json(["simulate", ...target], { env: { POLICY_HMAC_SECRET: HMAC_SECRET } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.doc.verification, {
    status: "verified",
    algorithm: "HMAC_SHA256",
    keyId: "h",
    keySource: "environment variable POLICY_HMAC_SECRET",
  });
  const wrong = await s.json(["simulate", ...target], {
    env: { POLICY_HMAC_SECRET: "0".repeat(64) },
  });
  assertError(wrong, 2, "BUNDLE_SIGNATURE_INVALID");
  // Without the variable: evaluated, unverified, and the warning names the variable.
  const none = await s.json(["simulate", ...target]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal((none.doc.verification as { status: string }).status, "unverified");
  assert.match((none.doc.warnings as { message: string }[])[0]!.message, /POLICY_HMAC_SECRET/);
});

Deno.test("simulate speaks the CLI's words: no library option syntax, an HMAC secret is never a publicKey", async () => {
  await using s = await signedHmac();
  const runs = [
    await s.run(["simulate", ...target]),
    await s.run(["simulate", ...target, "--strict"]),
    await s.run(["simulate", ...target], { env: { POLICY_HMAC_SECRET: "0".repeat(64) } }),
    await s.run(["simulate", ...target], { env: { POLICY_PUBLIC_KEY: "1".repeat(64) } }),
  ];
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  runs.push(await s.run(["simulate", ...target, "--public-key", "keys/public-key.pem"]));
  // A bundle signed with a key id no configured key has, under another key.
  await s.run(["build"]);
  runs.push(await s.run(["simulate", ...target, "--public-key", "keys/public-key.pem"]));
  for (const r of runs) {
    const all = r.stdout + r.stderr;
    assert.doesNotMatch(all, /verify: \{|publicKey|allowUnsigned|set verify/, all);
  }
});
