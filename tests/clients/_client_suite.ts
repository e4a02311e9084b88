/**
 * The conformance suite every {@link PolicyClient} passes, whatever brings it
 * its bundle (a file for the local client, HTTP for the remote client).
 *
 * ## Contract
 *
 * `runClientSuite(name, newClient, features?)` registers `Deno.test` cases
 * named `<name>: …`. Call it once at the top level of a test module.
 *
 * `newClient(bundleText, options)` must create a client whose bundle is
 * exactly `bundleText` (served or written byte for byte, not re-encoded),
 * created with `options` (the adapter may add its own, such as a path, a URL or
 * a watch/poll interval, but must not change the ones given), and resolve to
 * `{ client, cleanup }` once the client is usable. When creation fails it
 * must reject with the client's own error (the suite checks its `code`),
 * after releasing whatever the adapter set up itself.
 *
 * The suite always calls `client.close()` (at least once) before
 * `cleanup()`; `cleanup()` releases what the adapter set up (files,
 * servers). Every case runs with Deno's op and resource sanitizers on (they
 * are off by default since Deno 2.x): a client must leave no timer, request
 * or file open once `close()` has resolved. An adapter that starts a
 * watch/poll timer in some runs lets the sanitizers check that.
 *
 * Every bundle the suite hands over carries the scope {@link SUITE_SCOPE}
 * (`orgId`, `projectId`, `env`), so a client that checks its scope can be
 * configured with it. `bundleText` is not always a valid bundle (the load
 * failure cases), not always JSON (`BUNDLE_PARSE_ERROR`), and not always
 * under `maxFileBytes` (`BUNDLE_TOO_LARGE`).
 *
 * Signed bundles are signed by the suite with keys it generates with
 * WebCrypto: ECDSA P-256 keys passed as SPKI PEM text, HMAC secrets as 64 hex
 * characters.
 *
 * `features` turns off cases a client refuses by design; those cases are
 * registered as ignored, so the test report shows them:
 * - `hmac: false`: the client refuses `HMAC_SHA256` bundles and keys (the remote
 *   client, docs/remote.md).
 * - `allowUnsigned: false`: the client has no `allowUnsigned` option, and
 *   needs `verify` (the remote client): creating it without `verify`, or with
 *   `allowUnsigned`, fails with `INVALID_OPTIONS`.
 *
 * What the suite checks: decisions equal the engine's for the fixtures
 * `tests/testdata/engine/precedence.json` and `defaults_matching.json`;
 * `status()` (origin, bundleVersion, checksum, etag, env, signature, policies);
 * the verification states (verified ECDSA, verified HMAC, unsigned with
 * `allowUnsigned`) and the load failures at creation (`BUNDLE_UNSIGNED`,
 * `BUNDLE_SIGNATURE_MISSING`, `BUNDLE_SIGNATURE_UNVERIFIED`,
 * `BUNDLE_SIGNATURE_INVALID`, `BUNDLE_SIGNATURE_ALGORITHM_MISMATCH`,
 * `CHECKSUM_MISMATCH`, `BUNDLE_PARSE_ERROR`, `BUNDLE_INVALID`,
 * `BUNDLE_TOO_LARGE`); trusted key sets (`BUNDLE_SIGNATURE_KEY_UNKNOWN`);
 * options checked before any I/O (unknown keys, bad key material);
 * `contextPolicy`; `parseCustomEffect`; `onDecision` with sampling and
 * masking; `close()` idempotent, and `[Symbol.asyncDispose]`.
 *
 * Reloading (watch, poll, `onError`) is client-specific and tested by each
 * client's own tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  compileBundle,
  type DecisionRecord,
  evaluate,
  type EvaluateOptions,
  type EvaluationRequest,
  isPolicyError,
  type PolicyClient,
  PolicyError,
  type RuntimeBundleV1,
  signBundle,
  type VerifyKeyOptions,
} from "../../mod.ts";
import type { ClientOptions } from "../../src/clients/mod.ts";
import { toHex } from "../../src/_internal/encoding.ts";
import type { ErrorCode } from "../../src/public/policy_error.ts";
import { encodePem } from "../../src/verify/pem.ts";

/** Creates a client for `bundleText`; see the module documentation. */
export type NewClient = (
  bundleText: string,
  options: ClientOptions,
) => Promise<{ client: PolicyClient; cleanup(): Promise<void> }>;

