// The CLI's freshness statements (docs/cli.md "Freshness statements"):
// build --signed --expires-in and build.signing.expiresIn write one with the
// signing key; sign --expires-in re-issues it without a build or a new
// bundleVersion; inspect --signature reports its status and the time left;
// validate and simulate warn on an expired one; durations are strict.
import assert from "node:assert/strict";
import type { RuntimeBundleV1 } from "../../src/engine/types.ts";
import { loadBundle } from "../../src/verify/mod.ts";
import { parseDuration } from "../../src/cli/kit/duration.ts";
import { assertError, assertShape, HMAC_SECRET, NOW, scratch } from "./_helpers.ts";

const STATEMENT_SHAPE = {
  bundleVersion: "number",
  issuedAt: "string",
  expiresAt: "string",
  algorithm: "string",
  keyId: "string",
};
const DAY = 86_400_000;
const HMAC_ENV = { POLICY_HMAC_SECRET: HMAC_SECRET };
const HMAC_FLAGS = ["--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "ci"];
const at = (ms: number) => ({ now: new Date(NOW.getTime() + ms) });

async function builtWithStatement(expiresIn = "7d") {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.json(["build", ...HMAC_FLAGS, "--expires-in", expiresIn], { env: HMAC_ENV });
  assert.equal(r.code, 0, r.stderr);
  return { s, doc: r.doc };
}

Deno.test("durations: 90s, 15m, 12h, 7d; nothing else, and from 1s to 366d", () => {
  assert.equal(parseDuration("90s"), 90_000);
  assert.equal(parseDuration("15m"), 900_000);
  assert.equal(parseDuration("12h"), 43_200_000);
  assert.equal(parseDuration("7d"), 7 * DAY);
  assert.equal(parseDuration("366d"), 366 * DAY);
  for (
    const bad of [
      "",
      "7",
      "d",
      "0s",
      "07d",
      "1.5h",
      "-1h",
      "+1h",
      "1h30m",
      "1 h",
      " 1h",
      "1H",
      "P7D",
      "367d",
      "9999999999d",
      "1w",
    ]
  ) {
    assert.equal(typeof parseDuration(bad), "string", JSON.stringify(bad));
  }
});

Deno.test("build --signed --expires-in writes a statement signed with the same key; the JSON describes it", async () => {
  const { s, doc } = await builtWithStatement();
  await using _ = s;
  assertShape(doc.freshness, STATEMENT_SHAPE, "freshness");
  assert.deepEqual(doc.freshness, {
    bundleVersion: 1,
    issuedAt: "2026-11-21T09:30:00Z",
    expiresAt: "2026-11-28T09:30:00Z",
    algorithm: "HMAC_SHA256",
    keyId: "ci",
  });
  const bundle = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  assert.equal(bundle.freshness?.checksum, bundle.checksum);
  // A client with requireFreshness loads it (the CLI's own parity check did the same).
  const loaded = await loadBundle(JSON.stringify(bundle), {
    verify: { algorithm: "HMAC_SHA256", publicKey: HMAC_SECRET },
    requireFreshness: true,
    clock: { wallNow: () => NOW.getTime() + 6 * DAY },
  });
  assert.equal(loaded.status.freshness?.expiresAt, "2026-11-28T09:30:00Z");
  // Without --expires-in: no statement, freshness null.
  const plain = await s.json(["build", ...HMAC_FLAGS], { env: HMAC_ENV });
  assert.equal(plain.doc.freshness, null);
  assert.equal("freshness" in await s.readJson("policy-bundle.json"), false);
});

Deno.test("build.signing.expiresIn in the config writes the statement; a bad value is CONFIG_INVALID, a bad flag USAGE_ERROR", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.write("policy.config.json", {
    build: { signed: true, signing: { algorithm: "HMAC_SHA256", keyId: "ci", expiresIn: "12h" } },
  });
  const r = await s.json(["build"], { env: HMAC_ENV });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((r.doc.freshness as { expiresAt: string }).expiresAt, "2026-11-21T21:30:00Z");
  const flag = await s.json(["build", "--expires-in", "1h30m"], { env: HMAC_ENV });
  assertError(flag, 2, "USAGE_ERROR");
  assert.match(flag.stderr, /--expires-in "1h30m" must be a whole number and one unit/);
  await s.write("policy.config.json", {
    build: { signed: true, signing: { algorithm: "HMAC_SHA256", keyId: "ci", expiresIn: "400d" } },
  });
  assertError(await s.json(["build"], { env: HMAC_ENV }), 2, "CONFIG_INVALID");
});

Deno.test("--expires-in needs --signed", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const r = await s.json(["build", "--expires-in", "7d"]);
  assertError(r, 2, "USAGE_ERROR");
  assert.match(r.stderr, /--expires-in needs --signed/);
});

