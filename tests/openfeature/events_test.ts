// The server provider's events with the real @openfeature/server-sdk
// (docs/openfeature.md "Events"): a watching local client reloads a changed
// bundle and OpenFeature hears CONFIGURATION_CHANGED with exactly the flags
// that may change; a remote client whose origin (a real HTTP server on
// 127.0.0.1) stops makes the provider STALE, then ERROR once the bundle is
// too old to use, and READY again when the origin is back. Time is the
// remote client's fake clock; polls are driven by refresh().
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  type EventDetails,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
} from "@openfeature/server-sdk";
import {
  createLocalClient,
  createRemoteClient,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { createOpenFeatureProvider } from "../../src/openfeature/mod.ts";

import { freePort } from "../_loopback.ts";
import { FakeClock } from "../_fake_clock.ts";
import {
  DRIVEN_BY_REFRESH,
  ecdsa,
  remoteOptions,
  SCOPE,
  withStatement,
} from "../clients/_remote_fixtures.ts";
import { writeAtomic } from "../clients/_helpers.ts";
import { CASES, FLAGS_BUNDLE } from "./_cases.ts";

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: true, sanitizeResources: true, fn });
}

let domains = 0;

/** Records the provider events OpenFeature's client `flags` hears, by type. */
function recorder(flags: ReturnType<typeof OpenFeature.getClient>) {
  const events: { type: string; details?: EventDetails }[] = [];
  let waiting: { type: string; resolve: () => void } | null = null;
  for (
    const type of [
      ProviderEvents.Ready,
      ProviderEvents.ConfigurationChanged,
      ProviderEvents.Stale,
      ProviderEvents.Error,
    ]
  ) {
    flags.addHandler(type, (details) => {
      events.push({ type, ...(details !== undefined && { details }) });
      if (waiting?.type === type) waiting.resolve();
    });
  }
  // A READY handler runs at once when the provider is ready already.
  assert.deepEqual(events.splice(0).map((e) => e.type), [ProviderEvents.Ready]);
  return {
    events,
    types: () => events.map((e) => e.type),
    /** Resolves at the next event of `type`. */
    next: (type: string) => new Promise<void>((resolve) => waiting = { type, resolve }),
  };
}

/** The flags bundle changed: the checkout condition, the search limit, a new target. */
function changedBundle(version: number): RuntimeBundleV1 {
  const bundle = structuredClone(FLAGS_BUNDLE);
  bundle.bundleVersion = version;
  const [checkout, search] = bundle.policies;
  checkout!.rules[0]!.when = { op: "in", path: "ctx.plan", values: ["pro", "team", "trial"] };
  search!.rules[0]!.effect = {
    type: "throttle",
    throttle: { limit: 20, windowSeconds: 60, key: "tenant" },
  };
  search!.rules.push({
    id: "wishlist",
    status: "active",
    priority: 1,
    target: { service: "shop", resource: "wishlist", action: "add" },
    effect: { type: "allow" },
  });
  return bundle;
}

