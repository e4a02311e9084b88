/**
 * `policy activate` against a local activation server on 127.0.0.1, with a
 * test issuer key (POLICY_LICENSE_PUBLIC_KEY) and POLICY_HOME in .tmp/.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import {
  activationServer,
  generateKeyPair,
  issueLicense,
  json,
  TEST_LICENSE,
} from "../../_license.ts";
import { assertError, assertShape, NOW, scratch } from "../_helpers.ts";

const KEY = "ACT-7F3K-99QX-SECRET";
/** No licence in the environment (the helpers set one by default). */
const UNLICENSED = { POLICY_LICENSE: "" };

export const ACTIVATE_SHAPE = {
  formatVersion: "number",
  action: "string",
  status: "string",
  source: "string|null",
  path: "string|null",
  replaced: "boolean",
  license: "object|null",
  grace: "object|null",
  warnings: "array",
};
const LICENSE_SHAPE = {
  licenseId: "string",
  licensee: "string",
  issuedAt: "string",
  expiresAt: "string",
  features: "array",
  keyId: "string",
  daysLeft: "number",
};
const GRACE_SHAPE = {
  days: "number",
  startedAt: "string|null",
  endsAt: "string|null",
  daysLeft: "number",
};

Deno.test("activate --key obtains the licence, verifies it and stores it in POLICY_HOME", async () => {
  await using s = await scratch();
  const license = await issueLicense();
  await using server = activationServer(() => json(license));
  const r = await s.json(["activate", "--key", KEY], {
    env: { ...UNLICENSED, POLICY_API_URL: server.url },
  });
  assert.equal(r.code, 0, r.stderr);
  assertShape(r.doc, ACTIVATE_SHAPE);
  assertShape(r.doc.license, LICENSE_SHAPE, "license");
  const stored = path.join(s.home, "license.json");
  assert.deepEqual(
    [r.doc.action, r.doc.status, r.doc.source, r.doc.path, r.doc.replaced, r.doc.grace],
    ["activate", "licensed", "stored", stored, false, null],
  );
  assert.deepEqual(r.doc.license, {
    licenseId: "lic_test_0001",
    licensee: "Acme Corp",
    issuedAt: "2026-01-01T00:00:00.000Z",
    expiresAt: "2030-01-01T00:00:00.000Z",
    features: ["toolkit"],
    keyId: "test-issuer",
    daysLeft: 1137,
  });
  // The protocol: one POST with the key in a JSON body.
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0]!.path, "/v1/licenses/activate");
  assert.deepEqual(JSON.parse(server.requests[0]!.body), { activationKey: KEY });
  // Stored as received (0600), no temporary file left.
  assert.deepEqual(JSON.parse(await Deno.readTextFile(stored)), license);
  if (Deno.build.os !== "windows") assert.equal((await Deno.stat(stored)).mode! & 0o777, 0o600);
  assert.deepEqual([...Deno.readDirSync(s.home)].map((e) => e.name), ["license.json"]);
  // build now uses it, even long after a grace period would have ended.
  await s.fixture("draft.json", "policy-drafts.json");
  const built = await s.run(["build"], {
    env: UNLICENSED,
    now: new Date(NOW.getTime() + 400 * 86_400_000),
  });
  assert.equal(built.code, 0, built.stderr);
  assert.doesNotMatch(built.stderr, /LICENSE/);
  // The key appears in no output, --verbose included.
  assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY));
  const verbose = await s.run(["activate", "--key", KEY, "--verbose"], {
    env: { ...UNLICENSED, POLICY_API_URL: server.url },
  });
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /verbose: activation endpoint: http:\/\/127\.0\.0\.1/);
  assert.ok(!verbose.stdout.includes(KEY) && !verbose.stderr.includes(KEY));
});

