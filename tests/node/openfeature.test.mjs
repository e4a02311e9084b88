// The OpenFeature server provider under Node, from the npm build, with the real
// @openfeature/server-sdk installed beside it (docs/openfeature.md): every
// row of the mapping table (tests/testdata/openfeature), CONFIGURATION_CHANGED
// from a watching local client with exactly the flags that may change, STALE
// then READY from a remote client whose origin (a node:http server) stops and
// comes back, on a fake clock. And a package without the SDKs: the root and
// ./engine load, ./openfeature says what is missing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { alone, denoJson, importDependency, importPackage, testdata } from "./_package.mjs";
import { FakeClock } from "./_fake_clock.mjs";

const { OpenFeature, ProviderEvents, ProviderStatus } = await importDependency(
  "@openfeature/server-sdk",
);
const { createOpenFeatureProvider } = await importPackage("./openfeature");
const { createLocalClient, createRemoteClient } = await importPackage("./clients");
const { signBundle } = await importPackage("./verify");

const BUNDLE = testdata("openfeature/flags_bundle.json");
const { flags: FLAGS, providers: PROVIDERS, cases: CASES } = testdata("openfeature/cases.json");

let domains = 0;

async function domainWith(provider) {
  const domain = `node-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}

/** The context of a case, with its {"$date": …} values as Dates. */
function contextOf(context = {}) {
  const revive = (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    if (typeof value.$date === "string") return new Date(value.$date);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)]));
  };
  return revive(context);
}

function tempDir() {
  return mkdtempSync(join(tmpdir(), "policy-openfeature-"));
}

test("every row of the mapping table, through @openfeature/server-sdk under Node", async () => {
  const dir = tempDir();
  const bundlePath = join(dir, "bundle.json");
  writeFileSync(bundlePath, JSON.stringify(BUNDLE));
  try {
    const byProvider = new Map();
    let checksum;
    for (const name of [undefined, ...Object.keys(PROVIDERS)]) {
      const client = await createLocalClient({ bundlePath, allowUnsigned: true });
      checksum = client.status().checksum;
      const options = { flags: FLAGS, ...(name === undefined ? {} : PROVIDERS[name]) };
      byProvider.set(
        name,
        await domainWith(createOpenFeatureProvider(client, { ...options, ownsClient: true })),
      );
    }
    assert.ok(CASES.length >= 30);
    for (const c of CASES) {
      const flags = byProvider.get(c.provider);
      const method = `get${c.type[0].toUpperCase()}${c.type.slice(1)}Details`;
      const got = await flags[method](c.flag, c.default, contextOf(c.context));
      const metadata = Object.fromEntries(
        Object.entries(c.want.flagMetadata).map(([k, v]) => [k, v === "$checksum" ? checksum : v]),
      );
      assert.deepEqual(
        {
          value: got.value,
          reason: got.reason,
          variant: got.variant,
          errorCode: got.errorCode,
          flagMetadata: { ...got.flagMetadata },
        },
        {
          value: c.want.value,
          reason: c.want.reason,
          variant: c.want.variant,
          errorCode: c.want.errorCode,
          flagMetadata: metadata,
        },
        c.name,
      );
      if (c.want.errorMessage) assert.ok(got.errorMessage.includes(c.want.errorMessage), c.name);
    }
  } finally {
    await OpenFeature.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Records the events OpenFeature's client hears (after the READY a ready provider sends at once). */
function recorder(flags) {
  const events = [];
  let waiting = null;
  for (const type of Object.values(ProviderEvents)) {
    flags.addHandler(type, (details) => {
      events.push({ type, details });
      if (waiting?.type === type) waiting.resolve();
    });
  }
  assert.deepEqual(events.splice(0).map((e) => e.type), [ProviderEvents.Ready]);
  return {
    events,
    types: () => events.map((e) => e.type),
    next: (type) => new Promise((resolve) => waiting = { type, resolve }),
  };
}

test("a watching local client reloads a changed bundle: CONFIGURATION_CHANGED with exactly the changed flags", async () => {
  const dir = tempDir();
  const bundlePath = join(dir, "bundle.json");
  writeFileSync(bundlePath, JSON.stringify(BUNDLE));
  const clock = new FakeClock();
  const client = await createLocalClient({
    bundlePath,
    allowUnsigned: true,
    watch: { intervalMs: 10 },
    clock,
  });
  const flags = await domainWith(
    createOpenFeatureProvider(client, { flags: FLAGS, ownsClient: true }),
  );
  try {
    const heard = recorder(flags);
    const changed = structuredClone(BUNDLE);
    changed.bundleVersion = 8;
    // The theme's default and the page size change; nothing else does.
    changed.policies[4].defaults = { effect: "custom", customEffect: "sepia" };
    changed.policies[5].rules[0].effect = { type: "custom", value: "50" };
    const next = heard.next(ProviderEvents.ConfigurationChanged);
    writeFileSync(`${bundlePath}.new`, JSON.stringify(changed));
    renameSync(`${bundlePath}.new`, bundlePath);
    // One check of the watch: its timer fires; the check is over when it schedules the next.
    const checked = clock.nextTimer();
    clock.tick(10);
    await checked;
    await next;
    assert.deepEqual(heard.types(), [ProviderEvents.ConfigurationChanged]);
    assert.deepEqual(heard.events[0].details.flagsChanged, ["page-size", "theme"]);
    assert.equal(await flags.getStringValue("theme", "system"), "sepia");
    assert.equal(await flags.getNumberValue("page-size", 10), 50);
    assert.equal((await flags.getNumberDetails("page-size", 10)).flagMetadata.bundleVersion, 8);
  } finally {
    await OpenFeature.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a remote client whose origin stops answering: STALE, then ERROR past maxStalenessMs, then READY", async () => {
  const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const scope = { orgId: "acme", projectId: "storefront", env: "prod" };
  const body = JSON.stringify(
    await signBundle({ ...BUNDLE, ...scope }, {
      algorithm: "ECDSA_SHA_256",
      key: pair.privateKey.export({ type: "pkcs8", format: "pem" }),
      keyId: "k",
    }),
  );
  // The origin goes down and comes back on the same port: while down, it drops every connection
  // unanswered (a network failure to the client). Closing and listening again would free the
  // port for another test file to take in between.
  let up = true;
  const server = createServer((request, response) => {
    if (!up) request.socket.destroy();
    else if (request.headers["if-none-match"] === '"v1"') response.writeHead(304).end();
    else response.writeHead(200, { etag: '"v1"' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  const stop = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  const clock = new FakeClock();
  const client = await createRemoteClient({
    baseUrl: `http://127.0.0.1:${port}`,
    runtimeKey: "rk_test",
    ...scope,
    verify: {
      algorithm: "ECDSA_SHA_256",
      publicKey: pair.publicKey.export({ type: "spki", format: "pem" }),
    },
    clock,
    random: () => 0.5,
    poll: { intervalMs: 3_600_000 },
    maxBackoffMs: 3_600_000,
    maxStalenessMs: 600_000,
    onError: () => {},
  });
  const flags = await domainWith(
    createOpenFeatureProvider(client, { flags: FLAGS, ownsClient: true }),
  );
  try {
    const heard = recorder(flags);
    up = false;
    for (let i = 0; i < 3; i++) assert.equal((await client.refresh()).outcome, "failed");
    assert.deepEqual(heard.types(), [ProviderEvents.Stale]);
    assert.equal(flags.providerStatus, ProviderStatus.STALE);
    assert.equal(await flags.getBooleanValue("new-checkout", false, { plan: "pro" }), true);
    clock.tick(600_001);
    assert.deepEqual(heard.types(), [ProviderEvents.Stale, ProviderEvents.Error]);
    const failed = await flags.getBooleanDetails("new-checkout", false, { plan: "pro" });
    assert.equal(failed.errorCode, "GENERAL");
    assert.match(failed.errorMessage, /^BUNDLE_STALE: /);
    up = true;
    assert.equal((await client.refresh()).outcome, "unchanged");
    assert.deepEqual(heard.types(), [
      ProviderEvents.Stale,
      ProviderEvents.Error,
      ProviderEvents.Ready,
    ]);
    assert.equal(flags.providerStatus, ProviderStatus.READY);
  } finally {
    await OpenFeature.close();
    await stop();
  }
});

