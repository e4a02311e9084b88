// The web OpenFeature provider in a real browser: headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) loads a page that bundles
// @openfeature/web-sdk and the installed package's ./openfeature/web with
// esbuild. The page fetches the signed bundle, verifies it with WebCrypto and
// resolves every row of the mapping table (tests/testdata/openfeature) through
// the SDK, with a logging hook. Every request the page makes is answered by
// page.route, and recorded: nothing leaves the page but the page's own files.
// On a host that is not a secure context (no WebCrypto) the provider is FATAL
// with WEBCRYPTO_UNAVAILABLE. A second page loads a bundle with a freshness
// statement and steps a clock of its own past expiresAt: flags fall back to
// the caller's default with BUNDLE_EXPIRED and the SDK hears ERROR.
//
// Needs /usr/bin/chromium (.ci/run installs it): the tests skip, saying so,
// when it is missing.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { denoJson, importPackage, scratch, scratchRequire, testdata } from "./_package.mjs";

const CHROMIUM = "/usr/bin/chromium";
const SECURE = "http://127.0.0.1:8790";
const INSECURE = "http://policy.test:8790";
/** How long a page may take to report (a cold Chromium start included). */
const DEADLINE_MS = 60_000;

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

/** The page's script: every case through the web SDK, then a report on window.__report. */
const PAGE_SCRIPT = `
import { OpenFeature } from "@openfeature/web-sdk";
import { createWebOpenFeatureProvider } from "${denoJson.name}/openfeature/web";

const revive = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  if (typeof value.$date === "string") return new Date(value.$date);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)]));
};
const report = { secure: globalThis.isSecureContext, results: [], hooked: [] };
try {
  const { flags, providers, cases } = await (await fetch("/cases.json")).json();
  const publicKey = await (await fetch("/public-key.pem")).text();
  const verify = { algorithm: "ECDSA_SHA_256", publicKey };
  OpenFeature.addHooks({
    after: (context, details) => {
      report.hooked.push({
        flag: context.flagKey,
        reason: details.reason,
        variant: details.variant,
        metadata: { ...details.flagMetadata },
      });
    },
  });
  for (const name of [undefined, ...Object.keys(providers)]) {
    const domain = name ?? "default";
    const options = { url: "/bundle.json", verify, flags, ...(name ? providers[name] : {}) };
    try {
      await OpenFeature.setProviderAndWait(domain, createWebOpenFeatureProvider(options));
    } catch (error) {
      report.load = { code: error.code, message: error.message };
      break;
    }
    const client = OpenFeature.getClient(domain);
    for (const c of cases.filter((c) => c.provider === name)) {
      await OpenFeature.setContext(domain, revive(c.context ?? {}));
      const method = "get" + c.type[0].toUpperCase() + c.type.slice(1) + "Details";
      const d = client[method](c.flag, c.default);
      report.results.push({
        name: c.name,
        details: {
          value: d.value,
          reason: d.reason,
          variant: d.variant,
          errorCode: d.errorCode,
          errorMessage: d.errorMessage,
          flagMetadata: { ...d.flagMetadata },
        },
      });
    }
  }
  report.status = OpenFeature.getClient("default").providerStatus;
} catch (error) {
  report.error = { name: error.name, message: error.message, stack: error.stack };
}
globalThis.__report = report;
`;

/** When the page's statement is issued, and how long it lasts. */
const ISSUED_AT = Date.UTC(2026, 10, 21, 9);
const HOUR = 3_600_000;

