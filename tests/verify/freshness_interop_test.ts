// Freshness statements against independent tools (docs/bundle-format.md
// "Freshness statement"): one written by `policy build` verifies with
// `openssl dgst -sha256 -verify` over bytes computed by Python from the
// bundle file; one signed by openssl over bytes Python computed is accepted
// by both clients. Needs `--allow-run=openssl,python3`.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import {
  createLocalClient,
  createRemoteClient,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { generateSec1Key, publicKeyOf, signWithOpenssl, verifyWithOpenssl } from "../_openssl.ts";
import { withTempDir } from "../temp_dir.ts";
import { scratch } from "../cli/_helpers.ts";
import { bundleOf, remoteOptions, TARGET } from "../clients/_remote_fixtures.ts";
import { ok, StubFetch } from "../clients/_stub_fetch.ts";
import { FakeClock } from "../_fake_clock.ts";
import { encodeBase64 } from "../../src/_internal/encoding.ts";

/**
 * The bytes a statement's signature covers, computed by Python alone from a
 * JSON file: its `freshness` member (or the whole document) without
 * `signature`, keys sorted, no whitespace, UTF-8.
 */
const SIGNED_BYTES_PY = `
import json, sys
document = json.load(open(sys.argv[1], encoding="utf-8"))
statement = dict(document.get("freshness", document))
statement.pop("signature", None)
sys.stdout.buffer.write(
    json.dumps(statement, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
`;

async function pythonSignedBytes(file: string): Promise<Uint8Array> {
  const { code, stdout, stderr } = await new Deno.Command("python3", {
    args: ["-c", SIGNED_BYTES_PY, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return stdout;
}

function base64Decode(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

Deno.test("a statement written by policy build --signed --expires-in verifies with openssl over bytes Python computes", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const keys = await s.run([
    "keys",
    "generate",
    "--algorithm",
    "ECDSA_SHA_256",
    "--out-dir",
    "keys",
  ]);
  assert.equal(keys.code, 0, keys.stderr);
  const built = await s.json([
    "build",
    "--signed",
    "--ecdsa-private-key",
    "keys/private-key.pem",
    "--signing-key-id",
    "release-1",
    "--expires-in",
    "7d",
  ]);
  assert.equal(built.code, 0, built.stderr);
  const file = `${s.wf}/policy-bundle.json`;
  const bundle = await s.readJson("policy-bundle.json") as unknown as RuntimeBundleV1;
  const statement = bundle.freshness!;
  assert.equal(statement.expiresAt, "2026-11-28T09:30:00Z");
  assert.equal(statement.checksum, bundle.checksum);
  const publicPem = await s.read("keys/public-key.pem");
  const bytes = await pythonSignedBytes(file);
  const der = base64Decode(statement.signature.value);
  assert.equal(await verifyWithOpenssl(publicPem, bytes, der), true);
  // One character of the statement changed: openssl refuses the same signature.
  await s.write("altered.json", { ...bundle, freshness: { ...statement, bundleVersion: 2 } });
  assert.equal(
    await verifyWithOpenssl(publicPem, await pythonSignedBytes(`${s.wf}/altered.json`), der),
    false,
  );
});

Deno.test("a statement signed by openssl over bytes Python computes is accepted by the local and the remote client", async () => {
  await withTempDir(async (dir) => {
    const privatePem = await generateSec1Key();
    const publicPem = await publicKeyOf(privatePem);
    const clock = new FakeClock();
    const signed = await signBundle(bundleOf(3), {
      algorithm: "ECDSA_SHA_256",
      key: privatePem,
      keyId: "ops",
    });
    // The statement written by hand, as a script of the control plane would.
    const statement = {
      type: "policy-bundle-freshness/v1",
      checksum: signed.checksum,
      bundleVersion: 3,
      orgId: signed.orgId,
      projectId: signed.projectId,
      env: signed.env,
      issuedAt: "2026-11-21T08:00:00Z",
      expiresAt: "2026-11-22T08:00:00Z",
    };
    await writeFile(`${dir}/statement.json`, JSON.stringify(statement, null, 2));
    const der = await signWithOpenssl(privatePem, await pythonSignedBytes(`${dir}/statement.json`));
    const bundle = {
      ...signed,
      freshness: {
        ...statement,
        signature: { algorithm: "ECDSA_SHA_256", keyId: "ops", value: encodeBase64(der) },
      },
    };
    const text = JSON.stringify(bundle);
    const verify = { algorithm: "ECDSA_SHA_256" as const, publicKey: publicPem, keyId: "ops" };
    const expected = {
      bundleVersion: 3,
      issuedAt: "2026-11-21T08:00:00Z",
      expiresAt: "2026-11-22T08:00:00Z",
      keyId: "ops",
      verified: true,
    };
    await writeFile(`${dir}/bundle.json`, text);
    await using local = await createLocalClient({
      bundlePath: `${dir}/bundle.json`,
      verify,
      clock,
      requireFreshness: true,
    });
    assert.deepEqual(local.status().freshness, expected);
    assert.equal(local.evaluate({ target: TARGET }).decision, "deny");
    await using remote = await createRemoteClient(remoteOptions("https://cp.test", {
      verify,
      clock,
      requireFreshness: true,
      fetch: new StubFetch(ok(text)).fetch,
      poll: { intervalMs: 3_600_000 },
    }));
    assert.deepEqual(remote.status().freshness, expected);
  });
});