describePackageWithoutSdks();

/**
 * The package installed alone (no OpenFeature SDK: they are optional peers):
 * the root, ./engine and ./clients load, and ./openfeature fails naming the
 * SDK to install. So nothing but ./openfeature loads the SDK.
 */
function describePackageWithoutSdks() {
  const run = (source) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", source], {
      cwd: alone,
      encoding: "utf8",
    });

  test("without the OpenFeature SDKs installed, the root, ./engine and ./clients load; ./openfeature names the missing SDK", () => {
    const installed = JSON.parse(readFileSync(join(alone, "package.json"), "utf8"));
    assert.deepEqual(Object.keys(installed.dependencies), [denoJson.name]);
    const loads = run(`
      const root = await import("${denoJson.name}");
      const engine = await import("${denoJson.name}/engine");
      await import("${denoJson.name}/clients");
      console.log(typeof root.createLocalClient, typeof engine.evaluate);
    `);
    assert.equal(loads.status, 0, loads.stderr);
    assert.equal(loads.stdout.trim(), "function function");
    for (const subpath of ["openfeature", "openfeature/web"]) {
      const missing = run(`await import("${denoJson.name}/${subpath}");`);
      assert.notEqual(missing.status, 0);
      assert.match(missing.stderr, /ERR_MODULE_NOT_FOUND/);
      assert.match(missing.stderr, /Cannot find package '@openfeature\/(core|server-sdk|web-sdk)'/);
    }
  });
}