test("a watching local client reloads a changed bundle: CONFIGURATION_CHANGED with exactly the flags that may change", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, JSON.stringify(FLAGS_BUNDLE));
    const clock = new FakeClock();
    const client = await createLocalClient({
      bundlePath: path,
      allowUnsigned: true,
      watch: { intervalMs: 10 },
      clock,
    });
    /** One check of the watch: its timer fires and the check runs to its end. */
    const check = async () => {
      const scheduled = clock.nextTimer();
      clock.tick(10);
      await scheduled;
    };
    const domain = `events-${++domains}`;
    await OpenFeature.setProviderAndWait(
      domain,
      createOpenFeatureProvider(client, { flags: CASES.flags, ownsClient: true }),
    );
    const flags = OpenFeature.getClient(domain);
    try {
      const heard = recorder(flags);
      let changed = heard.next(ProviderEvents.ConfigurationChanged);
      await writeAtomic(path, JSON.stringify(changedBundle(8)));
      await check();
      await changed;
      assert.deepEqual(heard.types(), [ProviderEvents.ConfigurationChanged]);
      const details = heard.events[0]!.details!;
      // Mapped flags by their names, an unmapped target by service/resource/action;
      // the ten other flags and targets of the bundle are untouched.
      assert.deepEqual(details.flagsChanged, [
        "new-checkout",
        "search-limits",
        "shop/wishlist/add",
      ]);
      assert.equal(details.metadata?.bundleVersion, 8);
      assert.equal(details.metadata?.checksum, client.status().checksum);
      assert.notEqual(details.metadata?.previousChecksum, details.metadata?.checksum);
      assert.equal(details.providerName, "@policy/runtime");
      // The next resolution names the new bundle and decides with it.
      const trial = await flags.getBooleanDetails("new-checkout", false, { plan: "trial" });
      assert.equal(trial.value, true);
      assert.equal(trial.flagMetadata.bundleVersion, 8);
      assert.equal(trial.flagMetadata.checksum, client.status().checksum);
      assert.equal(
        (await flags.getBooleanDetails("search-limits", false)).flagMetadata.throttleLimit,
        20,
      );

      // The same rules under a new bundleVersion: a reload, and no flag changed.
      changed = heard.next(ProviderEvents.ConfigurationChanged);
      await writeAtomic(path, JSON.stringify(changedBundle(9)));
      await check();
      await changed;
      assert.deepEqual(heard.events[1]!.details!.flagsChanged, []);
      assert.equal(flags.providerStatus, ProviderStatus.READY);
    } finally {
      await OpenFeature.close();
    }
  });
});

/** An origin on a fixed loopback port that can be stopped and started again. */
class Origin {
  readonly port = freePort();
  readonly body: string;
  #server: Deno.HttpServer | null = null;

  constructor(body: string) {
    this.body = body;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  start(): void {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: this.port, onListen() {} },
      (request) =>
        request.headers.get("if-none-match") === '"v1"'
          ? new Response(null, { status: 304 })
          : new Response(this.body, { headers: { etag: '"v1"' } }),
    );
  }

  async stop(): Promise<void> {
    await this.#server?.shutdown();
    this.#server = null;
  }
}

async function remoteFlags(origin: Origin, extra: Record<string, unknown> = {}) {
  const clock = new FakeClock();
  const client = await createRemoteClient(remoteOptions(origin.url, {
    clock,
    ...DRIVEN_BY_REFRESH,
    ...extra,
  }));
  const domain = `events-${++domains}`;
  await OpenFeature.setProviderAndWait(
    domain,
    createOpenFeatureProvider(client, { flags: CASES.flags, ownsClient: true }),
  );
  return { clock, client, flags: OpenFeature.getClient(domain) };
}

const signed = JSON.stringify(
  await signBundle({ ...FLAGS_BUNDLE, ...SCOPE }, {
    algorithm: "ECDSA_SHA_256",
    key: ecdsa.privateKey,
    keyId: "k",
  }),
);

test("a remote client against a stopped origin: STALE after the third failed poll, READY after recovery", async () => {
  const origin = new Origin(signed);
  origin.start();
  const { client, flags } = await remoteFlags(origin);
  try {
    const heard = recorder(flags);
    await origin.stop();
    for (let i = 1; i <= 3; i++) {
      const result = await client.refresh();
      assert.equal(result.outcome, "failed");
      assert.equal(result.error?.code, "REMOTE_UNAVAILABLE");
      assert.deepEqual(heard.types(), i < 3 ? [] : [ProviderEvents.Stale], `after poll ${i}`);
    }
    assert.equal(flags.providerStatus, ProviderStatus.STALE);
    assert.match(heard.events[0]!.details!.message!, /degraded \(REMOTE_UNAVAILABLE\)/);
    // Stale, not failed: flags still resolve from the last verified bundle.
    const details = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.deepEqual([details.value, details.reason], [true, "TARGETING_MATCH"]);
    origin.start();
    const result = await client.refresh();
    assert.equal(result.outcome, "unchanged");
    assert.deepEqual(heard.types(), [ProviderEvents.Stale, ProviderEvents.Ready]);
    assert.equal(flags.providerStatus, ProviderStatus.READY);
  } finally {
    await OpenFeature.close();
    await origin.stop();
  }
});

