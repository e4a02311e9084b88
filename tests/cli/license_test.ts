/**
 * The toolkit licence as build and sign see it: sources, the grace period
 * (the clock is moved, never waited for), refusals with exit code 3.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { generateKeyPair, issueLicense, TEST_LICENSE } from "../_license.ts";
import {
  assertError,
  HMAC_SECRET,
  NOW,
  type RunOptions,
  type Scratch,
  scratch,
} from "./_helpers.ts";

const DAY = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY);
/** No licence configured (the helpers set one by default). */
const UNLICENSED = { POLICY_LICENSE: "" };

async function withDraft(s: Scratch): Promise<void> {
  await s.fixture("draft.json", "policy-drafts.json");
}

function build(s: Scratch, options: RunOptions = {}) {
  return s.run(["build"], { ...options, env: { ...UNLICENSED, ...options.env } });
}

Deno.test("without a licence, build starts the 30-day grace period and warns with the days left", async () => {
  await using s = await scratch();
  await withDraft(s);
  const first = await build(s);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    /^warning: no toolkit licence: 30 days left of the 30-day grace period \(ends 2026-12-21\); get a licence with 'policy activate --key <activation key>', or set POLICY_LICENSE .* \(LICENSE_GRACE_PERIOD\)$/m,
  );
  // The first use is recorded in POLICY_HOME, atomically (no temporary file left).
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(path.join(s.home, "license-state.json"))),
    { schemaVersion: 1, graceStartedAt: NOW.toISOString(), lastWarnedAt: NOW.toISOString() },
  );
  assert.deepEqual([...Deno.readDirSync(s.home)].map((e) => e.name), ["license-state.json"]);
  // JSON documents list the warning too.
  const json = await s.json(["build"], { env: UNLICENSED, now: at(12.5) });
  assert.equal(json.code, 0);
  const warning = (json.doc.warnings as { code: string; message: string }[])
    .find((w) => w.code === "LICENSE_GRACE_PERIOD");
  assert.match(warning!.message, /18 days left/);
  assert.match((await build(s, { now: at(29.9) })).stderr, /1 day left of the 30-day/);
  // The record is not moved by later runs.
  assert.match(
    await Deno.readTextFile(path.join(s.home, "license-state.json")),
    /2026-11-21T09:30:00.000Z/,
  );
});

