// Every public function and factory that takes an options object checks it
// with the library's one option checker: an unknown key is INVALID_OPTIONS
// naming the closest known one, a wrong value is INVALID_OPTIONS naming the
// option (docs/errors.md INVALID_OPTIONS).
import assert from "node:assert/strict";
import {
  compileBundle,
  createEvaluator,
  evaluate,
  inspectBundle,
  loadBundle,
  parseJson,
  signBundle,
  validateBundle,
  verifyBundleSignature,
} from "../mod.ts";
import { traceEvaluation } from "../src/engine/mod.ts";
import { assertValidBundle } from "../src/engine/mod.ts";
import { diffBundles } from "../src/diff/mod.ts";
import { createLocalClient, createRemoteClient } from "../src/clients/mod.ts";
import { importHmacKey, verifyFreshness } from "../src/verify/mod.ts";
import { assertRejectsCode, assertThrowsCode } from "./_assert_policy_error.ts";

const BUNDLE = { schemaVersion: 1 as const, env: "prod" as const, policies: [] };
const TEXT = JSON.stringify(BUNDLE);
const REQUEST = { target: { service: "s", resource: "r", action: "a" } };
const SECRET = "0".repeat(64);

/** A typo: INVALID_OPTIONS, starting with the caller, naming the key and the closest known one. */
function typo(message: string, caller: string, key: string, match: string): void {
  assert.ok(message.startsWith(`${caller}: `), message);
  assert.ok(message.includes(`unknown option "${key}"`), message);
  assert.ok(message.includes(`did you mean "${match}"?`), message);
}

Deno.test("the engine's functions refuse typos in their options with the closest name", () => {
  const compiled = compileBundle(BUNDLE);
  const cases: [() => unknown, string, string, string][] = [
    [
      () => compileBundle(BUNDLE, { skipValidaton: true } as never),
      "compileBundle",
      "skipValidaton",
      "skipValidation",
    ],
    [
      () => createEvaluator(compiled, { parseCustomEfect: true } as never),
      "createEvaluator",
      "parseCustomEfect",
      "parseCustomEffect",
    ],
    [
      () => evaluate(compiled, REQUEST, { contextPolicyy: {} } as never),
      "createEvaluator",
      "contextPolicyy",
      "contextPolicy",
    ],
    [
      () => traceEvaluation(compiled, REQUEST, { parseCustomEfect: true } as never),
      "traceEvaluation",
      "parseCustomEfect",
      "parseCustomEffect",
    ],
    [
      () => validateBundle(BUNDLE, { maxIssue: 3 } as never),
      "validateBundle",
      "maxIssue",
      "maxIssues",
    ],
    [
      () => assertValidBundle(BUNDLE, { maxIssue: 3 } as never),
      "assertValidBundle",
      "maxIssue",
      "maxIssues",
    ],
    [() => parseJson("{}", { comment: true } as never), "parseJson", "comment", "comments"],
    [
      () => diffBundles(BUNDLE, BUNDLE, { compareScop: false } as never),
      "diffBundles",
      "compareScop",
      "compareScope",
    ],
  ];
  for (const [call, caller, key, match] of cases) {
    typo(assertThrowsCode(call, "INVALID_OPTIONS").message, caller, key, match);
  }
});

Deno.test("the engine's functions refuse wrong option values, naming the option", () => {
  const compiled = compileBundle(BUNDLE);
  for (
    const call of [
      () => compileBundle(BUNDLE, { skipValidation: "yes" } as never),
      () => createEvaluator(compiled, { contextPolicy: { allowedKeys: "plan" } } as never),
      () => createEvaluator(compiled, null as never),
      () => validateBundle(BUNDLE, { maxIssues: -1 }),
      () => validateBundle(BUNDLE, { maxIssues: Number.NaN }),
      () => parseJson("{}", { comments: 1 } as never),
    ]
  ) {
    assertThrowsCode(call, "INVALID_OPTIONS");
  }
  // What was accepted stays accepted.
  assert.equal(validateBundle(BUNDLE, { maxIssues: Infinity }).valid, true);
  assert.equal(validateBundle(BUNDLE, { maxIssues: 0 }).valid, true);
  assert.deepEqual(
    createEvaluator(compiled, { parseCustomEffect: true, contextPolicy: { allowedKeys: [] } })(
      REQUEST,
    ),
    { decision: "deny", reason: "default" },
  );
});

