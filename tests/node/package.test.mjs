// The package as npm installs it: its package.json, its exports under Node's
// resolution, a plain ESM consumer, and a TypeScript consumer type-checked
// against the shipped .d.ts files.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  alone,
  denoJson,
  importPackage,
  manifest,
  NODE_PROJECT,
  packageDir,
  root,
  scratch,
  scratchRequire,
  typeCheck,
} from "./_package.mjs";
import { codeExamples } from "../docs/_doc_examples.mjs";
import { longOnly } from "./_long.mjs";

/** `npm:name@version` entries of deno.json "imports", by name. */
const pinned = Object.fromEntries(
  Object.entries(denoJson.imports ?? {}).flatMap(([name, value]) => {
    const match = /^npm:((?:@[^/@]+\/)?[^/@]+)@([^/]+)$/.exec(value);
    return match && match[1] === name ? [[name, match[2]]] : [];
  }),
);

/** deno.json's exports, but its "./cli", which is the npm package's `policy` bin. */
const libraryExports = Object.fromEntries(
  Object.entries(denoJson.exports).filter(([key]) => key !== "./cli"),
);

test("package.json: name and version from deno.json, ES modules, Node 20+, where to find the source", () => {
  assert.equal(manifest.name, denoJson.name);
  assert.equal(manifest.version, denoJson.version);
  assert.equal(manifest.type, "module");
  assert.deepEqual(manifest.engines, { node: ">=20" });
  assert.equal(manifest.license, denoJson.license);
  assert.equal(manifest.main, undefined, "entries only through exports");
  assert.equal(manifest.devDependencies, undefined);
  assert.ok(existsSync(join(packageDir, "README.md")));
  assert.ok(existsSync(join(packageDir, "LICENSE")));
  // One repository address (build_npm.ts REPOSITORY_URL) behind the three fields.
  const repository = manifest.homepage.replace(/#readme$/, "");
  assert.match(repository, /^https:\/\/[^/]+\/[^/]+\/[^/]+$/);
  assert.deepEqual(manifest.repository, { type: "git", url: `git+${repository}.git` });
  assert.deepEqual(manifest.bugs, { url: `${repository}/issues` });
});

/** The export of the JSON Schemas (data files, not modules). */
const SCHEMAS_EXPORT = "./schemas/*.json";

/** The exports that are modules. */
const moduleExports = Object.keys(manifest.exports).filter((key) => key !== SCHEMAS_EXPORT);

test("package.json: exports match deno.json's exports one to one, each with a CommonJS entry, plus the schemas", () => {
  assert.deepEqual(moduleExports, Object.keys(libraryExports));
  assert.equal(manifest.exports[SCHEMAS_EXPORT], SCHEMAS_EXPORT);
  for (const [key, source] of Object.entries(libraryExports)) {
    const stem = source.replace(/\.ts$/, ""); // "./src/engine/mod"
    assert.deepEqual(manifest.exports[key], {
      types: `${stem}.d.ts`,
      import: `${stem}.js`,
      require: `${stem}.cjs`,
      default: `${stem}.js`,
    }, key);
    for (const extension of [".js", ".d.ts", ".cjs"]) {
      assert.ok(existsSync(join(packageDir, `${stem}${extension}`)), `${stem}${extension}`);
    }
  }
});

test("package.json: the ./cli export of deno.json is the policy bin", () => {
  assert.equal(denoJson.exports["./cli"], "./cli.ts");
  assert.deepEqual(manifest.bin, { policy: "./cli.js" });
  assert.ok(!existsSync(join(packageDir, "cli.d.ts")), "nothing imports the bin: no declarations");
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
  // The libraries of the enforcement adapters (and Express's types) are optional peers, never
  // dependencies.
  for (const name of ["typescript", "hono", "express", "@types/express", "redis", "ioredis"]) {
    assert.ok(manifest.peerDependencies?.[name], `${name} is an optional peer`);
    assert.equal(manifest.dependencies?.[name], undefined);
  }
});

/**
 * The package's files a module loads with it: its static relative imports,
 * followed; the bundles esbuild writes name them as `from "./…"` or
 * `import "./…"` at the start of a line.
 */
function staticFiles(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, specifier] of text.matchAll(/^(?:} from|import) "(\.\.?\/[^"]+)";$/gm)) {
    staticFiles(join(file, "..", specifier), seen);
  }
  return seen;
}

