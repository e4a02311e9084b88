// createOpenFeatureProvider with the real @openfeature/server-sdk: every row of
// the mapping table (docs/openfeature.md) over a local and a remote client,
// the Value and Details methods, the failures that fail closed, hooks, the
// provider's life (initialize, a client promise, onClose, ownsClient) and its
// options. Events have their own file (events_test.ts).
import assert from "node:assert/strict";
import {
  type Client,
  type EvaluationDetails,
  type FlagValue,
  type Hook,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
} from "@openfeature/server-sdk";
import { OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import {
  createLocalClient,
  createRemoteClient,
  type PolicyClient,
  PolicyError,
  signBundle,
} from "../../mod.ts";
import {
  createOpenFeatureProvider,
  type OpenFeatureServerProvider,
  PROVIDER_NAME,
} from "../../src/openfeature/mod.ts";
import { createWebOpenFeatureProvider } from "../../src/openfeature/create_web_open_feature_provider.ts";
import { FakeClock } from "../_fake_clock.ts";
import { DRIVEN_BY_REFRESH, ecdsa, remoteOptions } from "../clients/_remote_fixtures.ts";
import { answer, ok, StubFetch } from "../clients/_stub_fetch.ts";
import {
  assertCase,
  CASES,
  contextOf,
  type Details,
  detailsMethod,
  FLAGS_BUNDLE,
  FLAGS_BUNDLE_PATH,
  providerOptions,
} from "./_cases.ts";

const CHECKOUT = { service: "shop", resource: "cart", action: "checkout" };

/** The signed flags bundle, as the control plane serves it. */
const SIGNED = JSON.stringify(
  await signBundle(FLAGS_BUNDLE, { algorithm: "ECDSA_SHA_256", key: ecdsa.privateKey, keyId: "k" }),
);

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: true, sanitizeResources: true, fn });
}

let domains = 0;

/**
 * Sets `provider` for a fresh OpenFeature domain and returns its client;
 * `close()` then closes the provider (OpenFeature's own clean-up).
 */