/** Cases a client may refuse by design; each defaults to `true`. */
export interface ClientSuiteFeatures {
  /** The client loads `HMAC_SHA256` bundles verified with an HMAC secret. */
  hmac?: boolean;
  /** The client has `allowUnsigned` (and loads unsigned bundles with it); else it needs `verify`. */
  allowUnsigned?: boolean;
}

/** The scope every bundle of the suite carries. */
export const SUITE_SCOPE = Object.freeze(
  {
    orgId: "suite-org",
    projectId: "suite-project",
    env: "test",
  } as const,
);

interface Fixture {
  bundle: RuntimeBundleV1;
  cases: { name: string; request: EvaluationRequest; want: unknown; options?: EvaluateOptions }[];
}

const readJson = <T>(url: URL): T => JSON.parse(Deno.readTextFileSync(url));
const fixture = (name: string) =>
  readJson<Fixture>(new URL(`../testdata/engine/${name}`, import.meta.url));

/** A bundle of the suite: `bundle` with the suite's scope. */
const scoped = (bundle: RuntimeBundleV1): RuntimeBundleV1 => ({ ...bundle, ...SUITE_SCOPE });

/** The example bundle (3 policies), scoped, with bundleVersion 7. */
const example = (): RuntimeBundleV1 => ({
  ...scoped(readJson(new URL("../../examples/bundle.json", import.meta.url))),
  bundleVersion: 7,
});

const billing = { service: "billing", resource: "invoice", action: "create" };

interface Keys {
  ecdsaPrivate: CryptoKey;
  ecdsaPublicPem: string;
  otherEcdsaPublicPem: string;
  hmacSecret: string;
}

let keys: Promise<Keys> | undefined;

/** The suite's keys, generated once per process. */
function suiteKeys(): Promise<Keys> {
  keys ??= (async () => {
    const generate = () =>
      crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const spkiPem = async (key: CryptoKey) =>
      encodePem("PUBLIC KEY", new Uint8Array(await crypto.subtle.exportKey("spki", key)));
    const [pair, other] = await Promise.all([generate(), generate()]);
    return {
      ecdsaPrivate: pair.privateKey,
      ecdsaPublicPem: await spkiPem(pair.publicKey),
      otherEcdsaPublicPem: await spkiPem(other.publicKey),
      hmacSecret: toHex(crypto.getRandomValues(new Uint8Array(32))),
    };
  })();
  return keys;
}

async function signEcdsa(bundle: RuntimeBundleV1, keyId = "suite-ecdsa") {
  const { ecdsaPrivate } = await suiteKeys();
  return await signBundle(bundle, { algorithm: "ECDSA_SHA_256", key: ecdsaPrivate, keyId });
}

async function ecdsaVerify(): Promise<ClientOptions> {
  const { ecdsaPublicPem } = await suiteKeys();
  return { verify: { algorithm: "ECDSA_SHA_256", publicKey: ecdsaPublicPem } };
}

const text = (bundle: unknown) => JSON.stringify(bundle, null, 2);

/**
 * Registers the conformance cases for one kind of client. See the module
 * documentation for what `newClient` must do.
 */