test("the package is bundled: the bin is one file, an export loads its file and at most two chunks", () => {
  const bin = join(packageDir, manifest.bin.policy);
  assert.deepEqual([...staticFiles(bin)], [bin]);
  const text = readFileSync(bin, "utf8");
  const imports = [
    ...text.matchAll(/^(?:import [^"\n]* from |} from |import )"([^"]+)";$/gm),
    ...text.matchAll(/\bimport\("([^"]+)"\)/g),
  ].map((m) => m[1]);
  assert.ok(imports.includes("node:fs/promises") && imports.includes("typescript"));
  // Besides built-ins and the optional typescript, only the playground page, imported when
  // `policy playground` runs, from beside the bin (docs/playground.md).
  assert.deepEqual(imports.filter((s) => !s.startsWith("node:") && s !== "typescript"), [
    "./dist/playground/page.js",
  ]);
  assert.ok(text.includes('import("./dist/playground/page.js")'), "a lazy import");
  assert.ok(existsSync(join(packageDir, "dist", "playground", "page.js")));
  for (const key of moduleExports) {
    const stem = libraryExports[key].replace(/\.ts$/, "");
    const loaded = staticFiles(join(packageDir, `${stem}.js`));
    assert.ok(loaded.size <= 3, `${key} loads ${loaded.size} files: ${[...loaded]}`);
  }
});

/**
 * The bare specifiers the declarations of `file` import (TypeScript's own
 * reading: imports, exports, `import()` types), following its relative imports.
 */
function declarationImports(file, seen = new Set(), bare = new Set()) {
  if (seen.has(file)) return bare;
  seen.add(file);
  const ts = scratchRequire("typescript");
  for (
    const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles
  ) {
    if (/^\.\.?\//.test(fileName)) {
      declarationImports(join(file, "..", fileName.replace(/\.js$/, ".d.ts")), seen, bare);
    } else if (!fileName.startsWith("node:")) bare.add(fileName);
  }
  return bare;
}

/** The exports whose declarations name a library's types: the library each is built for. */
const DECLARED_LIBRARIES = {
  "./enforce/express": ["express"],
  "./openfeature": ["@openfeature/server-sdk"],
  "./openfeature/web": ["@openfeature/web-sdk"],
  "./otel": ["@opentelemetry/api"],
};

test("only ./enforce/express's, the OpenFeature providers' and ./otel's declarations import a library's types (their own)", () => {
  for (const key of moduleExports) {
    const stem = libraryExports[key].replace(/\.ts$/, "");
    const imported = [...declarationImports(join(packageDir, `${stem}.d.ts`))].sort();
    assert.deepEqual(imported, DECLARED_LIBRARIES[key] ?? [], key);
  }
});

test("the exports share their classes: a PolicyError from . , ./verify or ./enforce is ./engine's", async () => {
  const { PolicyError } = await importPackage("./engine");
  assert.equal((await importPackage(".")).PolicyError, PolicyError);
  const { loadBundle } = await importPackage("./verify");
  await assert.rejects(loadBundle("{"), (error) => error instanceof PolicyError);
  const { createMemoryStore } = await importPackage("./enforce");
  assert.throws(
    () => createMemoryStore({ maxBuckets: -1 }),
    (error) => error instanceof PolicyError,
  );
});

test("npm install of the tarball brings only its dependencies (no typescript)", () => {
  const installed = readdirSync(join(alone, "node_modules")).filter((n) => !n.startsWith("."));
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
  for (const key of moduleExports) {
    const module = await importPackage(key);
    assert.equal(typeof module, "object", key);
  }
  // Subpaths that the root module re-exports are the same instances.
  const rootModule = await importPackage(".");
  for (const key of moduleExports.filter((k) => k !== ".")) {
    for (const [name, value] of Object.entries(await importPackage(key))) {
      if (name in rootModule) assert.equal(rootModule[name], value, `${key}: ${name}`);
    }
  }
});

test("the JSON Schemas ship in the package and resolve through its exports", () => {
  const names = readdirSync(join(root, "schemas")).filter((f) => f.endsWith(".json"));
  assert.ok(names.length >= 6, names.join(", "));
  for (const name of names) {
    const file = scratchRequire.resolve(`${denoJson.name}/schemas/${name}`);
    assert.equal(readFileSync(file, "utf8"), readFileSync(join(root, "schemas", name), "utf8"));
    const schema = JSON.parse(readFileSync(file, "utf8"));
    assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#", name);
    assert.ok(schema.$id.endsWith(`/${manifest.version}/schemas/${name}`), schema.$id);
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
  type RuleTrace,
  type RuntimeBundleV1,
  traceEvaluation,
  validateBundle,
} from "${denoJson.name}/engine";
import {
  generateEcdsaKeyPair,
  generateHmacSecret,
  importHmacKey,
  type PemKeyPair,
  signBundle,
  signPayload,
  verifyBundleSignature,
  type VerifyKeyOptions,
  type WebCryptoKey,
} from "${denoJson.name}/verify";

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
// A decision narrows under strict: each descriptor is there once its decision is known.
function header(d: Decision): string {
  switch (d.decision) {
    case "throttle":
      return \`\${d.throttle.limit};w=\${d.throttle.windowSeconds};k=\${d.throttle.key}\`;
    case "kill_switch":
      return d.killSwitch.reason ?? d.killSwitch.service;
    case "custom":
      return d.value;
    default:
      return d.reason === "rule" ? \`\${d.policyKey}/\${d.ruleId}\` : d.policyKey ?? "global";
  }
}
// @ts-expect-error possibly undefined before narrowing (TS18048)
const limit: number = decision.throttle.limit;
function fired(rule: RuleTrace): string {
  switch (rule.outcome) {
    case "skipped (disabled)":
    case "skipped (when_false)":
      return "none";
    default:
      return rule.effect; // present: the rule fired
  }
}
const effects: string[] = traceEvaluation(compileBundle(bundle), request).rules.map(fired);
const pair: PemKeyPair = await generateEcdsaKeyPair();
const secret: string = generateHmacSecret();
// Keys cross both ways between the platform's WebCrypto and the package (DOM or not).
const generated = await crypto.subtle.generateKey(
  { name: "HMAC", hash: "SHA-256", length: 256 },
  false,
  ["sign", "verify"],
);
const checked: WebCryptoKey = await importHmacKey(generated, "verify");
const data = new TextEncoder().encode("payload");
const hex: string = await signPayload("HMAC_SHA256", generated, data);
const matches: boolean = await crypto.subtle.verify("HMAC", checked, new Uint8Array(32), data);
export { again, describe, effect, effects, header, hex, limit, matches, pair, secret, status, valid, wrong };
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
import {
  createRedisStore,
  ioredisCommands,
  nodeRedisClusterCommands,
  nodeRedisCommands,
} from "${denoJson.name}/enforce/redis";
import { honoGuard, type HonoGuardVariables } from "${denoJson.name}/enforce/hono";
import { expressGuard } from "${denoJson.name}/enforce/express";
import { Hono } from "hono";
import express from "express";
import { createClient, createCluster } from "redis";
import { Cluster, Redis } from "ioredis";
import { createLocalClient } from "${denoJson.name}/clients";
import type { Decision } from "${denoJson.name}/engine";

declare const client: Awaited<ReturnType<typeof createLocalClient>>;
const memory: ThrottleStore = createMemoryStore({ maxBuckets: 10 });
const redis: ThrottleStore = createRedisStore(nodeRedisCommands(createClient()), { timeoutMs: 50 });
const io: ThrottleStore = createRedisStore(ioredisCommands(new Redis({ lazyConnect: true })));
const cluster: ThrottleStore = createRedisStore(
  nodeRedisClusterCommands(createCluster({ rootNodes: [{ url: "redis://127.0.0.1:7000" }] })),
);
const ioCluster: ThrottleStore = createRedisStore(
  ioredisCommands(new Cluster([{ host: "127.0.0.1", port: 7000 }], { lazyConnect: true })),
);
const options: EnforcerOptions = { store: memory, whenStoreFails: "open", onError: (e) => e.code };
const verdict: Verdict = await createEnforcer(options).enforce(client.evaluate({
  target: { service: "s", resource: "r", action: "a" },
}));
const response: Response | null = verdict.proceed ? null : refusalResponse(verdict);
const guard = createGuard({ client, store: redis, target: () => ({ service: "s", resource: "r", action: "a" }) });
const app = new Hono<{ Variables: HonoGuardVariables }>();
app.use(honoGuard({ client, store: io, target: (c) => ({ service: "s", resource: c.req.path, action: "a" }) }));
app.get("/", (c) => c.text(c.get("policyDecision").decision));
// As docs/enforcement.md writes it: req is Express's Request, with no annotation, under a path
// too (app.use's overloads give no contextual type there), and res.locals.policyDecision is typed.
const server = express();
server.use(
  "/invoices",
  expressGuard({
    client,
    store: memory,
    target: (req) => ({ service: "s", resource: req.path, action: req.method === "GET" ? "read" : "create" }),
    context: (req) => ({ tenant: req.get("x-tenant"), id: req.params["id"], query: req.query }),
  }),
);
server.use(expressGuard({ client, target: (req) => ({ service: "s", resource: req.path, action: "a" }) }));
server.get("/invoices/export", (_req, res) => {
  const decision: Decision | undefined = res.locals.policyDecision;
  // @ts-expect-error the decision is typed (Decision | undefined), not any
  const count: number = res.locals.policyDecision;
  res.send(decision?.decision ?? String(count));
});
// @ts-expect-error the guard's callbacks get Express's Request: no such member
expressGuard({ client, target: (req) => ({ service: "s", resource: req.pathh, action: "a" }) });
export { guard, response };
`;

test("a TypeScript consumer type-checks for Node (NodeNext, @types/node, ES2023 lib, no DOM)", {
  skip: longOnly,
}, () => {
  typeCheck("node", FULL_CONSUMER, NODE_PROJECT);
});

/**
 * A CommonJS TypeScript file: what a `"type": "commonjs"` project writes. Its
 * imports become `require` calls of the package's ES modules, which Node
 * 20.19+ runs and TypeScript 5.8+ models under NodeNext (docs/install.md).
 */
const COMMONJS_CONSUMER = `
import { evaluate, loadBundle, type Decision } from "${denoJson.name}";
import { PolicyError } from "${denoJson.name}/engine";
import verify = require("${denoJson.name}/verify");

async function decide(text: string): Promise<Decision> {
  const loaded: verify.LoadedBundle = await loadBundle(text, { allowUnsigned: true });
  const inspected = await verify.inspectBundle(text, { allowUnsigned: true });
  if (inspected.status.checksum !== loaded.status.checksum) throw new Error("checksums differ");
  return evaluate(loaded.compiled, { target: { service: "s", resource: "r", action: "a" } });
}
const isPolicyError = (error: unknown): boolean => error instanceof PolicyError;
export = { decide, isPolicyError };
`;

test(
  "a CommonJS TypeScript consumer (.cts, NodeNext) type-checks with import and import = require",
  {
    skip: longOnly,
  },
  () => {
    typeCheck("commonjs", { "consumer.cts": COMMONJS_CONSUMER }, NODE_PROJECT);
  },
);

test(
  "a TypeScript consumer of ./enforce and its adapters type-checks with hono, express, redis, ioredis",
  {
    skip: longOnly,
  },
  () => {
    typeCheck("enforce", ENFORCE_CONSUMER, NODE_PROJECT);
  },
);

test("a TypeScript consumer of ./engine and ./verify type-checks for browsers (DOM, no Node)", {
  skip: longOnly,
}, () => {
  typeCheck("browser", CORE_CONSUMER, {
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2022", "DOM"],
    types: [],
  });
});

/** Every file under `dir` (relative paths, "/" separated). */
function listFiles(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? listFiles(dir, path) : [path];
  });
}

/** The TypeScript examples of markdown text that are compiled (docs/_doc_examples.mjs). */
function codeBlocks(markdown) {
  return codeExamples(markdown)
    .filter((example) => example.ignored === null && example.extension === ".ts")
    .map((example) => example.code);
}

/** The code examples of the doc comments of a declaration file. */
function declarationExamples(text) {
  return [...text.matchAll(/\/\*\*([\s\S]*?)\*\//g)].flatMap((comment) =>
    codeBlocks(comment[1].split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join("\n"))
  );
}

/** GitHub's anchors for the headings of a markdown document (the test's own reading). */
function anchors(markdown) {
  const found = new Set();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (heading) {
      found.add(
        heading[1].toLowerCase().replace(/[^a-z0-9 _-]/g, "").trim().replaceAll(" ", "-"),
      );
    }
  }
  return found;
}

const installedReadme = readFileSync(join(packageDir, "README.md"), "utf8");

test("the npm README speaks to Node users: npm install, imports by name, the policy bin", () => {
  assert.match(installedReadme, new RegExp(`npm install ${denoJson.name}\\b`));
  assert.match(installedReadme, /npx policy /);
  assert.match(installedReadme, new RegExp(`from "${denoJson.name}(/[a-z]+)?"`));
  assert.doesNotMatch(installedReadme, /from "\.\.?\//, "no relative imports");
  assert.doesNotMatch(installedReadme, /deno task|Deno\./, "no Deno tasks or APIs");
});

test("every link of the npm README works: absolute, into files and headings the repository has", () => {
  const repository = manifest.homepage.replace(/#readme$/, "");
  const links = [...installedReadme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  assert.ok(links.length >= 10, `the README links to the documentation (${links.length} links)`);
  for (const link of links) {
    if (link.startsWith("#")) {
      assert.ok(anchors(installedReadme).has(link.slice(1)), link);
      continue;
    }
    const prefix = `${repository}/blob/main/`;
    assert.ok(link.startsWith(prefix), `${link} is an absolute link into ${repository}`);
    const [path, anchor] = link.slice(prefix.length).split("#");
    assert.ok(existsSync(join(root, path)), `${link}: ${path} exists in the repository`);
    if (anchor !== undefined) {
      assert.ok(anchors(readFileSync(join(root, path), "utf8")).has(anchor), `${link}: #${anchor}`);
    }
  }
});

test(
  "the examples of the shipped .d.ts import the package by name, and they and the README's type-check",
  {
    skip: longOnly,
  },
  () => {
    const declarations = listFiles(packageDir).filter((f) => f.endsWith(".d.ts"));
    const examples = {};
    for (const file of declarations) {
      const text = readFileSync(join(packageDir, file), "utf8");
      assert.doesNotMatch(
        text,
        /from "\.\.?\/[^"]*\.ts"/,
        `${file}: an example imports a .ts path`,
      );
      declarationExamples(text).forEach((code, i) => {
        examples[`${file.replaceAll("/", "_").replace(/\.d\.ts$/, "")}_${i}.ts`] = code;
      });
    }
    assert.ok(Object.keys(examples).length >= 25, "the declarations carry their examples");
    codeBlocks(installedReadme).forEach((code, i) => examples[`README_${i}.ts`] = code);
    for (const [file, code] of Object.entries(examples)) {
      assert.doesNotMatch(code, /from "\.\.?\//, `${file} imports a relative path`);
    }
    typeCheck("examples", examples, NODE_PROJECT);
  },
);
