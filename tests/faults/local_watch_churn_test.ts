// deno-lint-ignore-file require-await -- the fault factories share one async signature; some of them await
/**
 * A watching local client through rapid atomic replacements of its file,
 * mixed with garbage: new validly signed bundles, random bytes, truncated,
 * tampered, unsigned and wrongly signed bundles, empty files. Throughout —
 * after every step, and from a sampler that runs while the steps go on —
 * the client serves only bundles that were written validly signed, with the
 * decisions of that bundle; at the end, it still picks up a new bundle.
 *
 * 200 steps in the default test task, 1000 under `deno task test:long`.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  createLocalClient,
  type PolicyError,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { computeDigest } from "../../src/engine/mod.ts";
import { test, writeAtomic } from "../clients/_helpers.ts";
import { FakeClock } from "../_fake_clock.ts";
import { LONG } from "./_policy_process.ts";
import { replayHint, seededRandom, testSeed } from "../_random.ts";

/** Every random draw of this file (replay a failure with POLICY_TEST_SEED). */
const random = seededRandom(testSeed(0xc4a2));

const STEPS = LONG ? 1000 : 200;
const TARGET = { service: "svc", resource: "doc", action: "read" };
const HMAC = "5c".repeat(32);

const newPair = () =>
  crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
const good = await newPair();
const other = await newPair();

/** Bundle `n`: its rule `v<n>` decides allow for even n and deny for odd n. */
function bundle(n: number): RuntimeBundleV1 {
  return {
    schemaVersion: 1,
    env: "prod",
    bundleVersion: n,
    policies: [{
      policyKey: "p",
      activeVersion: n,
      rules: [{
        id: `v${n}`,
        status: "active",
        priority: 1,
        target: { ...TARGET },
        effect: { type: n % 2 === 0 ? "allow" : "deny" },
      }],
    }],
  };
}

const sign = (b: RuntimeBundleV1, key: CryptoKey | string = good.privateKey) =>
  signBundle(b, {
    algorithm: typeof key === "string" ? "HMAC_SHA256" : "ECDSA_SHA_256",
    key,
    keyId: "churn",
  });

/** The codes a bad write may be reported with. */
const EXPECTED_CODES = new Set([
  "BUNDLE_PARSE_ERROR",
  "BUNDLE_INVALID",
  "CHECKSUM_MISMATCH",
  "BUNDLE_SIGNATURE_INVALID",
  "BUNDLE_SIGNATURE_MISSING",
  "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
]);

test(`a watching local client through ${STEPS} rapid atomic replacements mixed with garbage serves only validly signed bundles, and keeps watching [${replayHint(random.seed)}]`, async () => {
  const { dir, remove } = await makeTempDir("churn-");
  const bundlePath = `${dir}/bundle.json`;
  /** checksum -> version, of every bundle written validly signed. */
  const valid = new Map<string, number>();
  const writeValid = async (n: number) => {
    const signed = await sign(bundle(n));
    valid.set(signed.checksum, n);
    await writeAtomic(bundlePath, JSON.stringify(signed, null, n % 3));
  };
  await writeValid(1);
  const errors: PolicyError[] = [];
  // The watch runs on a fake clock: the seeded random decides when checks run,
  // and whether the next write races with one in progress.
  const clock = new FakeClock({ wallNow: Date.now() });
  const client = await createLocalClient({
    bundlePath,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: good.publicKey },
    watch: { intervalMs: 1 },
    onError: (error) => errors.push(error),
    clock,
  });
  /** Starts up to two checks; each is awaited or left running as the next write happens. */
  const checks = async () => {
    for (let i = Math.floor(random.next() * 3); i > 0; i--) {
      const next = clock.nextTimer();
      if (clock.pending === 0) await next; // a check is running: let it end first
      const ended = clock.nextTimer();
      clock.tick(1);
      if (random.next() < 0.5) await ended;
    }
  };
  const seen = new Set<number>();
  let samples = 0;
  const check = (where: string) => {
    samples++;
    const status = client.status();
    const version = valid.get(status.checksum);
    assert.ok(version !== undefined, `${where}: serving ${status.checksum}, never written valid`);
    assert.equal(status.bundleVersion, version, where);
    assert.equal(status.signature.status, "verified", where);
    const decision = client.evaluate({ target: TARGET });
    assert.equal(decision.ruleId, `v${version}`, where);
    assert.equal(decision.decision, version % 2 === 0 ? "allow" : "deny", where);
    seen.add(version);
  };
  let samplerError: unknown = null;
  const sampler = setInterval(() => {
    try {
      check("sampler");
    } catch (error) {
      samplerError ??= error;
    }
  }, 0);
  const kinds: Record<string, number> = {};
  try {
    let next = 2;
    let bogus = 100_000; // versions of bundles that must never be served
    for (let step = 0; step < STEPS; step++) {
      const roll = random.next();
      let kind: string;
      if (roll < 0.3) {
        kind = "valid";
        await writeValid(next++);
      } else {
        const text = JSON.stringify(await sign(bundle(++bogus)));
        assert.ok(text.includes('"priority":1'));
        const choices: [string, () => Promise<string | Uint8Array>][] = [
          [
            "garbage",
            async () =>
              crypto.getRandomValues(new Uint8Array(1 + Math.floor(random.next() * 2000))),
          ],
          ["truncated", async () => text.slice(0, Math.floor(random.next() * text.length))],
          ["empty", async () => ""],
          // Tampering changes the priority (1 to 2), keeping the signature of the original.
          ["tampered", async () => text.replace('"priority":1', '"priority":2')],
          ["tampered, checksum removed", async () => {
            const doc = JSON.parse(text.replace('"priority":1', '"priority":2'));
            delete doc.checksum;
            return JSON.stringify(doc);
          }],
          ["tampered, checksum recomputed", async () => {
            const doc = JSON.parse(text.replace('"priority":1', '"priority":2'));
            return JSON.stringify({ ...doc, checksum: (await computeDigest(doc)).checksum });
          }],
          ["wrong key", async () => JSON.stringify(await sign(bundle(bogus), other.privateKey))],
          ["HMAC", async () => JSON.stringify(await sign(bundle(bogus), HMAC))],
          ["unsigned", async () => JSON.stringify(bundle(bogus))],
          [
            "not a bundle",
            async () => JSON.stringify({ schemaVersion: 1, env: "prod", policies: "x" }),
          ],
        ];
        const [name, make] = choices[Math.floor(random.next() * choices.length)]!;
        kind = name;
        await writeAtomic(bundlePath, await make());
      }
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (random.next() < 0.7) await checks();
      check(`after step ${step} (${kind})`);
      if (samplerError !== null) throw samplerError;
    }
    // Still watching: a last valid bundle is picked up.
    const last = next;
    await writeValid(last);
    await clock.runUntil(
      () => client.status().bundleVersion === last,
      "the last valid bundle is served",
    );
    check("at the end");
  } finally {
    clearInterval(sampler);
    await client.close();
    await remove();
  }
  if (samplerError !== null) throw samplerError;
  for (const error of errors) {
    assert.ok(EXPECTED_CODES.has(error.code), `unexpected ${error.code}: ${error.message}`);
  }
  assert.ok(seen.size > 2, `served ${seen.size} versions`);
  assert.ok(errors.length > 0, "bad files were reported");
  console.log(
    `local watch churn: ${STEPS} steps ${JSON.stringify(kinds)}; served ${seen.size} versions, ` +
      `${errors.length} reload errors, ${samples} checks`,
  );
});
