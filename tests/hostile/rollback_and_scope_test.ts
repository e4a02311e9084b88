/**
 * What signatures do not prove, pinned down as tests so that docs/security.md
 * can name them and a change of behaviour is noticed: rollback to an older
 * validly signed bundle, the unsigned delivery fields, scope on the local
 * client, and what HMAC proves.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { createLocalClient, createRemoteClient, loadBundle, signBundle } from "../../mod.ts";
import { test, writeAtomic } from "../clients/_helpers.ts";
import { FakeClock } from "../_fake_clock.ts";
import { FaultServer } from "../clients/_fault_server.ts";
import { remoteOptions, V1, V2 } from "../clients/_remote_fixtures.ts";
import { bundleOf, keys, rule, signedText, VERIFY } from "./_inputs.ts";

const ecdsaVerify = { algorithm: "ECDSA_SHA_256" as const, publicKey: keys.publicKey };

test("rollback: a watching local client refuses an older, validly signed bundle (BUNDLE_VERSION_ROLLBACK) unless allowRollback", async () => {
  const { dir, remove } = await makeTempDir("rollback-");
  const bundlePath = `${dir}/bundle.json`;
  const newer = await signedText(bundleOf([rule("new")], { bundleVersion: 7 }));
  const older = await signedText(bundleOf([rule("old")], { bundleVersion: 3 }));
  const errors: string[] = [];
  await writeAtomic(bundlePath, newer);
  // Both clients watch on one fake clock: the test runs their checks.
  const clock = new FakeClock({ wallNow: Date.now() });
  const client = await createLocalClient({
    bundlePath,
    verify: ecdsaVerify,
    watch: { intervalMs: 1 },
    onError: (error) => errors.push(error.code),
    clock,
  });
  const deliberate = await createLocalClient({
    bundlePath,
    verify: ecdsaVerify,
    watch: { intervalMs: 1 },
    allowRollback: true,
    clock,
  });
  try {
    assert.equal(client.status().bundleVersion, 7);
    await writeAtomic(bundlePath, older);
    await clock.runUntil(() => errors.length > 0, "the older bundle is refused");
    assert.deepEqual(errors, ["BUNDLE_VERSION_ROLLBACK"]);
    const status = client.status();
    assert.equal(status.bundleVersion, 7);
    assert.equal(status.rollbackRefused?.bundleVersion, 3);
    await clock.runUntil(
      () => deliberate.status().bundleVersion === 3,
      "allowRollback: in force",
    );
    // What it cannot stop: bundleVersion is outside the signature, so whoever can
    // write the file (or serve the bundle) raises it, and the old rules come back.
    const raised = JSON.parse(older);
    raised.bundleVersion = 8;
    await writeAtomic(bundlePath, JSON.stringify(raised));
    await clock.runUntil(
      () => client.status().bundleVersion === 8,
      "the relabelled old bundle is in force",
    );
    assert.equal(client.status().rollbackRefused, null);
  } finally {
    await client.close();
    await deliberate.close();
    await remove();
  }
});

test("rollback: the remote client refuses an older, validly signed bundle as a failed poll unless allowRollback", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V2, etag: '"v2"' });
  const client = await createRemoteClient(remoteOptions(server.baseUrl, {
    poll: { intervalMs: 3_600_000 },
  }));
  const deliberate = await createRemoteClient(remoteOptions(server.baseUrl, {
    poll: { intervalMs: 3_600_000 },
    allowRollback: true,
  }));
  try {
    assert.equal(client.status().bundleVersion, 2);
    server.fault = { kind: "bundle", body: V1, etag: '"v1"' };
    const result = await client.refresh();
    assert.equal(result.outcome, "failed");
    assert.equal(result.error?.code, "BUNDLE_VERSION_ROLLBACK");
    assert.equal(result.status.bundleVersion, 2);
    assert.equal(result.status.consecutiveFailures, 1);
    assert.equal(result.status.rollbackRefused?.bundleVersion, 1);
    const rolledBack = (await deliberate.refresh()).status;
    assert.equal(rolledBack.bundleVersion, 1);
    assert.equal(rolledBack.degraded, false);
  } finally {
    await client.close();
    await deliberate.close();
  }
});

Deno.test("bundleVersion, generatedAt, etag, signature.keyId and unknown top-level and policy fields are outside the signature: editing them keeps a bundle verified", async () => {
  const signed = JSON.parse(
    await signedText(bundleOf([rule()], {
      bundleVersion: 3,
      generatedAt: "2026-01-01T00:00:00Z",
      etag: '"a"',
    }, { friendlyName: "Invoices" })),
  );
  const edited = {
    ...signed,
    bundleVersion: 999_999,
    generatedAt: "2099-12-31T23:59:59Z",
    etag: '"b"',
    note: "added later",
    signature: { ...signed.signature, keyId: "a-key-id-of-my-choice" },
    policies: [{ ...signed.policies[0], friendlyName: "Something else" }],
  };
  const loaded = await loadBundle(JSON.stringify(edited), VERIFY);
  assert.equal(loaded.status.checksum, signed.checksum);
  assert.equal(loaded.status.bundleVersion, 999_999);
  // keyId is a label recorded at signing, not checked: status() reports the configured key
  // that verified (here one without a key id) and the label apart, as claimed.
  assert.deepEqual(loaded.status.signature, {
    status: "verified",
    algorithm: "ECDSA_SHA_256",
    keyId: "a-key-id-of-my-choice",
  });
});

test("scope: the local client checks no env, orgId or projectId: a bundle signed for another scope loads", async () => {
  const { dir, remove } = await makeTempDir("scope-");
  const bundlePath = `${dir}/bundle.json`;
  await writeAtomic(
    bundlePath,
    await signedText(bundleOf([rule()], { env: "dev", orgId: "other-org", projectId: "other" })),
  );
  try {
    await using client = await createLocalClient({ bundlePath, verify: ecdsaVerify });
    assert.equal(client.status().env, "dev");
  } finally {
    await remove();
  }
});

Deno.test("HMAC proves integrity only: whoever holds the verification secret signs bundles that verify", async () => {
  const secret = "7e".repeat(32);
  const forged = await signBundle(
    bundleOf([
      rule("forged", { effect: { type: "kill_switch", killSwitch: { service: "x" } } }),
    ]) as never,
    { algorithm: "HMAC_SHA256", key: secret, keyId: "anyone" },
  );
  const loaded = await loadBundle(JSON.stringify(forged), {
    verify: { algorithm: "HMAC_SHA256", publicKey: secret },
  });
  assert.equal(loaded.status.signature.status, "verified");
});
