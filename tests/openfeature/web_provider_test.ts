// createWebOpenFeatureProvider with the real @openfeature/web-sdk, under Deno
// (the page in a real browser is tests/node/openfeature_browser.test.mjs):
// every row of the mapping table against the SDK's static context, the
// bundle fetched from a real HTTP server on 127.0.0.1 and verified, and each
// way a load fails with the state it leaves OpenFeature in.
import assert from "node:assert/strict";
import { OpenFeature, ProviderEvents, ProviderStatus } from "@openfeature/web-sdk";
import { PolicyError, signBundle } from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { computeDigest } from "../../src/engine/mod.ts";
import {
  createWebOpenFeatureProvider,
  type OpenFeatureWebProvider,
} from "../../src/openfeature/create_web_open_feature_provider.ts";
import { ecdsa, otherEcdsa, withStatement } from "../clients/_remote_fixtures.ts";
import {
  assertCase,
  CASES,
  contextOf,
  type Details,
  detailsMethod,
  FLAGS_BUNDLE,
  providerOptions,
} from "./_cases.ts";

function test(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, sanitizeOps: true, sanitizeResources: true, fn });
}

const signed = JSON.stringify(
  await signBundle(FLAGS_BUNDLE, { algorithm: "ECDSA_SHA_256", key: ecdsa.privateKey, keyId: "k" }),
);
const forged = JSON.stringify(
  await signBundle(FLAGS_BUNDLE, {
    algorithm: "ECDSA_SHA_256",
    key: otherEcdsa.privateKey,
    keyId: "k",
  }),
);
const verify = { algorithm: "ECDSA_SHA_256" as const, publicKey: ecdsa.publicKeyPem };

let domains = 0;

async function domainWith(provider: OpenFeatureWebProvider) {
  const domain = `web-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return { domain, flags: OpenFeature.getClient(domain) };
}

/** A server on 127.0.0.1 answering every request with `respond`. */
function serve(respond: (request: Request) => Response) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, respond);
  return {
    url: `http://127.0.0.1:${server.addr.port}/flags/bundle.json`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

test("every row of the mapping table, from a bundle fetched and verified, against the static context", async () => {
  await using origin = serve(() => new Response(signed));
  const { checksum: expected } = await computeDigest(FLAGS_BUNDLE);
  const domains = new Map<string | undefined, string>();
  for (const name of [undefined, ...Object.keys(CASES.providers)]) {
    const provider = createWebOpenFeatureProvider({
      url: origin.url,
      verify,
      ...providerOptions(name),
    });
    domains.set(name, (await domainWith(provider)).domain);
  }
  try {
    for (const c of CASES.cases) {
      const domain = domains.get(c.provider)!;
      await OpenFeature.setContext(domain, contextOf(c.context));
      const flags = OpenFeature.getClient(domain);
      const method = flags[detailsMethod(c.type) as "getBooleanDetails"] as (
        ...args: unknown[]
      ) => Details;
      assertCase(c, method.call(flags, c.flag, c.default), expected);
    }
  } finally {
    await OpenFeature.close();
  }
});

test("a bundle given as bytes, with contextPolicy: INVALID_CONTEXT for a key outside it", async () => {
  const { flags, domain } = await domainWith(createWebOpenFeatureProvider({
    bundle: new TextEncoder().encode(signed),
    verify,
    flags: CASES.flags,
    contextPolicy: { allowedKeys: ["plan"] },
  }));
  try {
    await OpenFeature.setContext(domain, { plan: "pro" });
    assert.equal(flags.getBooleanValue("new-checkout", false), true);
    await OpenFeature.setContext(domain, { plan: "pro", email: "a@example.com" });
    const details = flags.getBooleanDetails("new-checkout", false);
    assert.equal(details.errorCode, "INVALID_CONTEXT");
    assert.match(details.errorMessage!, /^CONTEXT_KEY_NOT_ALLOWED: /);
  } finally {
    await OpenFeature.close();
  }
});

test("a bundle that does not load puts the provider in FATAL: bad signature, unsigned, invalid, too large", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ bundle: forged, verify }, /BUNDLE_SIGNATURE_INVALID/],
    [{ bundle: JSON.stringify(FLAGS_BUNDLE), verify }, /BUNDLE_SIGNATURE_MISSING/],
    [{ bundle: JSON.stringify(FLAGS_BUNDLE) }, /BUNDLE_UNSIGNED/],
    [{ bundle: "{", allowUnsigned: true }, /BUNDLE_PARSE_ERROR/],
    [{ bundle: signed, verify, maxFileBytes: 100 }, /BUNDLE_TOO_LARGE/],
  ];
  for (const [options, code] of cases) {
    const domain = `web-${++domains}`;
    await assert.rejects(
      OpenFeature.setProviderAndWait(domain, createWebOpenFeatureProvider(options)),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "PROVIDER_FATAL");
        assert.match(error.message, /^the policy bundle did not load: /);
        assert.match(error.message, code);
        return true;
      },
    );
    const flags = OpenFeature.getClient(domain);
    assert.equal(flags.providerStatus, ProviderStatus.FATAL);
    assert.equal(flags.getBooleanDetails("shop/cart/checkout", true).errorCode, "PROVIDER_FATAL");
  }
  await OpenFeature.close();
});