test("with maxStalenessMs: STALE, then ERROR when the bundle is too old to use (on the client's clock), then READY", async () => {
  const origin = new Origin(signed);
  origin.start();
  const { clock, client, flags } = await remoteFlags(origin, { maxStalenessMs: 600_000 });
  try {
    const heard = recorder(flags);
    await origin.stop();
    for (let i = 0; i < 3; i++) await client.refresh();
    assert.deepEqual(heard.types(), [ProviderEvents.Stale]);
    clock.tick(600_000);
    assert.deepEqual(heard.types(), [ProviderEvents.Stale]);
    clock.tick(1);
    assert.deepEqual(heard.types(), [ProviderEvents.Stale, ProviderEvents.Error]);
    assert.match(heard.events[1]!.details!.message!, /^BUNDLE_STALE: /);
    assert.equal(flags.providerStatus, ProviderStatus.ERROR);
    const details = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.deepEqual([details.value, details.errorCode], [false, "GENERAL"]);
    origin.start();
    await client.refresh();
    assert.deepEqual(heard.types(), [
      ProviderEvents.Stale,
      ProviderEvents.Error,
      ProviderEvents.Ready,
    ]);
    assert.equal(await flags.getBooleanValue("new-checkout", false, { plan: "pro" }), true);
  } finally {
    await OpenFeature.close();
    await origin.stop();
  }
});