Deno.test("load, inspect, verify and sign refuse typos in their options with the closest name", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "k" });
  const verify = { algorithm: "HMAC_SHA256" as const, publicKey: SECRET };
  const cases: [() => Promise<unknown>, string, string, string][] = [
    [
      () => loadBundle(TEXT, { allowUnsigned: true, maxFileByte: 10 } as never),
      "loadBundle",
      "maxFileByte",
      "maxFileBytes",
    ],
    [
      () => inspectBundle(TEXT, { allowUnsinged: true } as never),
      "inspectBundle",
      "allowUnsinged",
      "allowUnsigned",
    ],
    [
      () => verifyBundleSignature(signed, { verfy: verify } as never),
      "verifyBundleSignature",
      "verfy",
      "verify",
    ],
    [
      () => signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyID: "k" } as never),
      "signBundle",
      "keyID",
      "keyId",
    ],
  ];
  for (const [call, caller, key, match] of cases) {
    typo((await assertRejectsCode(call(), "INVALID_OPTIONS")).message, caller, key, match);
  }
  await assertRejectsCode(loadBundle(TEXT, { maxFileBytes: 0 }), "INVALID_OPTIONS");
  await assertRejectsCode(loadBundle(TEXT, { allowUnsigned: "yes" } as never), "INVALID_OPTIONS");
  // The options as they were: the same results.
  assert.equal((await loadBundle(TEXT, { allowUnsigned: true })).status.policies, 0);
  assert.equal((await verifyBundleSignature(signed, { verify })).status, "verified");
});

Deno.test("a misspelt field inside a verify key is refused with the closest name, wherever verify is taken", async () => {
  const signed = await signBundle(BUNDLE, { algorithm: "HMAC_SHA256", key: SECRET, keyId: "k" });
  const bad = { algorithm: "HMAC_SHA256" as const, publicKey: SECRET, keyID: "k" } as never;
  const good = { algorithm: "HMAC_SHA256" as const, publicKey: SECRET, keyId: "k" };
  const ecdsa = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign", "verify"],
  );
  const badEcdsa = {
    algorithm: "ECDSA_SHA_256" as const,
    publicKey: ecdsa.publicKey,
    keyID: "cp",
  } as never;
  const remote = {
    baseUrl: "http://127.0.0.1:9",
    runtimeKey: "rk",
    orgId: "o",
    projectId: "p",
    env: "prod" as const,
    fetch: () => Promise.reject(new Error("no request may be made")),
  };
  const cases: [() => Promise<unknown>, string, string, string][] = [
    [() => loadBundle(TEXT, { verify: bad }), "loadBundle", "verify.keyID", "verify.keyId"],
    [
      () => loadBundle(TEXT, { verify: [good, bad] as never }),
      "loadBundle",
      "verify[1].keyID",
      "verify[1].keyId",
    ],
    [() => inspectBundle(TEXT, { verify: bad }), "inspectBundle", "verify.keyID", "verify.keyId"],
    [
      () => verifyBundleSignature(signed, { verify: bad }),
      "verifyBundleSignature",
      "verify.keyID",
      "verify.keyId",
    ],
    [
      () => verifyFreshness(signed, { verify: bad }),
      "verifyFreshness",
      "verify.keyID",
      "verify.keyId",
    ],
    [
      () => loadBundle(TEXT, { verify: { ...good, publicKy: SECRET } as never }),
      "loadBundle",
      "verify.publicKy",
      "verify.publicKey",
    ],
    [
      () => createLocalClient({ bundlePath: "no-such-file.json", verify: bad }),
      "createLocalClient",
      "verify.keyID",
      "verify.keyId",
    ],
    [
      () => createRemoteClient({ ...remote, verify: badEcdsa }),
      "createRemoteClient",
      "verify.keyID",
      "verify.keyId",
    ],
    [
      () => createRemoteClient({ ...remote, verify: [badEcdsa] }),
      "createRemoteClient",
      "verify[0].keyID",
      "verify[0].keyId",
    ],
  ];
  for (const [call, caller, key, match] of cases) {
    typo((await assertRejectsCode(call(), "INVALID_OPTIONS")).message, caller, key, match);
  }
  // Spelt right, the same keys work.
  assert.equal((await verifyBundleSignature(signed, { verify: good })).status, "verified");
});

Deno.test("a nested unknown option is named once, with its full path", async () => {
  const error = await assertRejectsCode(
    createLocalClient({ bundlePath: "no-such-file.json", watch: { interval: 5 } } as never),
    "INVALID_OPTIONS",
  );
  assert.equal(
    error.message,
    'createLocalClient: unknown option "watch.interval"; did you mean "watch.intervalMs"?',
  );
});

Deno.test("importHmacKey() with a usage that is not sign or verify is INVALID_OPTIONS, not a DOMException", async () => {
  for (const usage of ["sgn", "Sign", "encrypt", "", undefined, 1]) {
    if (usage === undefined) continue; // the default, "verify"
    const error = await assertRejectsCode(
      importHmacKey(SECRET, usage as never),
      "INVALID_OPTIONS",
    );
    assert.match(error.message, /^importHmacKey: usage must be "sign" or "verify"/);
  }
  assert.match(
    (await assertRejectsCode(importHmacKey(SECRET, "sgn" as never), "INVALID_OPTIONS")).message,
    /did you mean "sign"\?/,
  );
  const key = await importHmacKey(SECRET, "sign");
  assert.match(
    (await assertRejectsCode(importHmacKey(key, "verfy" as never), "INVALID_OPTIONS")).message,
    /did you mean "verify"\?/,
  );
});
