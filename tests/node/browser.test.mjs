// The installed package's ./engine and ./verify in a real browser: headless
// Chromium loads a page that verifies and evaluates a signed bundle with the
// esbuild bundle of the two modules, and posts what happened back to the test's
// HTTP server.
//
// Browsers give WebCrypto (crypto.subtle) to secure contexts only. The same
// server is reached twice: as http://127.0.0.1:<port> (loopback: a secure
// context, the bundle verifies) and as http://policy.test:<port>, a name that
// Chromium resolves to the same address (--host-resolver-rules) but that is not
// potentially trustworthy, so isSecureContext is false there and loadBundle must
// reject with WEBCRYPTO_UNAVAILABLE. (A data: or sandboxed iframe inside a secure
// page stays a secure context; plain HTTP from a non-loopback host is what a
// user meets.)
//
// Needs /usr/bin/chromium (Debian's chromium package; .ci/run installs it):
// the tests skip, saying so, when it is missing.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { denoJson, importPackage, scratch, scratchRequire } from "./_package.mjs";

const CHROMIUM = "/usr/bin/chromium";
const INSECURE_HOST = "policy.test";
/** How long a page may take to report (a cold Chromium start included). */
const DEADLINE_MS = 60_000;

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

const request = { target: { service: "shop", resource: "cart", action: "checkout" } };

/** The page's script: verify and evaluate, then report. */
const PAGE_SCRIPT = `
import { evaluate } from "${denoJson.name}/engine";
import { loadBundle } from "${denoJson.name}/verify";
const report = { secure: globalThis.isSecureContext, subtle: typeof crypto.subtle };
try {
  const [bundle, publicKey] = await Promise.all(
    ["/bundle.json", "/public-key.pem"].map((path) => fetch(path).then((r) => r.text())),
  );
  const loaded = await loadBundle(bundle, { verify: { algorithm: "ECDSA_SHA_256", publicKey } });
  report.signature = loaded.status.signature.status;
  report.decision = evaluate(loaded.compiled, ${JSON.stringify(request)});
} catch (error) {
  report.error = { name: error.name, code: error.code, message: error.message };
}
await fetch("/report", { method: "POST", body: JSON.stringify(report) });
`;

let server;
let port;
let script;
let files;
/** Reports posted by pages, by the Host header they were loaded from. */
const reports = new Map();
const waiting = new Map();

before(async () => {
  if (skip) return;
  const { generateEcdsaKeyPair, signBundle } = await importPackage("./verify");
  const { privateKey, publicKey } = await generateEcdsaKeyPair();
  const bundle = await signBundle({
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "shop.cart",
      activeVersion: 1,
      rules: [{
        id: "open",
        status: "active",
        priority: 1,
        target: request.target,
        effect: { type: "allow" },
      }],
    }],
  }, { algorithm: "ECDSA_SHA_256", key: privateKey, keyId: "k1" });
  const built = await scratchRequire("esbuild").build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: scratch, loader: "js" },
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  script = built.outputFiles[0].text;
  files = {
    "/": ["text/html", '<!doctype html><script type="module" src="/page.js"></script>'],
    "/page.js": ["text/javascript", script],
    "/bundle.json": ["application/json", JSON.stringify(bundle)],
    "/public-key.pem": ["text/plain", publicKey],
  };
  server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/report") {
      let body = "";
      req.on("data", (chunk) => body += chunk);
      req.on("end", () => {
        const host = req.headers.host.split(":")[0];
        reports.set(host, JSON.parse(body));
        waiting.get(host)?.();
        res.end();
      });
      return;
    }
    const file = files[req.url];
    res.writeHead(file ? 200 : 404, { "content-type": file?.[0] ?? "text/plain" });
    res.end(file?.[1] ?? "not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = server.address().port;
});

after(() => server?.close());

/** Opens `http://<host>:<port>/` in a fresh headless Chromium; resolves with the page's report. */
async function visit(host) {
  const profile = mkdtempSync(join(tmpdir(), "policy-chromium-"));
  const reported = new Promise((resolve) => waiting.set(host, resolve));
  // Its own process group, so that the browser and its helpers are ended together.
  const browser = spawn(CHROMIUM, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    `--user-data-dir=${profile}`,
    `--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`,
    `http://${host}:${port}/`,
  ], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  browser.stderr.on("data", (chunk) => stderr += chunk);
  const exited = new Promise((resolve) => browser.on("exit", resolve));
  let timer;
  try {
    await Promise.race([
      reported,
      exited.then((code) => {
        throw new Error(`chromium exited (${code}) before the page reported:\n${stderr}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no report from ${host} within ${DEADLINE_MS} ms:\n${stderr}`)),
          DEADLINE_MS,
        );
      }),
    ]);
    return reports.get(host);
  } finally {
    clearTimeout(timer);
    if (browser.exitCode === null) {
      process.kill(-browser.pid, "SIGTERM");
      await exited;
    }
    rmSync(profile, { recursive: true, force: true });
  }
}

test(
  "the bundle verifies and decides in a secure context (http://127.0.0.1)",
  { skip },
  async () => {
    const report = await visit("127.0.0.1");
    assert.equal(report.secure, true);
    assert.equal(report.subtle, "object");
    assert.equal(report.error, undefined, JSON.stringify(report.error));
    assert.equal(report.signature, "verified");
    assert.deepEqual(report.decision, {
      decision: "allow",
      reason: "rule",
      policyKey: "shop.cart",
      ruleId: "open",
    });
  },
);

test(
  "without a secure context loadBundle rejects with WEBCRYPTO_UNAVAILABLE, saying HTTPS or localhost",
  { skip },
  async () => {
    const report = await visit(INSECURE_HOST);
    assert.equal(report.secure, false, "the page is not a secure context");
    assert.equal(report.subtle, "undefined");
    assert.equal(report.decision, undefined);
    assert.equal(report.error.name, "PolicyError");
    assert.equal(report.error.code, "WEBCRYPTO_UNAVAILABLE");
    assert.match(report.error.message, /not a secure context/);
    assert.match(report.error.message, /HTTPS or from localhost/);
  },
);