Deno.test("after the grace period, build and sign refuse with LICENSE_REQUIRED (exit 3) and write nothing", async () => {
  await using s = await scratch();
  await withDraft(s);
  assert.equal((await build(s)).code, 0);
  const bundle = await s.read("policy-bundle.json");
  const refused = await build(s, { now: at(30) });
  assertError(refused, 3, "LICENSE_REQUIRED");
  assert.match(
    refused.stderr,
    /'policy build' needs a toolkit licence: the 30-day grace period without one started on 2026-11-21 and ended on 2026-12-21; get a licence with 'policy activate --key <activation key>'/,
  );
  assert.equal(await s.read("policy-bundle.json"), bundle);
  const json = await s.json(["build"], { env: UNLICENSED, now: at(45) });
  assert.equal(json.code, 3);
  assert.equal((json.doc.error as { code: string }).code, "LICENSE_REQUIRED");
  const signed = await s.run(
    ["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "ci"],
    { env: { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET }, now: at(31) },
  );
  assertError(signed, 3, "LICENSE_REQUIRED");
  assert.match(signed.stderr, /'policy sign' needs a toolkit licence/);
  assert.equal(await s.read("policy-bundle.json"), bundle);
  // A licence ends the refusal at once.
  assert.equal((await s.run(["build"], { now: at(45) })).code, 0);
});

Deno.test("during the grace period sign warns too; other commands never need a licence", async () => {
  await using s = await scratch();
  await withDraft(s);
  assert.equal((await build(s)).code, 0);
  const signed = await s.run(
    ["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "ci"],
    { env: { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET }, now: at(3) },
  );
  assert.equal(signed.code, 0, signed.stderr);
  assert.match(signed.stderr, /27 days left/);
  // Long after the grace period: validate, inspect, simulate, analyze, policies, keys, working-folder.
  const later = { env: { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET }, now: at(400) };
  await s.write(
    "src/a.ts",
    "client.evaluate({ target: { service: 'a', resource: 'b', action: 'c' } });\n",
  );
  for (
    const args of [
      ["validate"],
      ["inspect", "--signature"],
      ["simulate", "--service", "billing", "--resource", "invoice", "--action", "create"],
      ["analyze", "--check", "--source", "src"],
      ["policies", "update-policy", "--policy-key", "x", "--defaults-effect", "deny"],
      ["keys", "generate", "--algorithm", "HMAC_SHA256"],
      ["working-folder"],
    ]
  ) {
    const r = await s.run(args, later);
    assert.ok(r.code === 0 || r.code === 1, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /LICENSE/, args.join(" "));
  }
});

Deno.test("the grace period counts per POLICY_HOME: a new state folder starts it again", async () => {
  await using s = await scratch();
  await withDraft(s);
  assert.equal((await build(s)).code, 0);
  assertError(await build(s, { now: at(31) }), 3, "LICENSE_REQUIRED");
  const fresh = await build(s, { now: at(31), env: { POLICY_HOME: path.join(s.root, "ci-home") } });
  assert.equal(fresh.code, 0);
  assert.match(fresh.stderr, /30 days left/);
  // An unreadable state file restarts it too (deleting it would).
  await Deno.writeTextFile(path.join(s.home, "license-state.json"), "garbage");
  assert.match((await build(s, { now: at(40) })).stderr, /30 days left/);
});

Deno.test("without POLICY_HOME and HOME the grace period cannot be recorded: it counts from now", async () => {
  await using s = await scratch();
  await withDraft(s);
  const r = await build(s, { env: { POLICY_HOME: "" } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /30 days left .*neither POLICY_HOME nor HOME is set, so the grace period cannot be recorded/,
  );
});

Deno.test("licence sources: POLICY_LICENSE (JSON or base64), then POLICY_LICENSE_FILE, then the stored licence", async () => {
  await using s = await scratch();
  await withDraft(s);
  const quiet = (r: { code: number; stderr: string }) => {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.includes("LICENSE"), false, r.stderr);
  };
  const late = at(100);
  quiet(await s.run(["build"], { now: late }));
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(TEST_LICENSE)));
  quiet(await s.run(["build"], { now: late, env: { POLICY_LICENSE: base64 } }));
  await s.write("licence.json", TEST_LICENSE);
  // POLICY_LICENSE_FILE resolves from the current folder.
  quiet(
    await s.run(["build", "-w", s.wf], {
      now: late,
      cwd: s.root,
      env: { ...UNLICENSED, POLICY_LICENSE_FILE: "wf/licence.json" },
    }),
  );
  const missing = await s.run(["build"], {
    env: { ...UNLICENSED, POLICY_LICENSE_FILE: "nope.json" },
  });
  assertError(missing, 2, "DOCUMENT_READ_ERROR");
  assert.match(missing.stderr, /hint: POLICY_LICENSE_FILE names the licence file/);
  await Deno.mkdir(s.home, { recursive: true });
  await Deno.writeTextFile(path.join(s.home, "license.json"), TEST_LICENSE);
  quiet(await s.run(["build"], { now: late, env: UNLICENSED }));
  // The first source set is used: an invalid POLICY_LICENSE is not rescued by the stored licence.
  const invalid = await s.run(["build"], { env: { POLICY_LICENSE: "{}" } });
  assertError(invalid, 3, "LICENSE_INVALID");
  assert.match(
    invalid.stderr,
    /the licence in POLICY_LICENSE is not a valid licence: schemaVersion must be 1/,
  );
});

