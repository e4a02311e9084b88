import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  BUILT_IN_LICENSE_PUBLIC_KEY,
  gracePeriod,
  licensePayload,
  parseLicense,
  parseLicenseText,
  verifyLicense,
} from "../../src/license/mod.ts";
import { importPublicKey } from "../../src/verify/mod.ts";
import { generateKeyPair, issueLicense, ISSUER, licenseFields } from "../_license.ts";
import { openssl } from "../_openssl.ts";

const NOW = new Date("2026-11-21T09:30:00.000Z");
const verifyAt = (license: Parameters<typeof verifyLicense>[0], now = NOW) =>
  verifyLicense(license, { publicKey: ISSUER.publicKeyPem, now, source: "the licence" });

Deno.test("a licence signed by the issuer verifies, and reports its days left", async () => {
  const license = await issueLicense();
  assert.deepEqual(await verifyAt(license), {
    licenseId: "lic_test_0001",
    licensee: "Acme Corp",
    issuedAt: "2026-01-01T00:00:00.000Z",
    expiresAt: "2030-01-01T00:00:00.000Z",
    features: ["toolkit"],
    keyId: "test-issuer",
    daysLeft: 1137,
  });
  assert.equal(
    (await verifyAt(license, new Date("2029-12-31T23:59:59.999Z"))).daysLeft,
    1,
    "1 on its last day",
  );
});

Deno.test("the signature covers the canonical JSON of every field but the signature", async () => {
  const license = await issueLicense({ seats: 5 } as never);
  const payload = new TextDecoder().decode(licensePayload(license));
  assert.equal(
    payload,
    '{"expiresAt":"2030-01-01T00:00:00.000Z","features":["toolkit"],"issuedAt":"2026-01-01T00:00:00.000Z","licenseId":"lic_test_0001","licensee":"Acme Corp","schemaVersion":1,"seats":5}',
  );
  // Reordering and reformatting keep it valid; changing any field, an extra one included, does not.
  const reordered = JSON.parse(
    JSON.stringify(Object.fromEntries(Object.entries(license).reverse())),
  );
  await verifyAt(parseLicenseText(JSON.stringify(reordered, null, 4), "x"));
  for (
    const tampered of [
      { ...license, licensee: "Evil Corp" },
      { ...license, expiresAt: "2099-01-01T00:00:00.000Z" },
      { ...license, features: ["toolkit", "more"] },
      { ...license, seats: 500 },
      { ...license, extra: true },
    ]
  ) {
    await assert.rejects(verifyAt(tampered), (error: Error & { code?: string }) => {
      assert.equal(error.code, "LICENSE_INVALID");
      assert.match(error.message, /signature does not match/);
      return true;
    });
  }
});

Deno.test("a licence from another issuer, or checked with the built-in key, is LICENSE_INVALID", async () => {
  const other = await generateKeyPair();
  await assert.rejects(verifyAt(await issueLicense({}, other.privateKey)), {
    code: "LICENSE_INVALID",
  });
  await assert.rejects(
    verifyLicense(await issueLicense(), {
      publicKey: BUILT_IN_LICENSE_PUBLIC_KEY,
      now: NOW,
      source: "the licence",
    }),
    { code: "LICENSE_INVALID" },
  );
});

Deno.test("the built-in issuer key is a P-256 public key", async () => {
  const key = await importPublicKey(BUILT_IN_LICENSE_PUBLIC_KEY);
  assert.deepEqual(key.algorithm, { name: "ECDSA", namedCurve: "P-256" });
});

Deno.test("an expired licence is LICENSE_EXPIRED from its expiresAt instant on", async () => {
  const license = await issueLicense({ expiresAt: "2026-12-01T00:00:00.000Z" });
  assert.equal((await verifyAt(license, new Date("2026-11-30T23:59:59.999Z"))).daysLeft, 1);
  await assert.rejects(verifyAt(license, new Date("2026-12-01T00:00:00.000Z")), {
    code: "LICENSE_EXPIRED",
    message:
      /the licence \(lic_test_0001, Acme Corp\) expired on 2026-12-01T00:00:00.000Z; renew it/,
  });
});