test("a failed request puts the provider in ERROR, with the code: 404, 401, 503, refused, too large", async () => {
  await using origin = serve((request) => {
    const status = Number(new URL(request.url).searchParams.get("status") ?? 200);
    return status === 200
      ? new Response(signed, { headers: { "content-length": String(signed.length) } })
      : new Response("no", { status });
  });
  const closed = serve(() => new Response(""));
  const refusedUrl = closed.url;
  await closed[Symbol.asyncDispose]();
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [`${origin.url}?status=404`, {}, /^REMOTE_NOT_FOUND: the bundle at ".*" answered HTTP 404/],
    [`${origin.url}?status=401`, {}, /^REMOTE_UNAUTHORIZED: /],
    [`${origin.url}?status=503`, {}, /^REMOTE_UNAVAILABLE: /],
    [refusedUrl, {}, /^REMOTE_UNAVAILABLE: cannot fetch the bundle at ".*": connection refused/],
    [
      origin.url,
      { maxFileBytes: 1000 },
      /^BUNDLE_TOO_LARGE: the bundle at ".*" declares \d+ bytes/,
    ],
  ];
  for (const [url, extra, message] of cases) {
    const domain = `web-${++domains}`;
    await assert.rejects(
      OpenFeature.setProviderAndWait(
        domain,
        createWebOpenFeatureProvider({ url, verify, ...extra }),
      ),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "GENERAL");
        assert.match(error.message, message);
        assert.ok((error as { cause?: unknown }).cause instanceof PolicyError);
        return true;
      },
    );
    const flags = OpenFeature.getClient(domain);
    assert.equal(flags.providerStatus, ProviderStatus.ERROR);
    const details = flags.getBooleanDetails("shop/cart/checkout", true);
    assert.deepEqual([details.value, details.errorCode], [true, "PROVIDER_NOT_READY"]);
  }
  await OpenFeature.close();
});

test("options are checked at creation: exactly one of url and bundle, each option's type", () => {
  const refused: [unknown, RegExp][] = [
    [{}, /exactly one of url .* and bundle/],
    [{ url: "/b.json", bundle: "{}" }, /exactly one of url .* and bundle/],
    [{ url: 42 }, /url must be a URL/],
    [{ bundle: 42 }, /bundle must be the bundle's bytes/],
    [{ bundle: "{}", verify: { algorithm: "RSA" } }, /verify/],
    [{ bundle: "{}", fetch: "x" }, /fetch must be a function/],
    [{ bundle: "{}", flag: {} }, /unknown option "flag"; did you mean "flags"\?/],
    [{ bundle: "{}", ownsClient: true }, /unknown option "ownsClient"/],
    [
      { bundle: "{}", verify: { algorithm: "ECDSA_SHA_256", publicKey: "x", keyID: "k" } },
      /unknown option "verify.keyID"; did you mean "verify.keyId"\?/,
    ],
  ];
  for (const [options, message] of refused) {
    assert.throws(
      () => createWebOpenFeatureProvider(options as never),
      (error: unknown) => {
        assert.ok(error instanceof PolicyError, String(error));
        assert.equal(error.code, "INVALID_OPTIONS");
        assert.match(error.message, /^createWebOpenFeatureProvider: /);
        assert.match(error.message, message);
        return true;
      },
    );
  }
});

const HOUR = 3_600_000;

/** The flags bundle, signed, with a statement issued at `issuedAt` lasting `lifetime`. */
async function withStatementText(issuedAt: number, lifetime: number, edit = {}): Promise<string> {
  return JSON.stringify({ ...await withStatement(FLAGS_BUNDLE, issuedAt, lifetime), ...edit });
}

test("freshness: past expiresAt + clockSkewMs on the injected clock, flags give the caller's default with BUNDLE_EXPIRED, and one ERROR event", async () => {
  const clock = new FakeClock();
  const bundle = await withStatementText(clock.wallNow(), HOUR);
  const provider = createWebOpenFeatureProvider({
    bundle,
    verify,
    flags: CASES.flags,
    clock,
    clockSkewMs: 30_000,
  });
  const { flags, domain } = await domainWith(provider);
  const errors: { message?: string; metadata?: Record<string, unknown> }[] = [];
  flags.addHandler(ProviderEvents.Error, (details) => void errors.push(details ?? {}));
  try {
    await OpenFeature.setContext(domain, { plan: "pro" });
    const fresh = flags.getBooleanDetails("new-checkout", false);
    assert.deepEqual([fresh.value, fresh.reason], [true, "TARGETING_MATCH"]);
    // One timer watches the expiry, on the injected clock.
    assert.equal(clock.pending, 1);
    clock.tick(HOUR + 29_999);
    assert.equal(flags.getBooleanValue("new-checkout", false), true);
    assert.equal(errors.length, 0);
    clock.tick(1);
    // Told at once, with no flag evaluated.
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message!, /^BUNDLE_EXPIRED: the bundle in force \(bundleVersion 7\)/);
    assert.equal(errors[0]!.metadata?.policyErrorCode, "BUNDLE_EXPIRED");
    assert.equal(flags.providerStatus, ProviderStatus.ERROR);
    for (const fallback of [false, true]) {
      const stale = flags.getBooleanDetails("new-checkout", fallback);
      assert.equal(stale.value, fallback, "the caller's default, never the stale answer");
      assert.equal(stale.reason, "ERROR");
      assert.equal(stale.errorCode, "GENERAL");
      assert.match(stale.errorMessage!, /^BUNDLE_EXPIRED: /);
      assert.equal(stale.flagMetadata.policyErrorCode, "BUNDLE_EXPIRED");
    }
    assert.equal(errors.length, 1, "one event, not one per evaluation");
    assert.equal(clock.pending, 0);
  } finally {
    await OpenFeature.close();
  }
});