async function domainWith(provider: OpenFeatureServerProvider) {
  const domain = `openfeature-test-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}

function localClient(extra: Record<string, unknown> = {}) {
  return createLocalClient({ bundlePath: FLAGS_BUNDLE_PATH, allowUnsigned: true, ...extra });
}

function remoteClient(extra: Record<string, unknown> = {}) {
  const clock = new FakeClock();
  const stub = new StubFetch(ok(SIGNED, '"v1"'), answer(304));
  const client = createRemoteClient(remoteOptions("https://flags.test", {
    clock,
    fetch: stub.fetch,
    ...DRIVEN_BY_REFRESH,
    ...extra,
  }));
  return { clock, stub, client };
}

/** Runs every case against providers over clients `make` creates (one per provider options). */
async function runCases(make: () => Promise<PolicyClient>): Promise<void> {
  const flagClients = new Map<string | undefined, Client>();
  let checksum = "";
  for (const name of [undefined, ...Object.keys(CASES.providers)]) {
    const client = await make();
    checksum = client.status().checksum;
    flagClients.set(
      name,
      await domainWith(createOpenFeatureProvider(client, {
        ...providerOptions(name),
        ownsClient: true,
      })),
    );
  }
  try {
    assert.ok(CASES.cases.length >= 30);
    for (const c of CASES.cases) {
      const client = flagClients.get(c.provider)!;
      const method = client[detailsMethod(c.type) as "getBooleanDetails"] as (
        ...args: unknown[]
      ) => Promise<EvaluationDetails<FlagValue>>;
      const details = await method.call(client, c.flag, c.default, contextOf(c.context));
      assertCase(c, details as Details, checksum);
      assert.equal(details.flagKey, c.flag);
    }
  } finally {
    await OpenFeature.close();
  }
}

test("every row of the mapping table, type, reason and error code, over a local client", async () => {
  await runCases(() => localClient());
});

test("every row of the mapping table over a remote client", async () => {
  await runCases(() => remoteClient().client);
});

test("getBooleanValue and getObjectValue give the values getBooleanDetails and getObjectDetails carry", async () => {
  await using local = await localClient();
  const flags = await domainWith(createOpenFeatureProvider(local, { flags: CASES.flags }));
  try {
    const boolean = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.deepEqual(
      { value: boolean.value, reason: boolean.reason, variant: boolean.variant },
      { value: true, reason: "TARGETING_MATCH", variant: "paid-plans" },
    );
    assert.equal(await flags.getBooleanValue("new-checkout", false, { plan: "pro" }), true);
    assert.equal(await flags.getBooleanValue("new-checkout", true, { plan: "free" }), false);
    const object = await flags.getObjectDetails("layout", {});
    assert.deepEqual(object.value, { columns: 3, dense: true, panels: ["cart", "recent"] });
    assert.deepEqual(await flags.getObjectValue("layout", {}), object.value);
    // Each resolution gets its own parsed object: changing one changes no other.
    (object.value as Record<string, unknown>).columns = 1;
    assert.equal(((await flags.getObjectValue("layout", {})) as { columns: number }).columns, 3);
    assert.equal(await flags.getStringValue("theme", "system"), "light");
    assert.equal(await flags.getNumberValue("page-size", 10), 25);
    // An error gives the caller's default: fail-closed only when the default is.
    assert.equal(await flags.getBooleanValue("no-such-flag", true), true);
    assert.equal(await flags.getBooleanValue("no-such-flag", false), false);
  } finally {
    await OpenFeature.close();
  }
});

test("the client's contextPolicy applies: a key outside allowedKeys is INVALID_CONTEXT", async () => {
  await using local = await localClient({ contextPolicy: { allowedKeys: ["plan", "region"] } });
  const flags = await domainWith(createOpenFeatureProvider(local, { flags: CASES.flags }));
  try {
    const allowed = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.equal(allowed.value, true);
    const refused = await flags.getBooleanDetails("new-checkout", false, {
      plan: "pro",
      email: "a@example.com",
    });
    assert.equal(refused.errorCode, "INVALID_CONTEXT");
    assert.equal(refused.value, false);
    assert.match(refused.errorMessage!, /^CONTEXT_KEY_NOT_ALLOWED: context key "email"/);
    assert.equal(refused.flagMetadata.policyErrorCode, "CONTEXT_KEY_NOT_ALLOWED");
    // A targetingKey is a key like any other.
    const targeted = await flags.getBooleanDetails("new-checkout", false, {
      plan: "pro",
      targetingKey: "user-1",
    });
    assert.equal(targeted.errorCode, "INVALID_CONTEXT");
  } finally {
    await OpenFeature.close();
  }
});

test("BUNDLE_STALE is GENERAL with the code in the message, the caller's default, and ERROR until a poll succeeds", async () => {
  const { clock, stub, client } = remoteClient({ maxStalenessMs: 60_000 });
  const remote = await client;
  const flags = await domainWith(createOpenFeatureProvider(remote, {
    flags: CASES.flags,
    ownsClient: true,
  }));
  try {
    const seen: string[] = [];
    for (const event of [ProviderEvents.Error, ProviderEvents.Ready, ProviderEvents.Stale]) {
      flags.addHandler(event, (details) => void seen.push(`${event}: ${details?.message}`));
    }
    // A READY handler runs at once when the provider is ready already.
    assert.deepEqual(seen.splice(0), ["PROVIDER_READY: undefined"]);
    stub.script(answer(503));
    clock.tick(60_001);
    // The client noticed on its clock: ERROR before any evaluation.
    assert.equal(seen.length, 1);
    assert.match(seen[0]!, /^PROVIDER_ERROR: BUNDLE_STALE: /);
    assert.equal(flags.providerStatus, ProviderStatus.ERROR);
    const details = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.equal(details.value, false);
    assert.equal(details.reason, "ERROR");
    assert.equal(details.errorCode, "GENERAL");
    assert.match(details.errorMessage!, /^BUNDLE_STALE: the bundle in force was last confirmed/);
    assert.equal(details.flagMetadata.policyErrorCode, "BUNDLE_STALE");
    assert.equal(await flags.getBooleanValue("new-checkout", true, { plan: "free" }), true);
    stub.script(answer(304));
    await remote.refresh();
    assert.equal(flags.providerStatus, ProviderStatus.READY);
    assert.deepEqual(seen.slice(1), ["PROVIDER_READY: the policy client recovered"]);
    assert.equal(await flags.getBooleanValue("new-checkout", false, { plan: "pro" }), true);
  } finally {
    await OpenFeature.close();
  }
});

/**
 * A client whose evaluate fails closed with `BUNDLE_EXPIRED` while `expired`
 * is set, as issue 25's expiry check will make the clients do (the provider
 * knows the code by its string); the rest is a real local client.
 */
function expiring(client: PolicyClient) {
  const state = { expired: false };
  const wrapped: PolicyClient = {
    evaluate: (request) => {
      if (state.expired) {
        throw new PolicyError(
          "BUNDLE_EXPIRED" as never,
          "the bundle in force expired at 2026-11-21T09:00:00.000Z",
        );
      }
      return client.evaluate(request);
    },
    status: () => client.status(),
    subscribe: (listener) => client.subscribe(listener),
    close: () => client.close(),
    [Symbol.asyncDispose]: () => client.close(),
  };
  return { state, client: wrapped };
}

test("BUNDLE_EXPIRED, matched by its string, fails closed like BUNDLE_STALE: GENERAL, ERROR once", async () => {
  const { state, client } = expiring(await localClient());
  const flags = await domainWith(createOpenFeatureProvider(client, {
    flags: CASES.flags,
    ownsClient: true,
  }));
  try {
    const errors: unknown[] = [];
    flags.addHandler(ProviderEvents.Error, (details) => void errors.push(details?.message));
    state.expired = true;
    for (let i = 0; i < 3; i++) {
      const details = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
      assert.equal(details.errorCode, "GENERAL");
      assert.match(details.errorMessage!, /^BUNDLE_EXPIRED: the bundle in force expired/);
    }
    assert.deepEqual(errors, [
      "BUNDLE_EXPIRED: the bundle in force expired at 2026-11-21T09:00:00.000Z; flags resolve to their defaults until it recovers",
    ]);
    assert.equal(flags.providerStatus, ProviderStatus.ERROR);
  } finally {
    await OpenFeature.close();
  }
});

test("an unexpected throw from evaluate is GENERAL: a resolve method never rejects", async () => {
  const local = await localClient();
  const broken: PolicyClient = {
    evaluate: () => {
      throw new TypeError("something broke");
    },
    status: () => local.status(),
    subscribe: (listener) => local.subscribe(listener),
    close: () => local.close(),
    [Symbol.asyncDispose]: () => local.close(),
  };
  const provider = createOpenFeatureProvider(broken, { ownsClient: true });
  await provider.initialize!();
  const details = await provider.resolveBooleanEvaluation("shop/cart/checkout", true, {}, console);
  assert.equal(details.errorCode, "GENERAL");
  assert.equal(details.value, true);
  assert.match(details.errorMessage!, /TypeError: something broke/);
  await provider.onClose!();
});

test("a logging hook sees reason, variant and flag metadata; an error hook sees the code", async () => {
  await using local = await localClient();
  const flags = await domainWith(createOpenFeatureProvider(local, { flags: CASES.flags }));
  const log: Record<string, unknown>[] = [];
  const logging: Hook = {
    after: (context, details) =>
      void log.push({
        stage: "after",
        flag: context.flagKey,
        provider: context.providerMetadata.name,
        reason: details.reason,
        variant: details.variant,
        metadata: { ...details.flagMetadata },
      }),
    error: (context, error) =>
      void log.push({
        stage: "error",
        flag: context.flagKey,
        code: (error as { code?: string }).code,
      }),
    finally: (context, details) =>
      void log.push({ stage: "finally", flag: context.flagKey, reason: details.reason }),
  };
  flags.addHooks(logging);
  try {
    await flags.getBooleanValue("search-limits", false, { tenant: "acme" });
    await flags.getStringValue("new-checkout", "off", { plan: "pro" });
    const { checksum } = local.status();
    assert.deepEqual(log, [
      {
        stage: "after",
        flag: "search-limits",
        provider: PROVIDER_NAME,
        reason: "TARGETING_MATCH",
        variant: "per-tenant",
        metadata: {
          checksum,
          bundleVersion: 7,
          decision: "throttle",
          policyKey: "shop.search",
          ruleId: "per-tenant",
          throttleLimit: 10,
          throttleWindowSeconds: 60,
          throttleKey: "tenant",
        },
      },
      { stage: "finally", flag: "search-limits", reason: "TARGETING_MATCH" },
      { stage: "error", flag: "new-checkout", code: "TYPE_MISMATCH" },
      { stage: "finally", flag: "new-checkout", reason: "ERROR" },
    ]);
  } finally {
    await OpenFeature.close();
  }
});

test("onClose closes the client the provider owns, and only that one", async () => {
  for (const ownsClient of [true, false]) {
    const { client } = remoteClient();
    const remote = await client;
    await domainWith(createOpenFeatureProvider(remote, { ownsClient }));
    assert.notEqual(remote.status().nextPollAt, null);
    await OpenFeature.close();
    assert.equal(remote.status().nextPollAt === null, ownsClient, `ownsClient: ${ownsClient}`);
    await remote.close();
  }
});

test("a provider given the promise of a client is READY when it resolves, FATAL when it rejects", async () => {
  // The promise of a client that is still starting.
  const flags = await domainWith(
    createOpenFeatureProvider(localClient(), { flags: CASES.flags, ownsClient: true }),
  );
  assert.equal(flags.providerStatus, ProviderStatus.READY);
  assert.equal(await flags.getBooleanValue("new-checkout", false, { plan: "pro" }), true);
  await OpenFeature.close();

  const failing = createLocalClient({ bundlePath: "./no-such-bundle.json", allowUnsigned: true });
  const domain = `openfeature-test-${++domains}`;
  await assert.rejects(
    OpenFeature.setProviderAndWait(domain, createOpenFeatureProvider(failing)),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "PROVIDER_FATAL");
      assert.match(error.message, /the policy client could not be created: BUNDLE_READ_ERROR: /);
      return true;
    },
  );
  const fatal = OpenFeature.getClient(domain);
  assert.equal(fatal.providerStatus, ProviderStatus.FATAL);
  const details = await fatal.getBooleanDetails("shop/cart/checkout", true);
  assert.equal(details.errorCode, "PROVIDER_FATAL");
  assert.equal(details.value, true);
  await OpenFeature.close();
});

test("before initialize a resolve method answers PROVIDER_NOT_READY", async () => {
  await using local = await localClient();
  const provider = createOpenFeatureProvider(local);
  const details = await provider.resolveStringEvaluation("ui/theme/pick", "x", {}, console);
  assert.equal(details.errorCode, "PROVIDER_NOT_READY");
  assert.equal(details.value, "x");
});

test("the server provider runs on servers only, the web provider in browsers only", async () => {
  await using local = await localClient();
  const server = createOpenFeatureProvider(local);
  assert.equal(server.runsOn, "server");
  assert.equal(server.metadata.name, "@policy/runtime");
  assert.throws(
    () => WebOpenFeature.setProvider(server as never),
    /intended for use on the server/,
  );
  const web = createWebOpenFeatureProvider({ bundle: "{}", allowUnsigned: true });
  assert.throws(() => OpenFeature.setProvider(web as never), /intended for use on the client/);
});

test("options are checked at creation: INVALID_OPTIONS, naming the option", async () => {
  await using local = await localClient();
  const refused: [unknown, unknown, RegExp][] = [
    [local, { flag: {} }, /unknown option "flag"; did you mean "flags"\?/],
    [local, { flags: { x: { service: "a", resource: "b" } } }, /flags\["x"\] must be a target/],
    [local, { flags: { x: { service: "a", resource: "b", action: "" } } }, /must be a target/],
    [local, { flags: [] }, /flags must be an object of flag keys/],
    [local, { targetingKey: "" }, /targetingKey must be a non-empty string/],
    [local, { ownsClient: "yes" }, /ownsClient must be true or false/],
    [local, null, /options must be an object/],
    [{ evaluate() {} }, {}, /client must be a local or remote client/],
    [local.evaluate({ target: CHECKOUT }), {}, /client must be a local or remote client/],
  ];
  for (const [client, options, message] of refused) {
    assert.throws(
      () => createOpenFeatureProvider(client as PolicyClient, options as never),
      (error: unknown) => {
        assert.ok(error instanceof PolicyError, String(error));
        assert.equal(error.code, "INVALID_OPTIONS");
        assert.match(error.message, /^createOpenFeatureProvider: /);
        assert.match(error.message, message);
        return true;
      },
    );
  }
  // A flag named like an Object.prototype member resolves only when mapped.
  const provider = createOpenFeatureProvider(local, { flags: { constructor: CHECKOUT } });
  await provider.initialize!();
  const mapped = await provider.resolveBooleanEvaluation(
    "constructor",
    false,
    { plan: "pro" },
    console,
  );
  assert.equal(mapped.value, true);
  const unmapped = await provider.resolveBooleanEvaluation("toString", false, {}, console);
  assert.equal(unmapped.errorCode, "FLAG_NOT_FOUND");
  await provider.onClose!();
});