Deno.test("activate prints the licence in text, and replaces an earlier stored licence", async () => {
  await using s = await scratch();
  await using server = activationServer(async () => json(await issueLicense()));
  const env = { ...UNLICENSED, POLICY_API_URL: server.url };
  const first = await s.run(["activate", "--key", KEY], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^licence lic_test_0001 for Acme Corp activated$/m);
  assert.match(first.stdout, /expires: +2030-01-01T00:00:00.000Z \(1137 days left\)/);
  assert.match(first.stdout, /stored: +.*license\.json$/m);
  const again = await s.json(["activate", "--key", KEY], { env });
  assert.equal(again.doc.replaced, true);
});

Deno.test("activate: a refused key is ACTIVATION_REFUSED (exit 3), with the server's message and never the key", async () => {
  await using s = await scratch();
  await using server = activationServer(() =>
    json({ error: { code: "KEY_UNKNOWN", message: `unknown activation key ${KEY}` } }, 403)
  );
  for (const format of [[], ["--format", "json"]]) {
    const r = await s.run(["activate", "--key", KEY, ...format], {
      env: { POLICY_API_URL: server.url },
    });
    assertError(r, 3, "ACTIVATION_REFUSED");
    assert.match(
      r.stderr,
      /refused the activation key \(HTTP 403: unknown activation key <activation key>, KEY_UNKNOWN\)/,
    );
    assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), "the key is never printed");
  }
  assert.ok(![...safeReadDir(s.home)].includes("license.json"));
});

Deno.test("activate: an endpoint that cannot be reached is ACTIVATION_UNAVAILABLE (exit 2)", async () => {
  await using s = await scratch();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const r = await s.run(["activate", "--key", KEY], {
    env: { POLICY_API_URL: `http://127.0.0.1:${port}` },
  });
  assertError(r, 2, "ACTIVATION_UNAVAILABLE");
  assert.match(r.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+/);
  await using busy = activationServer(() => new Response("maintenance", { status: 503 }));
  assertError(
    await s.run(["activate", "--key", KEY], { env: { POLICY_API_URL: busy.url } }),
    2,
    "ACTIVATION_UNAVAILABLE",
  );
  assertError(
    await s.run(["activate", "--key", KEY], { env: { POLICY_API_URL: "ftp://example.com" } }),
    2,
    "INVALID_OPTIONS",
  );
});

Deno.test("activate refuses, and does not store, a licence that is forged, expired or not for the toolkit", async () => {
  await using s = await scratch();
  const other = await generateKeyPair();
  const answers = [
    [await issueLicense({}, other.privateKey), "LICENSE_INVALID"],
    [await issueLicense({ expiresAt: "2026-11-01T00:00:00.000Z" }), "LICENSE_EXPIRED"],
    [await issueLicense({ features: ["support"] }), "LICENSE_INVALID"],
    [{ hello: "world" }, "LICENSE_INVALID"],
  ] as const;
  for (const [answer, code] of answers) {
    await using server = activationServer(() => json(answer));
    const r = await s.run(["activate", "--key", KEY], { env: { POLICY_API_URL: server.url } });
    assertError(r, 3, code);
    assert.match(r.stderr, /the licence from the activation endpoint http:\/\/127\.0\.0\.1/);
  }
  assert.ok(![...safeReadDir(s.home)].includes("license.json"));
});