test("freshness: closing the provider stops its expiry timer", async () => {
  const clock = new FakeClock();
  const provider = createWebOpenFeatureProvider({
    bundle: await withStatementText(clock.wallNow(), HOUR),
    verify,
    clock,
  });
  await domainWith(provider);
  assert.equal(clock.pending, 1);
  await OpenFeature.close();
  assert.equal(clock.pending, 0);
});

test("freshness: requireFreshness, a statement that does not verify or expired before load, and the options", async () => {
  const clock = new FakeClock();
  const now = clock.wallNow();
  const fatal: [Record<string, unknown>, RegExp][] = [
    [{ bundle: signed, verify, requireFreshness: true }, /BUNDLE_FRESHNESS_MISSING/],
    [
      { bundle: await withStatementText(now, HOUR, { bundleVersion: 8 }), verify },
      /BUNDLE_FRESHNESS_INVALID/,
    ],
  ];
  for (const [options, code] of fatal) {
    const domain = `web-${++domains}`;
    await assert.rejects(
      OpenFeature.setProviderAndWait(domain, createWebOpenFeatureProvider({ ...options, clock })),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "PROVIDER_FATAL");
        assert.match(error.message, code);
        return true;
      },
    );
  }
  // Expired already: the state a new statement (a reload of the page) can fix, ERROR, not FATAL.
  const domain = `web-${++domains}`;
  await assert.rejects(
    OpenFeature.setProviderAndWait(
      domain,
      createWebOpenFeatureProvider({
        bundle: await withStatementText(now - 2 * HOUR, HOUR),
        verify,
        clock,
      }),
    ),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "GENERAL");
      assert.match(
        error.message,
        /^BUNDLE_EXPIRED: the bundle \(bundleVersion 7\) has a freshness/,
      );
      return true;
    },
  );
  const flags = OpenFeature.getClient(domain);
  assert.equal(flags.providerStatus, ProviderStatus.ERROR);
  assert.equal(flags.getBooleanValue("new-checkout", true), true);
  await OpenFeature.close();
  // The options go through the one checker.
  for (
    const [bad, message] of [
      [{ requireFreshness: "yes" }, /requireFreshness must be true or false/],
      [{ clockSkewMs: -1 }, /clockSkewMs must be a number of milliseconds from 0/],
      [{ clock: {} }, /clock must be an object with now\(\), wallNow\(\)/],
      [{ clockSkew: 5 }, /unknown option "clockSkew"; did you mean "clockSkewMs"\?/],
    ] as const
  ) {
    assert.throws(
      () => createWebOpenFeatureProvider({ bundle: signed, verify, ...bad } as never),
      (error: unknown) => {
        assert.ok(error instanceof PolicyError && error.code === "INVALID_OPTIONS", String(error));
        assert.match(error.message, message);
        return true;
      },
    );
  }
});