Deno.test("a licence without the toolkit feature is LICENSE_INVALID", async () => {
  await assert.rejects(verifyAt(await issueLicense({ features: ["runtime-support"] })), {
    code: "LICENSE_INVALID",
    message: /does not include the "toolkit" feature/,
  });
});

Deno.test("parseLicense names the first wrong field", async () => {
  const valid = await issueLicense();
  const cases: [unknown, RegExp][] = [
    [[], /not a JSON object/],
    [{ ...valid, schemaVersion: 2 }, /schemaVersion must be 1/],
    [{ ...valid, licenseId: "" }, /licenseId must be a non-empty string/],
    [{ ...valid, licensee: 7 }, /licensee must be a non-empty string/],
    [{ ...valid, issuedAt: "yesterday" }, /issuedAt must be an ISO 8601 date-time/],
    [{ ...valid, expiresAt: "2030-01-01" }, /expiresAt must be an ISO 8601 date-time/],
    [{ ...valid, expiresAt: "2025-01-01T00:00:00Z" }, /expiresAt must be after issuedAt/],
    [{ ...valid, features: "toolkit" }, /features must be an array of strings/],
    [{ ...licenseFields() }, /no signature object/],
    [
      { ...valid, signature: { ...valid.signature, algorithm: "HMAC_SHA256" } },
      /signature\.algorithm must be ECDSA_SHA_256/,
    ],
    [{ ...valid, signature: { ...valid.signature, keyId: "" } }, /signature\.keyId/],
    [{ ...valid, signature: { ...valid.signature, value: 1 } }, /signature\.value/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => parseLicense(value, "the licence"), {
      code: "LICENSE_INVALID",
      message,
    });
  }
  await assert.rejects(
    verifyAt({ ...valid, signature: { ...valid.signature, value: "not base64!" } }),
    { code: "LICENSE_INVALID", message: /signature value is malformed/ },
  );
});

Deno.test("parseLicenseText reads the JSON document or its base64", async () => {
  const license = await issueLicense();
  const text = JSON.stringify(license);
  assert.deepEqual(parseLicenseText(`\n ${text} \n`, "x"), license);
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  assert.deepEqual(parseLicenseText(base64, "x"), license);
  assert.throws(() => parseLicenseText("not a licence", "POLICY_LICENSE"), {
    code: "LICENSE_INVALID",
    message: /POLICY_LICENSE is not a valid licence: it is not a JSON document/,
  });
});

Deno.test("an issuer can sign licences with openssl: the signature is openssl dgst -sha256 -sign over the payload", async () => {
  await withTempDir(async (dir) => {
    const keyFile = `${dir}/issuer.pem`;
    await Deno.writeTextFile(keyFile, ISSUER.privateKeyPem);
    const fields = licenseFields({ licenseId: "lic_openssl" });
    const der = await openssl(["dgst", "-sha256", "-sign", keyFile], licensePayload(fields));
    const value = btoa(String.fromCharCode(...der.stdout));
    const license = { ...fields, signature: { algorithm: "ECDSA_SHA_256", keyId: "k", value } };
    assert.equal((await verifyAt(parseLicense(license, "x"))).licenseId, "lic_openssl");
  });
});

Deno.test("gracePeriod counts 30 days from the first use, rounding days up", () => {
  const start = new Date("2026-11-21T09:30:00.000Z");
  const at = (iso: string) => gracePeriod(start, new Date(iso));
  assert.deepEqual(at("2026-11-21T09:30:00.000Z"), {
    startedAt: start,
    endsAt: new Date("2026-12-21T09:30:00.000Z"),
    daysLeft: 30,
    over: false,
  });
  assert.equal(at("2026-11-22T09:29:59.999Z").daysLeft, 30);
  assert.equal(at("2026-11-22T09:30:00.000Z").daysLeft, 29);
  assert.equal(at("2026-12-21T09:29:59.999Z").daysLeft, 1);
  assert.deepEqual([at("2026-12-21T09:30:00.000Z").over, at("2026-12-21T09:30:00.000Z").daysLeft], [
    true,
    0,
  ]);
  // A clock set back never gives more than 30 days.
  assert.equal(at("2026-10-01T00:00:00.000Z").daysLeft, 30);
});