Deno.test("an invalid, foreign or expired licence refuses build with LICENSE_INVALID / LICENSE_EXPIRED (exit 3)", async () => {
  await using s = await scratch();
  await withDraft(s);
  const tampered = JSON.stringify({ ...JSON.parse(TEST_LICENSE), licensee: "Someone Else" });
  const r1 = await s.run(["build"], { env: { POLICY_LICENSE: tampered } });
  assertError(r1, 3, "LICENSE_INVALID");
  assert.match(r1.stderr, /signature does not match/);
  const foreign = JSON.stringify(await issueLicense({}, (await generateKeyPair()).privateKey));
  assertError(await s.run(["build"], { env: { POLICY_LICENSE: foreign } }), 3, "LICENSE_INVALID");
  // Without the test key override, the built-in issuer key rejects test licences.
  assertError(
    await s.run(["build"], { env: { POLICY_LICENSE_PUBLIC_KEY: "" } }),
    3,
    "LICENSE_INVALID",
  );
  const expired = await s.run(["build"], { now: new Date("2030-01-01T00:00:00.000Z") });
  assertError(expired, 3, "LICENSE_EXPIRED");
  assert.match(expired.stderr, /expired on 2030-01-01T00:00:00.000Z; renew it/);
  assert.ok(![...Deno.readDirSync(s.wf)].some((e) => e.name === "policy-bundle.json"));
  const badKey = await s.run(["build"], { env: { POLICY_LICENSE_PUBLIC_KEY: "not a key" } });
  assertError(badKey, 2, "INVALID_KEY");
  assert.match(badKey.stderr, /POLICY_LICENSE_PUBLIC_KEY: ECDSA public key/);
});

Deno.test("a licence that expires within 14 days gives LICENSE_EXPIRING", async () => {
  await using s = await scratch();
  await withDraft(s);
  const r = await s.json(["build"], { now: new Date("2029-12-20T00:00:00.000Z") });
  assert.equal(r.code, 0);
  assert.deepEqual(
    (r.doc.warnings as { code: string }[]).filter((w) => w.code.startsWith("LICENSE")).map((w) =>
      w.code
    ),
    ["LICENSE_EXPIRING"],
  );
  assert.match(r.stderr, /expires on 2030-01-01T00:00:00.000Z \(12 days left\)/);
});

Deno.test("--verbose says where the licence comes from, never its contents", async () => {
  await using s = await scratch();
  await withDraft(s);
  const r = await s.run(["build", "--verbose"]);
  assert.match(r.stderr, /verbose: licences are checked with the key in POLICY_LICENSE_PUBLIC_KEY/);
  assert.match(
    r.stderr,
    /verbose: licence lic_test_0001 \(Acme Corp\) from POLICY_LICENSE, expires/,
  );
  assert.ok(!r.stderr.includes(JSON.parse(TEST_LICENSE).signature.value));
});

Deno.test("a usage or configuration error comes before the licence check: no grace-period warning, nothing recorded", async () => {
  await using s = await scratch();
  await withDraft(s);
  for (
    const args of [
      ["build", "--env", "qa"],
      ["build", "--hmac-secret-env", "X"],
      ["build", "--signed"],
      ["build", "--bundle-version", "0"],
      ["sign"],
    ]
  ) {
    const r = await s.run(args, { env: UNLICENSED });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /LICENSE_GRACE_PERIOD/, args.join(" "));
  }
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name), ["policy-drafts.json"]);
  await assert.rejects(Deno.stat(path.join(s.home, "license-state.json")));
});

const grace = (s: Scratch) => path.join(s.home, "license-state.json");
const status = async (s: Scratch, now = NOW) =>
  (await s.json(["activate", "--status"], { env: UNLICENSED, now })).doc.grace as {
    startedAt: string | null;
    daysLeft: number;
  };