/** The freshness page: a clock of its own, stepped past the statement's expiry. */
const FRESHNESS_SCRIPT = `
import { OpenFeature, ProviderEvents } from "@openfeature/web-sdk";
import { createWebOpenFeatureProvider } from "${denoJson.name}/openfeature/web";

// The library's Clock, moved by tick() alone: the page never waits on the provider's timer.
class PageClock {
  #now = 0;
  #timers = new Map();
  #id = 0;
  now() { return this.#now; }
  wallNow() { return ${ISSUED_AT} + this.#now; }
  setTimeout(callback, ms) { this.#timers.set(++this.#id, { at: this.#now + ms, callback }); return this.#id; }
  clearTimeout(id) { this.#timers.delete(id); }
  get pending() { return this.#timers.size; }
  tick(ms) {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= end).sort(([, a], [, b]) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = end;
  }
}
const report = { errors: [] };
const pick = (d) => ({
  value: d.value, reason: d.reason, errorCode: d.errorCode, errorMessage: d.errorMessage,
  policyErrorCode: d.flagMetadata.policyErrorCode,
});
try {
  const publicKey = await (await fetch("/public-key.pem")).text();
  const verify = { algorithm: "ECDSA_SHA_256", publicKey };
  const flags = { "new-checkout": { service: "shop", resource: "cart", action: "checkout" } };
  const clock = new PageClock();
  await OpenFeature.setContext("fresh", { plan: "pro" });
  await OpenFeature.setProviderAndWait(
    "fresh",
    createWebOpenFeatureProvider({ url: "/fresh.json", verify, flags, clock, clockSkewMs: 0 }),
  );
  const client = OpenFeature.getClient("fresh");
  client.addHandler(ProviderEvents.Error, (details) => {
    report.errors.push({ message: details.message, code: details.metadata?.policyErrorCode });
  });
  report.pending = clock.pending;
  report.before = pick(client.getBooleanDetails("new-checkout", false));
  clock.tick(${HOUR} - 1);
  report.justBefore = pick(client.getBooleanDetails("new-checkout", false));
  clock.tick(1);
  report.after = pick(client.getBooleanDetails("new-checkout", false));
  report.status = client.providerStatus;
  try {
    await OpenFeature.setProviderAndWait(
      "stripped",
      createWebOpenFeatureProvider({ url: "/stripped.json", verify, flags, requireFreshness: true }),
    );
  } catch (error) {
    report.stripped = { code: error.code, message: error.message };
  }
  await OpenFeature.close();
  report.pendingAfterClose = clock.pending;
} catch (error) {
  report.error = { name: error.name, message: error.message, stack: error.stack };
}
globalThis.__report = report;
`;

let browser;
let files;
let cases;
let checksum;

before(async () => {
  if (skip) return;
  const { generateEcdsaKeyPair, signBundle, signFreshness } = await importPackage("./verify");
  const { computeDigest } = await importPackage("./engine");
  const bundle = testdata("openfeature/flags_bundle.json");
  cases = testdata("openfeature/cases.json");
  checksum = (await computeDigest(bundle)).checksum;
  const { privateKey, publicKey } = await generateEcdsaKeyPair();
  const signed = await signBundle(bundle, {
    algorithm: "ECDSA_SHA_256",
    key: privateKey,
    keyId: "k1",
  });
  const build = async (contents) =>
    (await scratchRequire("esbuild").build({
      stdin: { contents, resolveDir: scratch, loader: "js" },
      bundle: true,
      platform: "browser",
      format: "esm",
      target: "es2022",
      write: false,
      logLevel: "silent",
    })).outputFiles[0].text;
  const freshness = await signFreshness(signed, {
    algorithm: "ECDSA_SHA_256",
    key: privateKey,
    keyId: "k1",
    issuedAt: ISSUED_AT,
    expiresAt: ISSUED_AT + HOUR,
  });
  files = {
    "/": [
      "text/html",
      '<!doctype html><title>flags</title><script type="module" src="/page.js"></script>',
    ],
    "/page.js": ["text/javascript", await build(PAGE_SCRIPT)],
    "/freshness": [
      "text/html",
      '<!doctype html><title>freshness</title><script type="module" src="/freshness.js"></script>',
    ],
    "/freshness.js": ["text/javascript", await build(FRESHNESS_SCRIPT)],
    "/fresh.json": ["application/json", JSON.stringify({ ...signed, freshness })],
    "/stripped.json": ["application/json", JSON.stringify(signed)],
    "/bundle.json": ["application/json", JSON.stringify(signed)],
    "/public-key.pem": ["text/plain", publicKey],
    "/cases.json": ["application/json", JSON.stringify(cases)],
  };
  const { chromium } = scratchRequire("playwright-core");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
});

/** Opens `path` of `origin` in a fresh page; every request is answered from `files` and recorded. */
async function visit(origin, path = "/") {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    requests.push(url.href);
    const file = url.origin === origin ? files[url.pathname] : undefined;
    if (file === undefined) return route.abort();
    return route.fulfill({ status: 200, contentType: file[0], body: file[1] });
  });
  try {
    await page.goto(`${origin}${path}`);
    await page.waitForFunction(() => globalThis.__report !== undefined, null, {
      timeout: DEADLINE_MS,
    });
    return { report: await page.evaluate(() => globalThis.__report), requests };
  } finally {
    await context.close();
  }
}