export function runClientSuite(
  name: string,
  newClient: NewClient,
  features: ClientSuiteFeatures = {},
): void {
  const hmac = features.hmac ?? true;
  const unsigned = features.allowUnsigned ?? true;
  // The cases turned off are registered as ignored; say why, once for each feature.
  if (!hmac) {
    console.log(
      `${name}: the HMAC_SHA256 cases are skipped: this client refuses HMAC bundles and keys by design`,
    );
  }
  if (!unsigned) {
    console.log(
      `${name}: the allowUnsigned case is skipped: this client has no allowUnsigned and needs verify`,
    );
  }

  /** Runs `fn` with a client, closing it (twice: close() is idempotent) and cleaning up. */
  async function withClient(
    bundleText: string,
    options: ClientOptions,
    fn: (client: PolicyClient) => void | Promise<void>,
  ): Promise<void> {
    const { client, cleanup } = await newClient(bundleText, options);
    try {
      await fn(client);
    } finally {
      try {
        await client.close();
        await client.close();
      } finally {
        await cleanup();
      }
    }
  }

  /** Asserts that creating a client rejects with a PolicyError `code`. */
  async function assertCreationFails(
    bundleText: string,
    options: ClientOptions,
    code: ErrorCode,
  ): Promise<PolicyError> {
    let created: Awaited<ReturnType<NewClient>>;
    try {
      created = await newClient(bundleText, options);
    } catch (error) {
      assert.ok(isPolicyError(error), `expected a PolicyError ${code}, got ${error}`);
      assert.equal(error.code, code, error.message);
      return error;
    }
    await created.client.close();
    await created.cleanup();
    assert.fail(`expected creation to fail with ${code}, but it succeeded`);
  }

  const test = (title: string, fn: () => Promise<void>, enabled = true) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore: !enabled,
      // Off by default in Deno 2.9; the suite needs them to see a timer or a
      // request left running after close().
      sanitizeOps: true,
      sanitizeResources: true,
      fn,
    });

  for (const file of ["precedence.json", "defaults_matching.json"]) {
    test(`evaluate() gives the engine's decision for every case of ${file}`, async () => {
      const { bundle, cases } = fixture(file);
      const signed = await signEcdsa(scoped(bundle));
      const compiled = compileBundle(signed);
      // One client per distinct set of evaluation options of the cases.
      const groups = Map.groupBy(cases, (c) => JSON.stringify(c.options ?? {}));
      for (const [key, group] of groups) {
        const evaluateOptions: EvaluateOptions = JSON.parse(key);
        await withClient(
          text(signed),
          { ...await ecdsaVerify(), ...evaluateOptions },
          (client) => {
            for (const c of group) {
              const decision = client.evaluate(c.request);
              assert.ok(!(decision instanceof Promise), "evaluate() must be synchronous");
              assert.deepEqual(decision, evaluate(compiled, c.request, evaluateOptions), c.name);
              assert.deepEqual(decision, c.want, c.name);
            }
          },
        );
      }
    });
  }

  test("status() reports origin, bundleVersion, checksum, etag, env, signature and policies", async () => {
    const signed = await signEcdsa(example(), "release-7");
    await withClient(text(signed), await ecdsaVerify(), (client) => {
      const status = client.status();
      assert.ok(["local", "remote"].includes(status.origin), `origin ${status.origin}`);
      assert.equal(status.bundleVersion, 7);
      assert.equal(status.checksum, signed.checksum);
      assert.equal(status.etag, `"${signed.checksum.slice("sha256:".length)}"`);
      assert.equal(status.env, SUITE_SCOPE.env);
      assert.deepEqual(status.signature, {
        status: "verified",
        algorithm: "ECDSA_SHA_256",
        keyId: "release-7",
      });
      assert.equal(status.freshness, null);
      assert.equal(status.expired, false);
      assert.equal(status.policies, 3);
      // A copy: changing it does not change the client.
      (status.signature as { status: string }).status = "unsigned";
      status.policies = 0;
      assert.equal(client.status().signature.status, "verified");
      assert.equal(client.status().policies, 3);
    });
  });

  test("status() reports bundleVersion null for a bundle without one", async () => {
    const { bundleVersion: _, ...withoutVersion } = example();
    const signed = await signEcdsa(withoutVersion);
    await withClient(text(signed), await ecdsaVerify(), (client) => {
      assert.equal(client.status().bundleVersion, null);
    });
  });

  test("loads an ECDSA_SHA_256 bundle verified with its SPKI public key", async () => {
    const signed = await signEcdsa(example());
    await withClient(text(signed), await ecdsaVerify(), (client) => {
      assert.equal(client.status().signature.status, "verified");
      assert.equal(
        client.evaluate({ target: billing, context: { plan: "pro" } }).decision,
        "allow",
      );
    });
  });

  test("loads an HMAC_SHA256 bundle verified with its secret", async () => {
    const { hmacSecret } = await suiteKeys();
    const signed = await signBundle(example(), {
      algorithm: "HMAC_SHA256",
      key: hmacSecret,
      keyId: "suite-hmac",
    });
    await withClient(
      text(signed),
      { verify: { algorithm: "HMAC_SHA256", publicKey: hmacSecret } },
      (client) => {
        assert.deepEqual(client.status().signature, {
          status: "verified",
          algorithm: "HMAC_SHA256",
          keyId: "suite-hmac",
        });
      },
    );
  }, hmac);

  test("loads an unsigned bundle as unsigned when allowUnsigned is set", async () => {
    await withClient(text(example()), { allowUnsigned: true }, (client) => {
      assert.deepEqual(client.status().signature, { status: "unsigned" });
      assert.equal(
        client.evaluate({ target: billing, context: { plan: "pro" } }).decision,
        "allow",
      );
    });
  }, unsigned);

  // A client without allowUnsigned needs verify: without it, creation fails before any I/O.
  const withoutKey = (code: ErrorCode): ErrorCode => unsigned ? code : "INVALID_OPTIONS";

  test("creation fails with BUNDLE_UNSIGNED for an unsigned bundle without allowUnsigned", async () => {
    await assertCreationFails(text(example()), {}, withoutKey("BUNDLE_UNSIGNED"));
    await assertCreationFails(
      text(example()),
      { allowUnsigned: false },
      withoutKey("BUNDLE_UNSIGNED"),
    );
  });

  test("creation fails with BUNDLE_SIGNATURE_MISSING for an unsigned bundle when a key is set", async () => {
    await assertCreationFails(text(example()), await ecdsaVerify(), "BUNDLE_SIGNATURE_MISSING");
    await assertCreationFails(
      text(example()),
      { ...await ecdsaVerify(), allowUnsigned: true },
      unsigned ? "BUNDLE_SIGNATURE_MISSING" : "INVALID_OPTIONS",
    );
  });

  test("creation fails with BUNDLE_SIGNATURE_UNVERIFIED for a signed bundle without a key", async () => {
    const signed = text(await signEcdsa(example()));
    await assertCreationFails(signed, {}, withoutKey("BUNDLE_SIGNATURE_UNVERIFIED"));
    await assertCreationFails(
      signed,
      { allowUnsigned: true },
      withoutKey("BUNDLE_SIGNATURE_UNVERIFIED"),
    );
  });

  test("a trusted key set: any key verifies, the signature's keyId orders the tries, an unknown keyId is BUNDLE_SIGNATURE_KEY_UNKNOWN", async () => {
    const { ecdsaPublicPem, otherEcdsaPublicPem } = await suiteKeys();
    const signed = text(await signEcdsa(example(), "k-new"));
    const current = { algorithm: "ECDSA_SHA_256" as const, publicKey: ecdsaPublicPem };
    const other = { algorithm: "ECDSA_SHA_256" as const, publicKey: otherEcdsaPublicPem };
    // Old key first, new key second, with or without key ids: it verifies. status() names the
    // configured key that verified (the id recorded at signing when that key has none), and
    // the key id the bundle claims apart when it differs.
    for (
      const [verify, reported] of [
        [[{ ...other, keyId: "k-old" }, { ...current, keyId: "k-new" }], { keyId: "k-new" }],
        [[other, current], { keyId: "k-new" }],
        // A key id that names the wrong key is only a hint: the right key still verifies, and
        // status() reports it ("k-old"), not the label the bundle carries.
        [[{ ...other, keyId: "k-new" }, { ...current, keyId: "k-old" }], {
          keyId: "k-old",
          claimedKeyId: "k-new",
        }],
      ] as const
    ) {
      await withClient(signed, { verify }, (client) => {
        assert.deepEqual(client.status().signature, {
          status: "verified",
          algorithm: "ECDSA_SHA_256",
          ...reported,
        });
      });
    }
    // The signature names a key id no trusted key has, and none verifies.
    const unknown = await assertCreationFails(
      signed,
      { verify: [{ ...other, keyId: "k-old" }] },
      "BUNDLE_SIGNATURE_KEY_UNKNOWN",
    );
    assert.match(unknown.message, /"k-new"/);
    // It names a trusted key (or a key has no id), and none verifies: a bad signature.
    await assertCreationFails(
      signed,
      { verify: [{ ...other, keyId: "k-new" }] },
      "BUNDLE_SIGNATURE_INVALID",
    );
    await assertCreationFails(signed, { verify: [other] }, "BUNDLE_SIGNATURE_INVALID");
    // The set is bounded and its key ids unique.
    await assertCreationFails(
      signed,
      { verify: Array.from({ length: 17 }, (_, i) => ({ ...current, keyId: `k${i}` })) },
      "INVALID_OPTIONS",
    );
    await assertCreationFails(
      signed,
      { verify: [{ ...current, keyId: "a" }, { ...other, keyId: "a" }] },
      "INVALID_OPTIONS",
    );
    await assertCreationFails(signed, { verify: [] }, "INVALID_OPTIONS");
  });

  test("options are checked before any I/O: an unknown key names the key and a suggestion, a bad key fails with INVALID_KEY", async () => {
    // The served text is not JSON: a client that read it before checking its
    // options would fail with BUNDLE_PARSE_ERROR instead.
    const unreadable = "{";
    const typo = await assertCreationFails(
      unreadable,
      { ...await ecdsaVerify(), parseCustomEfect: true } as ClientOptions,
      "INVALID_OPTIONS",
    );
    assert.match(
      typo.message,
      /unknown option "parseCustomEfect"; did you mean "parseCustomEffect"\?/,
    );
    const nested = await assertCreationFails(
      unreadable,
      { ...await ecdsaVerify(), decisionLog: { sampleRat: 0.5 } } as unknown as ClientOptions,
      "INVALID_OPTIONS",
    );
    assert.match(
      nested.message,
      /"decisionLog\.sampleRat"; did you mean "decisionLog\.sampleRate"/,
    );
    // Key material is imported at creation, even when the bundle would not need it.
    await assertCreationFails(
      text(example()),
      {
        verify: { algorithm: "ECDSA_SHA_256", publicKey: "garbage" },
        ...(unsigned && { allowUnsigned: true }),
      },
      "INVALID_KEY",
    );
    await assertCreationFails(
      unreadable,
      {
        verify: [(await ecdsaVerify()).verify as VerifyKeyOptions, {
          algorithm: "ECDSA_SHA_256",
          publicKey: "x",
        }],
      },
      "INVALID_KEY",
    );
  });

  test("onDecision receives each decision with the request, the bundle and a timestamp; sampling and masking apply", async () => {
    const signed = await signEcdsa(example());
    const records: DecisionRecord[] = [];
    const request = {
      target: billing,
      context: { plan: "pro", email: "a@example.com", user: { id: "u1", ssn: "123" } },
    };
    await withClient(text(signed), {
      ...await ecdsaVerify(),
      onDecision: (record) => {
        records.push(record);
        throw new Error("a failing hook changes nothing");
      },
      decisionLog: { maskContextKeys: ["email", "ctx.user.ssn", "absent.key"] },
    }, (client) => {
      const decision = client.evaluate(request);
      assert.equal(decision.decision, "allow");
      assert.equal(records.length, 1);
      const [record] = records;
      assert.equal(record!.decision, decision);
      assert.deepEqual(record!.request, {
        target: billing,
        context: { plan: "pro", email: "[masked]", user: { id: "u1", ssn: "[masked]" } },
      });
      assert.deepEqual(record!.bundle, { checksum: signed.checksum, bundleVersion: 7 });
      assert.equal(record!.sampleRate, 1);
      assert.ok(Math.abs(Date.parse(record!.timestamp) - Date.now()) < 60_000);
      // The caller's context is unchanged.
      assert.equal(request.context.email, "a@example.com");
      assert.equal(request.context.user.ssn, "123");
    });
    let logged = 0;
    await withClient(text(signed), {
      ...await ecdsaVerify(),
      onDecision: () => logged++,
      decisionLog: { sampleRate: 0 },
    }, (client) => {
      for (let i = 0; i < 100; i++) client.evaluate(request);
    });
    assert.equal(logged, 0);
    await assertCreationFails(
      text(signed),
      { ...await ecdsaVerify(), decisionLog: { sampleRate: 0.5 } },
      "INVALID_OPTIONS",
    );
    await assertCreationFails(
      text(signed),
      { ...await ecdsaVerify(), onDecision: () => {}, decisionLog: { sampleRate: 2 } },
      "INVALID_OPTIONS",
    );
  });

  test("creation fails with BUNDLE_SIGNATURE_INVALID for a bundle signed by another key", async () => {
    const { otherEcdsaPublicPem } = await suiteKeys();
    await assertCreationFails(
      text(await signEcdsa(example())),
      { verify: { algorithm: "ECDSA_SHA_256", publicKey: otherEcdsaPublicPem } },
      "BUNDLE_SIGNATURE_INVALID",
    );
  });

  test(
    "creation fails with BUNDLE_SIGNATURE_ALGORITHM_MISMATCH for a key of the other algorithm",
    async () => {
      const { hmacSecret } = await suiteKeys();
      await assertCreationFails(
        text(await signEcdsa(example())),
        { verify: { algorithm: "HMAC_SHA256", publicKey: hmacSecret } },
        "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
      );
    },
    hmac,
  );

  test("creation fails with CHECKSUM_MISMATCH for a bundle altered after signing", async () => {
    const altered = await signEcdsa(example());
    altered.policies.pop();
    await assertCreationFails(text(altered), await ecdsaVerify(), "CHECKSUM_MISMATCH");
  });

  test("creation fails with BUNDLE_PARSE_ERROR for text that is not JSON", async () => {
    const signed = text(await signEcdsa(example()));
    await assertCreationFails(
      signed.slice(0, signed.length / 2),
      await ecdsaVerify(),
      "BUNDLE_PARSE_ERROR",
    );
    await assertCreationFails("not json", await ecdsaVerify(), "BUNDLE_PARSE_ERROR");
  });

  test("creation fails with BUNDLE_INVALID for a document that is not a bundle", async () => {
    const error = await assertCreationFails(
      text({ ...SUITE_SCOPE, schemaVersion: 2, policies: [] }),
      await ecdsaVerify(),
      "BUNDLE_INVALID",
    );
    assert.deepEqual(error.issues.map((issue) => issue.code), ["INVALID_SCHEMA_VERSION"]);
  });

  test("creation fails with BUNDLE_TOO_LARGE for a bundle over maxFileBytes", async () => {
    const signed = text(await signEcdsa(example()));
    const size = new TextEncoder().encode(signed).byteLength;
    await assertCreationFails(
      signed,
      { ...await ecdsaVerify(), maxFileBytes: size - 1 },
      "BUNDLE_TOO_LARGE",
    );
    await withClient(signed, { ...await ecdsaVerify(), maxFileBytes: size }, (client) => {
      assert.equal(client.status().policies, 3);
    });
  });

  test("contextPolicy refuses an undeclared context key with CONTEXT_KEY_NOT_ALLOWED naming it", async () => {
    const signed = text(await signEcdsa(example()));
    const contextPolicy = { allowedKeys: ["plan", "seats"] };
    await withClient(signed, { ...await ecdsaVerify(), contextPolicy }, (client) => {
      const request = { target: billing, context: { plan: "free", seats: 9 } };
      assert.equal(client.evaluate(request).decision, "throttle");
      assert.throws(
        () => client.evaluate({ target: billing, context: { plan: "pro", tenant: "acme" } }),
        (error) =>
          error instanceof PolicyError && error.code === "CONTEXT_KEY_NOT_ALLOWED" &&
          error.message.includes("tenant"),
      );
    });
    // Without contextPolicy, any key is accepted.
    await withClient(signed, await ecdsaVerify(), (client) => {
      const decision = client.evaluate({ target: billing, context: { plan: "pro", tenant: "a" } });
      assert.equal(decision.decision, "allow");
    });
  });

  test("parseCustomEffect adds parsedValue to custom decisions whose value is JSON", async () => {
    const bundle: RuntimeBundleV1 = {
      schemaVersion: 1,
      ...SUITE_SCOPE,
      policies: [{
        policyKey: "ranking",
        activeVersion: 1,
        rules: [
          {
            id: "json",
            status: "active",
            priority: 0,
            target: { service: "search", resource: "ranking", action: "json" },
            effect: { type: "custom", value: '{"ranking":"v2","weight":0.5}' },
          },
          {
            id: "plain",
            status: "active",
            priority: 0,
            target: { service: "search", resource: "ranking", action: "plain" },
            effect: { type: "custom", value: "v2 ranking" },
          },
        ],
      }],
    };
    const signed = text(await signEcdsa(bundle));
    const json = { target: { service: "search", resource: "ranking", action: "json" } };
    const plain = { target: { service: "search", resource: "ranking", action: "plain" } };
    await withClient(signed, { ...await ecdsaVerify(), parseCustomEffect: true }, (client) => {
      assert.deepEqual(client.evaluate(json), {
        decision: "custom",
        reason: "rule",
        policyKey: "ranking",
        ruleId: "json",
        value: '{"ranking":"v2","weight":0.5}',
        parsedValue: { ranking: "v2", weight: 0.5 },
      });
      assert.equal("parsedValue" in client.evaluate(plain), false);
    });
    await withClient(signed, await ecdsaVerify(), (client) => {
      assert.equal("parsedValue" in client.evaluate(json), false);
    });
  });

  test("close() is idempotent and [Symbol.asyncDispose] closes", async () => {
    const signed = text(await signEcdsa(example()));
    const { client, cleanup } = await newClient(signed, await ecdsaVerify());
    try {
      await Promise.all([client.close(), client.close()]);
      await client.close();
      await client[Symbol.asyncDispose]();
    } finally {
      await cleanup();
    }
    const second = await newClient(signed, await ecdsaVerify());
    try {
      await second.client[Symbol.asyncDispose]();
      await second.client.close();
    } finally {
      await second.cleanup();
    }
  });

  test("await using closes the client at the end of the block", async () => {
    const signed = text(await signEcdsa(example()));
    const { client, cleanup } = await newClient(signed, await ecdsaVerify());
    try {
      await using scoped = client;
      assert.equal(scoped.status().policies, 3);
    } finally {
      await cleanup();
    }
  });
}