Deno.test("the grace period starts with the first successful build or sign, never with a failed command", async () => {
  await using s = await scratch();
  // No draft: build fails (DOCUMENT_READ_ERROR); an invalid draft: DRAFT_INVALID; no bundle to sign.
  assertError(await build(s), 2, "DOCUMENT_READ_ERROR");
  await s.write("policy-drafts.json", { schemaVersion: "1.0", policies: "none" });
  assertError(await build(s, { now: at(1) }), 1, "DRAFT_INVALID");
  const sign = ["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "ci"];
  const signEnv = { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET };
  assertError(await s.run(sign, { env: signEnv, now: at(1) }), 2, "BUNDLE_READ_ERROR");
  await assert.rejects(Deno.stat(grace(s)), "nothing recorded by failed commands");
  assert.deepEqual(await status(s, at(2)), {
    days: 30,
    startedAt: null,
    endsAt: null,
    daysLeft: 30,
  });
  const text = await s.run(["activate", "--status"], { env: UNLICENSED, now: at(2) });
  assert.match(text.stdout, /grace period starts with the first successful 'policy build'/);
  // The first build that writes a bundle starts it.
  await withDraft(s);
  const built = await build(s, { now: at(2) });
  assert.equal(built.code, 0, built.stderr);
  assert.equal((await status(s, at(2))).startedAt, at(2).toISOString());
  assert.equal((await status(s, at(12))).daysLeft, 20);
});

Deno.test("the grace period also starts with a successful sign", async () => {
  await using s = await scratch();
  await withDraft(s);
  assert.equal((await s.run(["build"])).code, 0, "licensed: nothing recorded");
  await assert.rejects(Deno.stat(grace(s)));
  const signed = await s.run([
    "sign",
    "--signing-algorithm",
    "HMAC_SHA256",
    "--signing-key-id",
    "ci",
  ], {
    env: { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET },
    now: at(3),
  });
  assert.equal(signed.code, 0, signed.stderr);
  assert.match(signed.stderr, /30 days left/);
  assert.equal((await status(s, at(3))).startedAt, at(3).toISOString());
});

Deno.test("the grace-period warning is printed once a day per state folder, not on every command", async () => {
  await using s = await scratch();
  await withDraft(s);
  const hours = (h: number) => new Date(NOW.getTime() + h * 3_600_000);
  const warned = (r: { stderr: string }) => /LICENSE_GRACE_PERIOD/.test(r.stderr);
  // --unsigned: the bundle is signed in between, and these builds mean to replace it.
  const build = (s: Scratch, options: RunOptions = {}) =>
    s.run(["build", "--unsigned"], { ...options, env: { ...UNLICENSED, ...options.env } });
  assert.ok(warned(await build(s)), "the first build warns");
  const again = await s.json(["build", "--unsigned"], { env: UNLICENSED, now: hours(1) });
  assert.equal(again.code, 0, again.stderr);
  assert.ok(!warned(again), "not twice the same day");
  assert.ok(
    !(again.doc.warnings as { code: string }[]).some((w) => w.code === "LICENSE_GRACE_PERIOD"),
    "nor in the JSON document",
  );
  const sign = await s.run(
    ["sign", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "ci"],
    {
      env: { ...UNLICENSED, POLICY_HMAC_SECRET: HMAC_SECRET },
      now: hours(5),
    },
  );
  assert.equal(sign.code, 0, sign.stderr);
  assert.ok(!warned(sign), "sign shares the state folder");
  // The next (UTC) day it warns again, once.
  const nextDay = await build(s, { now: hours(15) });
  assert.ok(warned(nextDay), nextDay.stderr);
  assert.match(nextDay.stderr, /30 days left/);
  assert.ok(!warned(await build(s, { now: hours(16) })));
  // Another state folder has its own day; without one, every command warns.
  const other = { POLICY_HOME: path.join(s.root, "ci-home") };
  assert.ok(warned(await build(s, { now: hours(16), env: other })));
  assert.ok(!warned(await build(s, { now: hours(17), env: other })));
  for (const h of [18, 19]) {
    assert.ok(warned(await build(s, { now: hours(h), env: { POLICY_HOME: "" } })));
  }
  // The refusal after the grace period is never skipped.
  assertError(await build(s, { now: at(31) }), 3, "LICENSE_REQUIRED");
  assertError(await build(s, { now: at(31) }), 3, "LICENSE_REQUIRED");
});