test(
  "every row of the mapping table through @openfeature/web-sdk in Chromium, the bundle verified on the page",
  { skip, timeout: 2 * DEADLINE_MS },
  async () => {
    const { report, requests } = await visit(SECURE);
    assert.equal(report.error, undefined, JSON.stringify(report.error));
    assert.equal(report.load, undefined, JSON.stringify(report.load));
    assert.equal(report.secure, true);
    assert.equal(report.status, "READY");
    assert.equal(report.results.length, cases.cases.length);
    for (
      const [i, c] of cases.cases.filter((c) => !c.provider).concat(
        cases.cases.filter((c) => c.provider),
      ).entries()
    ) {
      const { name, details } = report.results[i];
      assert.equal(name, c.name);
      const metadata = Object.fromEntries(
        Object.entries(c.want.flagMetadata).map(([k, v]) => [k, v === "$checksum" ? checksum : v]),
      );
      const { errorMessage, ...rest } = details;
      assert.deepEqual(rest, {
        value: c.want.value,
        reason: c.want.reason,
        variant: c.want.variant,
        errorCode: c.want.errorCode,
        flagMetadata: metadata,
      }, c.name);
      if (c.want.errorMessage) assert.ok(errorMessage.includes(c.want.errorMessage), c.name);
    }
    // The logging hook saw reason, variant and metadata of every resolution that succeeded.
    const throttle = report.hooked.find((h) => h.flag === "search-limits");
    assert.deepEqual(throttle, {
      flag: "search-limits",
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
    });
    // Nothing but the page's own files was requested.
    const paths = [...new Set(requests.map((r) => new URL(r).pathname))].sort();
    assert.deepEqual(paths, ["/", "/bundle.json", "/cases.json", "/page.js", "/public-key.pem"]);
    assert.ok(requests.every((r) => r.startsWith(`${SECURE}/`)), requests.join(" "));
  },
);

test(
  "a page that is not a secure context has no WebCrypto: the provider is FATAL with WEBCRYPTO_UNAVAILABLE",
  { skip, timeout: 2 * DEADLINE_MS },
  async () => {
    const { report } = await visit(INSECURE);
    assert.equal(report.error, undefined, JSON.stringify(report.error));
    assert.equal(report.secure, false);
    assert.equal(report.load.code, "PROVIDER_FATAL");
    assert.match(report.load.message, /WEBCRYPTO_UNAVAILABLE/);
    assert.equal(report.results.length, 0);
  },
);

test(
  "freshness in Chromium: past expiresAt on the page's clock, the caller's default with BUNDLE_EXPIRED and one ERROR event; requireFreshness refuses a stripped bundle",
  { skip, timeout: 2 * DEADLINE_MS },
  async () => {
    const { report, requests } = await visit(SECURE, "/freshness");
    assert.equal(report.error, undefined, JSON.stringify(report.error));
    assert.equal(report.pending, 1, "one timer watches the expiry");
    assert.deepEqual(report.before, {
      value: true,
      reason: "TARGETING_MATCH",
      errorCode: undefined,
      errorMessage: undefined,
      policyErrorCode: undefined,
    });
    assert.deepEqual(report.justBefore, report.before);
    const { errorMessage, ...after } = report.after;
    assert.deepEqual(after, {
      value: false,
      reason: "ERROR",
      errorCode: "GENERAL",
      policyErrorCode: "BUNDLE_EXPIRED",
    });
    assert.match(errorMessage, /^BUNDLE_EXPIRED: the bundle in force \(bundleVersion 7\)/);
    assert.equal(report.status, "ERROR");
    assert.equal(report.errors.length, 1);
    assert.equal(report.errors[0].code, "BUNDLE_EXPIRED");
    assert.equal(report.stripped.code, "PROVIDER_FATAL");
    assert.match(report.stripped.message, /BUNDLE_FRESHNESS_MISSING/);
    assert.equal(report.pendingAfterClose, 0);
    assert.ok(requests.every((r) => r.startsWith(`${SECURE}/`)), requests.join(" "));
  },
);
