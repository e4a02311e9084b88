/**
 * The one describer of values in messages (`describeValue`) and the
 * redaction every CLI diagnostic passes through (`redactSecrets`): what
 * looks like key material is hidden, ordinary text is left alone.
 */
import assert from "node:assert/strict";
import {
  describeValue,
  looksLikeSecret,
  REDACTED,
  redactSecrets,
  SECRET_NOT_SHOWN,
} from "../../src/_internal/check_options.ts";

const HEX = "8f1e0c2b9a7d6e5f4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d5c";
const BASE64 = "q3Zl7Tn0Xc9VbH2mKp4RwYs8Ld6FgJ1aEu5Oi0NtBr7CzQxW";
const PEM = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----";

Deno.test("redactSecrets() hides hex runs, PEM text and random base64 wherever they are", () => {
  for (const secret of [HEX, HEX.toUpperCase(), HEX.slice(0, 32), BASE64, PEM]) {
    for (const text of [secret, `x${secret}`, `/work/wf/${secret}/suite.json`, `a '${secret}' b`]) {
      const redacted = redactSecrets(text);
      assert.ok(redacted.includes(REDACTED), text);
      assert.ok(!redacted.includes(secret.slice(0, 16)), text);
      assert.ok(looksLikeSecret(text), text);
    }
  }
  // A PEM block without its END line is hidden to the end of the text.
  assert.equal(redactSecrets(`key: ${PEM.slice(0, 40)}`), `key: ${REDACTED}`);
});

Deno.test("redactSecrets() leaves checksums, paths, names and short hex alone", () => {
  for (
    const text of [
      `the bundle's checksum sha256:${HEX} does not match`,
      "/home/me/projects/shop/policy-bundle.json",
      "/work/wt/cli-sec/.tmp/cli-27e0152248eba2fd/wf/policy-drafts.json",
      "MyCompanyPolicyBundleVersion2024",
      "POLICY_HMAC_SECRET_FOR_THE_STAGING_ENVIRONMENT_2026",
      "catalog.product.list",
      "release-2026-07-signing-key",
      "deadbeef0123",
      "key.pem is not a PEM public key (-----BEGIN PUBLIC KEY-----); pass --algorithm HMAC_SHA256",
    ]
  ) {
    assert.equal(redactSecrets(text), text);
    assert.equal(looksLikeSecret(text), false, text);
  }
});

Deno.test("describeValue() quotes a short prefix, and never a value that looks like a secret", () => {
  assert.equal(describeValue("qa"), '"qa"');
  const long = describeValue("z".repeat(1000));
  assert.ok(long.length <= 60 && long.startsWith('"zzz') && long.endsWith('…"'), long);
  for (const secret of [HEX, `x${HEX}`, BASE64, PEM]) {
    assert.equal(describeValue(secret), SECRET_NOT_SHOWN);
  }
  assert.equal(describeValue(12), "12");
  assert.equal(describeValue(null), "null");
  assert.equal(describeValue(["x"]), "an array");
});

Deno.test("redactSecrets() and describeValue() take runs of millions of characters in their stride", () => {
  // `{32,}` in the patterns made V8 backtrack one stack entry per character: a 7 MB value from a
  // hostile file overflowed the stack (policies import gave INTERNAL_ERROR).
  const letters = "x".repeat(7_000_000);
  const hex = "ab".repeat(3_500_000);
  assert.equal(redactSecrets(letters), letters, "not random-looking: kept");
  assert.equal(redactSecrets(`key ${hex}.`), `key ${REDACTED}.`);
  assert.equal(describeValue(letters), `"${"x".repeat(55)}…"`);
  assert.equal(describeValue(hex), SECRET_NOT_SHOWN);
  // Only the first kilobyte is looked at: key material after it is never among what is shown.
  assert.equal(describeValue(`${"plain ".repeat(10)}${HEX}`), SECRET_NOT_SHOWN);
  assert.equal(describeValue(`${"plain ".repeat(200)}${HEX}`), `"${"plain ".repeat(9)}p…"`);
});