test("a remote client degraded already when the provider starts: READY, then STALE right after", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/cache.json`;
    await Deno.writeTextFile(cachePath, signed);
    const origin = new Origin(signed); // never started: the client starts from its cache
    const client = await createRemoteClient(remoteOptions(origin.url, {
      clock: new FakeClock(),
      cachePath,
      onError: () => {},
    }));
    assert.equal(client.status().degraded, true);
    const domain = `events-${++domains}`;
    const order: string[] = [];
    OpenFeature.getClient(domain).addHandler(ProviderEvents.Ready, () => void order.push("READY"));
    OpenFeature.getClient(domain).addHandler(ProviderEvents.Stale, () => void order.push("STALE"));
    await OpenFeature.setProviderAndWait(
      domain,
      createOpenFeatureProvider(client, { ownsClient: true }),
    );
    await Promise.resolve();
    try {
      assert.deepEqual(order, ["READY", "STALE"]);
      assert.equal(OpenFeature.getClient(domain).providerStatus, ProviderStatus.STALE);
    } finally {
      await OpenFeature.close();
    }
  });
});

/** A watching local client of `path` (ECDSA-verified) behind a provider, on a fake clock. */
async function watchedFlags(path: string, clock: FakeClock) {
  const errors: string[] = [];
  const client = await createLocalClient({
    bundlePath: path,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: ecdsa.publicKeyPem },
    watch: { intervalMs: 10 },
    clock,
    clockSkewMs: 0,
    onError: (error) => void errors.push(error.code),
  });
  const domain = `events-${++domains}`;
  await OpenFeature.setProviderAndWait(
    domain,
    createOpenFeatureProvider(client, { flags: CASES.flags, ownsClient: true }),
  );
  const flags = OpenFeature.getClient(domain);
  /** One check of the watch: its timer fires and the check runs to its end. */
  const check = async () => {
    const scheduled = clock.nextTimer();
    clock.tick(10);
    await scheduled;
  };
  return { client, flags, errors, check };
}

const KEY = { algorithm: "ECDSA_SHA_256" as const, key: ecdsa.privateKey, keyId: "k" };

test("a reload that fails (garbage, a tampered bundle on disk) makes the provider STALE with the code; the last good bundle answers; a good bundle brings CONFIGURATION_CHANGED and READY", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, JSON.stringify(await signBundle(FLAGS_BUNDLE, KEY)));
    const clock = new FakeClock();
    const { client, flags, errors, check } = await watchedFlags(path, clock);
    try {
      const heard = recorder(flags);
      const good = { plan: "pro" };
      const answer = async () => (await flags.getBooleanDetails("new-checkout", false, good));

      // Garbage on disk.
      let stale = heard.next(ProviderEvents.Stale);
      await writeAtomic(path, "{ not json");
      await check();
      await stale;
      assert.deepEqual(errors, ["BUNDLE_PARSE_ERROR"]);
      assert.deepEqual(heard.types(), [ProviderEvents.Stale]);
      assert.match(heard.events[0]!.details!.message!, /^BUNDLE_PARSE_ERROR: /);
      assert.equal(heard.events[0]!.details!.metadata?.policyErrorCode, "BUNDLE_PARSE_ERROR");
      assert.equal(flags.providerStatus, ProviderStatus.STALE);
      // The last good bundle keeps answering.
      assert.deepEqual(
        [(await answer()).value, (await answer()).reason],
        [true, "TARGETING_MATCH"],
      );

      // A tampered bundle: signed, then a rule changed.
      const tampered = await signBundle(changedBundle(8), KEY);
      tampered.policies[0]!.rules[0]!.priority = 99;
      stale = heard.next(ProviderEvents.Stale);
      await writeAtomic(path, JSON.stringify(tampered));
      await check();
      await stale;
      assert.deepEqual(errors, ["BUNDLE_PARSE_ERROR", "CHECKSUM_MISMATCH"]);
      assert.match(heard.events[1]!.details!.message!, /^CHECKSUM_MISMATCH: /);
      assert.equal(heard.events[1]!.details!.metadata?.policyErrorCode, "CHECKSUM_MISMATCH");
      assert.equal((await answer()).value, true);
      assert.equal(client.status().bundleVersion, 7);

      // A good bundle again.
      const ready = heard.next(ProviderEvents.Ready);
      await writeAtomic(path, JSON.stringify(await signBundle(changedBundle(8), KEY)));
      await check();
      await ready;
      assert.deepEqual(heard.types(), [
        ProviderEvents.Stale,
        ProviderEvents.Stale,
        ProviderEvents.ConfigurationChanged,
        ProviderEvents.Ready,
      ]);
      assert.equal(flags.providerStatus, ProviderStatus.READY);
      assert.equal(
        (await flags.getBooleanDetails("new-checkout", false, { plan: "trial" })).value,
        true,
      );
    } finally {
      await OpenFeature.close();
    }
  });
});

test("the statement in force expires: ERROR with BUNDLE_EXPIRED at once, with no flag evaluated; a renewed statement brings READY", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/bundle.json`;
    const clock = new FakeClock();
    const issued = async (at: number) =>
      JSON.stringify(await withStatement(FLAGS_BUNDLE, at, 60_000));
    await Deno.writeTextFile(path, await issued(clock.wallNow()));
    const { flags, check } = await watchedFlags(path, clock);
    try {
      const heard = recorder(flags);
      const error = heard.next(ProviderEvents.Error);
      clock.tick(60_000);
      await error;
      assert.deepEqual(heard.types(), [ProviderEvents.Error]);
      assert.match(heard.events[0]!.details!.message!, /^BUNDLE_EXPIRED: /);
      assert.equal(heard.events[0]!.details!.metadata?.policyErrorCode, "BUNDLE_EXPIRED");
      const details = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
      assert.deepEqual([details.value, details.errorCode], [false, "GENERAL"]);
      assert.equal(heard.events.length, 1);
      // The re-issue job writes a fresh statement for the same bundle.
      while (clock.pending === 0) await clock.nextTimer();
      const ready = heard.next(ProviderEvents.Ready);
      await writeAtomic(path, await issued(clock.wallNow()));
      await check();
      await ready;
      assert.deepEqual(heard.types(), [
        ProviderEvents.Error,
        ProviderEvents.ConfigurationChanged,
        ProviderEvents.Ready,
      ]);
      assert.equal(
        (await flags.getBooleanDetails("new-checkout", false, { plan: "pro" })).value,
        true,
      );
    } finally {
      await OpenFeature.close();
    }
  });
});