Deno.test("sign --expires-in re-issues the statement: same checksum and bundleVersion, a later expiresAt, no build", async () => {
  const { s } = await builtWithStatement("1h");
  await using _ = s;
  const before = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  const later = at(50 * 60_000);
  const r = await s.json([
    "sign",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "ci",
    "--expires-in",
    "1h",
  ], {
    env: HMAC_ENV,
    ...later,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.freshnessIssued, true);
  assert.deepEqual(r.doc.freshness, {
    bundleVersion: 1,
    issuedAt: "2026-11-21T10:20:00Z",
    expiresAt: "2026-11-21T11:20:00Z",
    algorithm: "HMAC_SHA256",
    keyId: "ci",
  });
  const after = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  assert.equal(after.checksum, before.checksum);
  assert.equal(after.bundleVersion, before.bundleVersion);
  assert.equal(after.generatedAt, before.generatedAt);
  // Without --expires-in, the statement there is kept (it still names the same bundle).
  const kept = await s.json([
    "sign",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "ci",
  ], {
    env: HMAC_ENV,
    ...later,
  });
  assert.equal(kept.code, 0, kept.stderr);
  assert.equal(kept.doc.freshnessIssued, false);
  assert.equal((kept.doc.freshness as { expiresAt: string }).expiresAt, "2026-11-21T11:20:00Z");
});

Deno.test("inspect --signature reports the statement: valid with the time left, expired (exit 1), invalid", async () => {
  const { s } = await builtWithStatement("1h");
  await using _ = s;
  const inspect = (ms: number) =>
    s.json(["inspect", "--signature", "--algorithm", "HMAC_SHA256"], { env: HMAC_ENV, ...at(ms) });
  const valid = await inspect(30 * 60_000);
  assert.equal(valid.code, 0, valid.stderr);
  assertShape(valid.doc.freshness, STATEMENT_SHAPE, "freshness");
  const verification = valid.doc.verification as Record<string, unknown>;
  assert.equal(verification.status, "valid");
  assert.deepEqual(verification.freshness, {
    status: "valid",
    expiresAt: "2026-11-21T10:30:00Z",
    expiresInSeconds: 1800,
  });
  const text = await s.run(["inspect", "--signature", "--algorithm", "HMAC_SHA256"], {
    env: HMAC_ENV,
    ...at(30 * 60_000),
  });
  assert.match(text.stdout, /freshness: valid, expires 2026-11-21T10:30:00Z \(in 30m\)/);
  // Past expiresAt and the default clock skew: what a client refuses.
  const expired = await inspect(2 * 3_600_000);
  assert.equal(expired.code, 1);
  const failed = expired.doc.verification as Record<string, unknown>;
  assert.equal(failed.status, "invalid");
  assert.equal(failed.code, "BUNDLE_EXPIRED");
  assert.deepEqual(failed.freshness, {
    status: "expired",
    expiresAt: "2026-11-21T10:30:00Z",
    expiresInSeconds: -3600,
  });
  assert.match(expired.stderr, /FRESHNESS_EXPIRED/);
  // A relabelled bundle: the statement does not match.
  const bundle = await s.readJson("policy-bundle.json");
  await s.write("policy-bundle.json", JSON.stringify({ ...bundle, bundleVersion: 9 }));
  const relabelled = await inspect(0);
  assert.equal(relabelled.code, 1);
  assert.equal((relabelled.doc.verification as { code: string }).code, "BUNDLE_FRESHNESS_INVALID");
  assert.equal(
    (relabelled.doc.verification as { freshness: { status: string } }).freshness.status,
    "invalid",
  );
});

Deno.test("validate (in its document) and simulate warn on an expired statement; a current one is silent", async () => {
  const { s } = await builtWithStatement("1h");
  await using _ = s;
  const codes = (doc: Record<string, unknown>) =>
    (doc.warnings as { code: string }[]).map((w) => w.code);
  const current = await s.json(["validate", "policy-bundle.json"], at(10 * 60_000));
  assert.equal(current.code, 0, current.stderr);
  assert.equal(codes(current.doc).includes("FRESHNESS_EXPIRED"), false);
  const later = at(3 * 3_600_000);
  const validated = await s.json(["validate", "policy-bundle.json"], later);
  assert.equal(validated.code, 0, validated.stderr);
  assert.deepEqual(codes(validated.doc), ["FRESHNESS_EXPIRED", ...codes(current.doc)]);
  const warning = (validated.doc.warnings as { code: string; path: string; message: string }[])[0]!;
  assert.equal(warning.path, "/freshness/expiresAt");
  assert.match(warning.message, /expired at 2026-11-21T10:30:00Z \(2h ago\)/);
  // simulate, with the key a client has: it evaluates, and warns.
  const simulated = await s.json(
    [
      "simulate",
      "--service",
      "billing",
      "--resource",
      "invoice",
      "--action",
      "create",
      "--algorithm",
      "HMAC_SHA256",
    ],
    { env: { ...HMAC_ENV, POLICY_PUBLIC_KEY: HMAC_SECRET }, ...later },
  );
  assert.equal(simulated.code, 0, simulated.stderr);
  assert.match(simulated.stderr, /warning: .*FRESHNESS_EXPIRED|FRESHNESS_EXPIRED/);
  assert.ok(
    (simulated.doc.warnings as { code: string }[]).some((w) => w.code === "FRESHNESS_EXPIRED"),
  );
});
