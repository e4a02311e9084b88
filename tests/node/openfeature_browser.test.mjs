// The web OpenFeature provider in a real browser: headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) loads a page that bundles
// @openfeature/web-sdk and the installed package's ./openfeature/web with
// esbuild. The page fetches the signed bundle, verifies it with WebCrypto and
// resolves every row of the mapping table (tests/testdata/openfeature) through
// the SDK, with a logging hook. Every request the page makes is answered by
// page.route, and recorded: nothing leaves the page but the page's own files.
// On a host that is not a secure context (no WebCrypto) the provider is FATAL
// with WEBCRYPTO_UNAVAILABLE.
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

let browser;
let files;
let cases;
let checksum;

before(async () => {
  if (skip) return;
  const { generateEcdsaKeyPair, signBundle } = await importPackage("./verify");
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
  const built = await scratchRequire("esbuild").build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: scratch, loader: "js" },
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  files = {
    "/": [
      "text/html",
      '<!doctype html><title>flags</title><script type="module" src="/page.js"></script>',
    ],
    "/page.js": ["text/javascript", built.outputFiles[0].text],
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

/** Opens `origin` in a fresh page; every request is answered from `files` and recorded. */
async function visit(origin) {
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
    await page.goto(`${origin}/`);
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
