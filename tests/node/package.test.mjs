// The package as npm installs it: its package.json, its exports under Node's
// resolution, a plain ESM consumer, and a TypeScript consumer type-checked
// against the shipped .d.ts files.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  denoJson,
  importPackage,
  manifest,
  packageDir,
  readJson,
  root,
  scratch,
} from "./_package.mjs";

/** `npm:name@version` entries of deno.json "imports", by name. */
const pinned = Object.fromEntries(
  Object.entries(denoJson.imports ?? {}).flatMap(([name, value]) => {
    const match = /^npm:((?:@[^/@]+\/)?[^/@]+)@([^/]+)$/.exec(value);
    return match && match[1] === name ? [[name, match[2]]] : [];
  }),
);

test("package.json: name and version from deno.json, ESM only, Node 20+", () => {
  assert.equal(manifest.name, denoJson.name);
  assert.equal(manifest.version, denoJson.version);
  assert.equal(manifest.type, "module");
  assert.deepEqual(manifest.engines, { node: ">=20" });
  assert.equal(manifest.license, denoJson.license);
  assert.equal(manifest.main, undefined, "no CommonJS entry");
  assert.equal(manifest.devDependencies, undefined);
  assert.ok(existsSync(join(packageDir, "README.md")));
  assert.ok(existsSync(join(packageDir, "LICENSE")));
});

test("package.json: exports match deno.json's exports one to one", () => {
  assert.deepEqual(Object.keys(manifest.exports), Object.keys(denoJson.exports));
  for (const [key, source] of Object.entries(denoJson.exports)) {
    const stem = source.replace(/\.ts$/, ""); // "./src/engine/mod"
    assert.deepEqual(manifest.exports[key], { types: `${stem}.d.ts`, import: `${stem}.js` }, key);
    assert.ok(existsSync(join(packageDir, `${stem}.js`)), `${stem}.js is in the tarball`);
    assert.ok(existsSync(join(packageDir, `${stem}.d.ts`)), `${stem}.d.ts is in the tarball`);
  }
});

test("package.json: a policy bin exactly when cli.ts exists", () => {
  if (existsSync(join(root, "cli.ts"))) {
    assert.deepEqual(manifest.bin, { policy: "./cli.js" });
  } else {
    assert.equal(manifest.bin, undefined);
  }
});

test("package.json: dependencies carry deno.json's versions; typescript is never one", () => {
  for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
    assert.equal(version, pinned[name], `${name} is pinned as in deno.json`);
  }
  assert.equal(manifest.dependencies?.typescript, undefined);
  assert.equal(manifest.dependencies?.["@types/node"], undefined);
  for (const name of Object.keys(manifest.peerDependencies ?? {})) {
    assert.deepEqual(manifest.peerDependenciesMeta?.[name], { optional: true }, name);
  }
  // The libraries of the enforcement adapters are optional peers, never dependencies.
  for (const name of ["typescript", "hono", "express", "redis", "ioredis"]) {
    assert.ok(manifest.peerDependencies?.[name], `${name} is an optional peer`);
    assert.equal(manifest.dependencies?.[name], undefined);
  }
});

test("npm install of the tarball brings only its dependencies (no typescript)", () => {
  const installed = readJson(join(scratch, "installed-alone.json"));
  const scopes = denoJson.name.startsWith("@") ? [denoJson.name.split("/")[0]] : [denoJson.name];
  const dependencies = Object.keys(manifest.dependencies ?? {}).map((n) => n.split("/")[0]);
  for (const name of installed) {
    assert.ok(
      scopes.includes(name) || dependencies.includes(name),
      `${name} was installed, but is not a dependency`,
    );
  }
});

test("every export loads under Node through the exports map", async () => {
  for (const key of Object.keys(manifest.exports)) {
    const module = await importPackage(key);
    assert.equal(typeof module, "object", key);
  }
  // Subpaths that the root module re-exports are the same instances.
  const rootModule = await importPackage(".");
  for (const key of Object.keys(manifest.exports).filter((k) => k !== ".")) {
    for (const [name, value] of Object.entries(await importPackage(key))) {
      if (name in rootModule) assert.equal(rootModule[name], value, `${key}: ${name}`);
    }
  }
});

test("a plain ESM program imports the package by name and evaluates a bundle", () => {
  const program = `
    import { compileBundle, evaluate, validateBundle } from "${denoJson.name}";
    import { computeDigest } from "${denoJson.name}/engine";
    import { readFileSync } from "node:fs";
    const bundle = JSON.parse(readFileSync(process.argv[1], "utf8"));
    const request = {
      target: { service: "checkout", resource: "refund", action: "create" },
      context: { plan: "pro", amount: 120 },
    };
    console.log(JSON.stringify({
      valid: validateBundle(bundle).valid,
      decision: evaluate(compileBundle(bundle), request),
      checksum: (await computeDigest(bundle)).checksum,
    }));
  `;
  const bundlePath = join(root, "tests", "testdata", "verify", "bundle.json");
  const output = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", program, bundlePath],
    { cwd: scratch, encoding: "utf8" },
  );
  const result = JSON.parse(output);
  assert.equal(result.valid, true);
  // The throttle outranks the allow of the higher-priority rule (effect type first).
  assert.deepEqual(result.decision, {
    decision: "throttle",
    reason: "rule",
    policyKey: "checkout.refund",
    ruleId: "refund-rate",
    throttle: { limit: 10, windowSeconds: 60, key: "tenant" },
  });
  assert.match(result.checksum, /^sha256:[0-9a-f]{64}$/);
});