Deno.test("activate --license-file installs a licence document without network", async () => {
  await using s = await scratch();
  await s.write("given/licence.json", TEST_LICENSE);
  const r = await s.json(["activate", "--license-file", "wf/given/licence.json"], {
    cwd: s.root,
    env: UNLICENSED,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([r.doc.action, r.doc.status, r.doc.path], [
    "install",
    "licensed",
    path.join(s.home, "license.json"),
  ]);
  assertError(
    await s.run(["activate", "--license-file", "missing.json"]),
    2,
    "DOCUMENT_READ_ERROR",
  );
  await s.write("bad.json", JSON.stringify({ ...JSON.parse(TEST_LICENSE), licenseId: "x" }));
  assertError(await s.run(["activate", "--license-file", "bad.json"]), 3, "LICENSE_INVALID");
});

Deno.test("activate warns when POLICY_LICENSE takes precedence over the stored licence", async () => {
  await using s = await scratch();
  await s.write("licence.json", TEST_LICENSE);
  const r = await s.json(["activate", "--license-file", "licence.json"]);
  assert.equal(r.code, 0);
  assert.deepEqual((r.doc.warnings as { code: string }[]).map((w) => w.code), [
    "LICENSE_OVERRIDDEN",
  ]);
  assert.match(r.stderr, /POLICY_LICENSE is set and takes precedence over the licence stored in/);
});

Deno.test("activate needs one of --key, --license-file, --status, and a home folder to store in", async () => {
  await using s = await scratch();
  assertError(await s.run(["activate"]), 2, "USAGE_ERROR");
  assertError(await s.run(["activate", "--key", KEY, "--status"]), 2, "USAGE_ERROR");
  assertError(await s.run(["activate", "--key", ""]), 2, "USAGE_ERROR");
  await s.write("licence.json", TEST_LICENSE);
  const r = await s.run(["activate", "--license-file", "licence.json"], {
    env: { POLICY_HOME: "" },
  });
  assertError(r, 2, "CONFIG_INVALID");
  assert.match(r.stderr, /neither POLICY_HOME nor HOME is set/);
  // The working folder does not matter to activate.
  const elsewhere = await s.run(["activate", "--status", "-w", path.join(s.root, "missing")]);
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
});

Deno.test("activate --status reports the licence or the grace period and changes nothing", async () => {
  await using s = await scratch();
  const licensed = await s.json(["activate", "--status"]);
  assert.equal(licensed.code, 0);
  assertShape(licensed.doc, ACTIVATE_SHAPE);
  assert.deepEqual(
    [licensed.doc.status, licensed.doc.source, licensed.doc.path, licensed.doc.grace],
    ["licensed", "POLICY_LICENSE", null, null],
  );
  assert.match(
    (await s.run(["activate", "--status"])).stdout,
    /^licensed: lic_test_0001 for Acme Corp \(from POLICY_LICENSE\)$/m,
  );

  const notStarted = await s.json(["activate", "--status"], { env: UNLICENSED });
  assert.equal(notStarted.code, 0);
  assertShape(notStarted.doc.grace, GRACE_SHAPE, "grace");
  assert.deepEqual([notStarted.doc.status, notStarted.doc.license, notStarted.doc.grace], [
    "grace",
    null,
    { days: 30, startedAt: null, endsAt: null, daysLeft: 30 },
  ]);
  assert.deepEqual([...safeReadDir(s.home)], [], "status records nothing");

  await s.fixture("draft.json", "policy-drafts.json");
  assert.equal((await s.run(["build"], { env: UNLICENSED })).code, 0);
  const during = await s.json(["activate", "--status"], {
    env: UNLICENSED,
    now: new Date(NOW.getTime() + 10 * 86_400_000),
  });
  assert.deepEqual([during.doc.status, during.doc.grace], ["grace", {
    days: 30,
    startedAt: NOW.toISOString(),
    endsAt: "2026-12-21T09:30:00.000Z",
    daysLeft: 20,
  }]);
  const over = await s.run(["activate", "--status"], {
    env: UNLICENSED,
    now: new Date(NOW.getTime() + 30 * 86_400_000),
  });
  assert.equal(over.code, 3);
  assert.match(
    over.stdout,
    /the grace period ended 2026-12-21T09:30:00.000Z: build and sign are refused/,
  );
  assert.match(over.stdout, /policy activate --key <activation key>/);
  // An invalid licence in force is reported as the error build would give.
  assertError(
    await s.run(["activate", "--status"], { env: { POLICY_LICENSE: "{}" } }),
    3,
    "LICENSE_INVALID",
  );
});

function* safeReadDir(folder: string): Generator<string> {
  try {
    for (const entry of Deno.readDirSync(folder)) yield entry.name;
  } catch {
    // no folder: nothing in it
  }
}