/** Uses the browser-safe subpaths only: ./engine and ./verify. */
const CORE_CONSUMER = `
import {
  compileBundle,
  createEvaluator,
  type Decision,
  evaluate,
  type EvaluationRequest,
  isPolicyError,
  PolicyError,
  type RuntimeBundleV1,
  validateBundle,
} from "${denoJson.name}/engine";
import { signBundle, verifyBundleSignature, type VerifyKeyOptions } from "${denoJson.name}/verify";

const bundle: RuntimeBundleV1 = { schemaVersion: 1, env: "test", policies: [] };
const request: EvaluationRequest = {
  target: { service: "s", resource: "r", action: "a" },
  context: { plan: "pro" },
};
const decision: Decision = evaluate(compileBundle(bundle), request);
const effect: "allow" | "deny" | "throttle" | "kill_switch" | "custom" = decision.decision;
// @ts-expect-error a decision is one of five effects, not any string
const wrong: "maybe" = decision.decision;
const again: Decision = createEvaluator(compileBundle(bundle))(request);
const valid: boolean = validateBundle(bundle).valid;
const key: VerifyKeyOptions = { algorithm: "HMAC_SHA256", publicKey: "00".repeat(32) };
const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key: "00".repeat(32), keyId: "k" });
const status: "verified" | "unsigned" = (await verifyBundleSignature(signed, { verify: key })).status;
// @ts-expect-error signBundle needs a keyId
await signBundle(bundle, { algorithm: "HMAC_SHA256", key: "00".repeat(32) });
function describe(error: unknown): string {
  if (isPolicyError(error)) return error.code;
  return error instanceof PolicyError ? error.code : "other";
}
export { again, describe, effect, status, valid, wrong };
`;

/** Uses the root export and ./clients as well. */
const FULL_CONSUMER = `${CORE_CONSUMER}
import * as runtime from "${denoJson.name}";
import type { ClientStatus, PolicyClient } from "${denoJson.name}/clients";

declare const client: PolicyClient;
const origin: ClientStatus["origin"] = client.status().origin;
const same: typeof evaluate = runtime.evaluate;
await client[Symbol.asyncDispose]();
export { origin, same };
`;

/** Type-checks `source` with tsc from the scratch project under `compilerOptions`. */
function typeCheck(name, source, compilerOptions) {
  const dir = join(scratch, `consumer-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "consumer.ts"), source);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: false,
        target: "ES2022",
        ...compilerOptions,
      },
      files: ["consumer.ts"],
    }),
  );
  const tsc = join(scratch, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
  assert.equal(result.status, 0, `tsc (${name}):\n${result.stdout}${result.stderr}`);
}

/** Every enforcement subpath, with the adapters' libraries installed. */
const ENFORCE_CONSUMER = `
import {
  createEnforcer,
  createGuard,
  createMemoryStore,
  type EnforcerOptions,
  refusalResponse,
  type ThrottleStore,
  type Verdict,
} from "${denoJson.name}/enforce";
import { createRedisStore, ioredisCommands, nodeRedisCommands } from "${denoJson.name}/enforce/redis";
import { honoGuard, type HonoGuardVariables } from "${denoJson.name}/enforce/hono";
import { expressGuard } from "${denoJson.name}/enforce/express";
import { Hono } from "hono";
import express from "express";
import { createClient } from "redis";
import { Redis } from "ioredis";
import { createLocalClient } from "${denoJson.name}/clients";

declare const client: Awaited<ReturnType<typeof createLocalClient>>;
const memory: ThrottleStore = createMemoryStore({ maxBuckets: 10 });
const redis: ThrottleStore = createRedisStore(nodeRedisCommands(createClient()), { timeoutMs: 50 });
const io: ThrottleStore = createRedisStore(ioredisCommands(new Redis({ lazyConnect: true })));
const options: EnforcerOptions = { store: memory, whenStoreFails: "open", onError: (e) => e.code };
const verdict: Verdict = await createEnforcer(options).enforce(client.evaluate({
  target: { service: "s", resource: "r", action: "a" },
}));
const response: Response | null = verdict.proceed ? null : refusalResponse(verdict);
const guard = createGuard({ client, store: redis, target: () => ({ service: "s", resource: "r", action: "a" }) });
const app = new Hono<{ Variables: HonoGuardVariables }>();
app.use(honoGuard({ client, store: io, target: (c) => ({ service: "s", resource: c.req.path, action: "a" }) }));
app.get("/", (c) => c.text(c.get("policyDecision").decision));
const server = express();
server.use(expressGuard({
  client,
  target: (req: express.Request) => ({ service: "s", resource: req.path, action: "a" }),
}));
export { guard, response };
`;

// The declarations name web types (CryptoKey, BufferSource) that @types/node 20
// does not declare globally, so a Node project needs "DOM" in "lib" (or
// skipLibCheck); docs/install.md says so.
const NODE_PROJECT = {
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2022", "DOM"],
  types: ["node"],
};

test("a TypeScript consumer type-checks for Node (NodeNext, @types/node, DOM lib)", () => {
  typeCheck("node", FULL_CONSUMER, NODE_PROJECT);
});

test("a TypeScript consumer of ./enforce and its adapters type-checks with hono, express, redis, ioredis", () => {
  typeCheck("enforce", ENFORCE_CONSUMER, NODE_PROJECT);
});

test("a TypeScript consumer of ./engine and ./verify type-checks for browsers (DOM, no Node)", () => {
  typeCheck("browser", CORE_CONSUMER, {
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2022", "DOM"],
    types: [],
  });
});
