/**
 * Hostile key texts through the `policy` command line (issue: hex text
 * around a public key became a trusted HMAC secret). A key text is read by
 * one strict reader (`src/cli/kit/key_text.ts`, on the strict mode of `src/verify/pem.ts`): PEM blocks of one kind
 * (text outside them ignored), or 64-hex secrets and nothing else, and an
 * HMAC secret is never taken from a source named as a public key unless
 * `--algorithm HMAC_SHA256` says so.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, HMAC_SECRET, type RunResult, scratch } from "../cli/_helpers.ts";
import { cliEnv, DENO, explainIgnored, runPolicy } from "../faults/_policy_process.ts";

explainIgnored("key_text_test");

/** The SHA-256 fingerprint of a PEM public key's DER, as `openssl … | sha256sum` prints it. */
async function fingerprint(pem: string): Promise<string> {
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", der));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A working folder with an ECDSA key pair, `annotated.pem` (the public key
 * under a comment line holding its fingerprint) and, as the configured
 * bundle, an HMAC bundle forged with that public fingerprint as the secret.
 */
async function forgedSetup() {
  const s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const keys = await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "k"]);
  assert.equal(keys.code, 0, keys.stderr);
  const pem = await s.read("k/public-key.pem");
  const fp = await fingerprint(pem);
  await s.write("annotated.pem", `# SHA256 fingerprint: ${fp}\n${pem}`);
  // The attacker knows only the public key, hence its fingerprint.
  const forged = await s.run(
    ["build", "--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "release-1"],
    { env: { POLICY_HMAC_SECRET: fp } },
  );
  assert.equal(forged.code, 0, forged.stderr);
  return { s, pem, fp };
}

const SIMULATE = [
  "simulate",
  "--service",
  "billing",
  "--resource",
  "invoice",
  "--action",
  "create",
];

function verificationOf(result: RunResult): Record<string, unknown> {
  return JSON.parse(result.stdout).verification;
}

Deno.test("a fingerprint comment beside a public key is not an HMAC secret: inspect --signature refuses the forged bundle", async () => {
  const { s } = await forgedSetup();
  await using _ = s;
  const r = await s.json(["inspect", "--signature", "--public-key", "annotated.pem"]);
  assert.equal(r.code, 1, `the forged bundle must not verify: ${r.stdout}`);
  const v = r.doc.verification as Record<string, unknown>;
  assert.equal(v.status, "invalid");
  assert.equal(v.code, "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH");
  assert.equal(v.keySource, path.join(s.wf, "annotated.pem"), "one key: the PEM block");
  // Every other way of naming that key text: the variable, its path, the config.
  const pemText = await s.read("annotated.pem");
  for (
    const env of [
      { POLICY_PUBLIC_KEY: pemText },
      { POLICY_PUBLIC_KEY_PATH: "annotated.pem" },
    ]
  ) {
    const viaEnv = await s.json(["inspect", "--signature"], { env });
    assert.equal(viaEnv.code, 1, JSON.stringify(env).slice(0, 40));
    assert.equal((viaEnv.doc.verification as { status: string }).status, "invalid");
  }
  await s.write("policy.config.json", { signature: { publicKeyPath: "annotated.pem" } });
  const viaConfig = await s.json(["inspect", "--signature"]);
  assert.equal(viaConfig.code, 1);
  assert.equal((viaConfig.doc.verification as { status: string }).status, "invalid");
});

Deno.test("a fingerprint comment beside a public key is not an HMAC secret: simulate refuses the forged bundle", async () => {
  const { s, fp } = await forgedSetup();
  await using _ = s;
  const runs: [string, Record<string, string>][] = [
    ["POLICY_PUBLIC_KEY_PATH", { POLICY_PUBLIC_KEY_PATH: "annotated.pem" }],
    ["POLICY_PUBLIC_KEY", { POLICY_PUBLIC_KEY: await s.read("annotated.pem") }],
  ];
  for (const [name, env] of runs) {
    const r = await s.run([...SIMULATE, "--format", "json"], { env });
    assert.notEqual(r.code, 0, `${name}: simulate must not evaluate the forged bundle`);
    assert.doesNotMatch(r.stdout, /"verified"/, name);
    assert.match(r.stderr, /\(BUNDLE_SIGNATURE_ALGORITHM_MISMATCH\)/, name);
  }
  await s.write("policy.config.json", { signature: { publicKeyPath: "annotated.pem" } });
  const viaConfig = await s.run([...SIMULATE, "--format", "json"]);
  assert.notEqual(viaConfig.code, 0);
  assert.doesNotMatch(viaConfig.stdout, /"verified"/);
  // The fingerprint is never printed either (it was trusted as a secret).
  assert.ok(!viaConfig.stdout.includes(fp) && !viaConfig.stderr.includes(fp));
});

Deno.test({
  name: "cli.ts inspect --signature --public-key annotated.pem exits 1 on the forged HMAC bundle",
  ignore: DENO === null,
  fn: async () => {
    const { s } = await forgedSetup();
    await using _ = s;
    const r = await runPolicy(
      ["inspect", "--signature", "--public-key", "annotated.pem", "--format", "json"],
      { cwd: s.wf, env: cliEnv(s.home) },
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(verificationOf(r as RunResult).status, "invalid");
  },
});

Deno.test("a key text of bare 64-hex secrets verifies HMAC only with --algorithm HMAC_SHA256, on inspect and simulate", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET };
  const built = await s.run(
    ["build", "--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "h"],
    { env },
  );
  assert.equal(built.code, 0, built.stderr);
  await s.write("secret.txt", `${HMAC_SECRET}\n`);
  const sources: [string, string[], Record<string, string>][] = [
    ["--public-key", ["--public-key", "secret.txt"], {}],
    ["POLICY_PUBLIC_KEY", [], { POLICY_PUBLIC_KEY: HMAC_SECRET }],
    ["POLICY_PUBLIC_KEY_PATH", [], { POLICY_PUBLIC_KEY_PATH: "secret.txt" }],
  ];
  for (const [name, flags, sourceEnv] of sources) {
    const refused = await s.run(["inspect", "--signature", ...flags], { env: sourceEnv });
    assertError(refused, 2, "INVALID_KEY");
    assert.match(refused.stderr, /--algorithm HMAC_SHA256/, name);
    assert.ok(!refused.stderr.includes(HMAC_SECRET.slice(0, 16)), `${name}: quotes the secret`);
    const accepted = await s.json(
      ["inspect", "--signature", "--algorithm", "HMAC_SHA256", ...flags],
      { env: sourceEnv },
    );
    assert.equal(accepted.code, 0, `${name}: ${accepted.stderr}`);
    assert.equal((accepted.doc.verification as { status: string }).status, "valid", name);
    if (name === "--public-key") continue; // simulate takes keys from the environment and config
    assertError(await s.run(SIMULATE, { env: sourceEnv }), 2, "INVALID_KEY");
    const simulated = await s.json([...SIMULATE, "--algorithm", "HMAC_SHA256"], {
      env: sourceEnv,
    });
    assert.equal(simulated.code, 0, `${name}: ${simulated.stderr}`);
    assert.equal((simulated.doc.verification as { status: string }).status, "verified", name);
  }
  // signature.publicKeyPath holding a secret: the same rule.
  await s.write("policy.config.json", { signature: { publicKeyPath: "secret.txt" } });
  assertError(await s.run(["inspect", "--signature"]), 2, "INVALID_KEY");
  assertError(await s.run(SIMULATE), 2, "INVALID_KEY");
  assert.equal(
    (await s.run(["inspect", "--signature", "--algorithm", "HMAC_SHA256"])).code,
    0,
  );
  // --algorithm must match what the key text holds.
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "k"]);
  assertError(
    await s.run([
      "inspect",
      "--signature",
      "--algorithm",
      "HMAC_SHA256",
      "--public-key",
      "k/public-key.pem",
    ]),
    2,
    "INVALID_KEY",
  );
  assertError(
    await s.run(["inspect", "--signature", "--algorithm", "ECDSA_SHA_256"]),
    2,
    "INVALID_KEY",
  );
});

Deno.test("the strict key reader refuses every key text that is not PEM blocks of one kind or bare 64-hex secrets", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "k"]);
  const pub = await s.read("k/public-key.pem");
  const priv = await s.read("k/private-key.pem");
  const built = await s.run([
    "build",
    "--signed",
    "--ecdsa-private-key",
    "k/private-key.pem",
    "--signing-key-id",
    "k1",
  ]);
  assert.equal(built.code, 0, built.stderr);
  const body = pub.split("\n").filter((l) => l !== "" && !l.startsWith("-----")).join("\n");
  // Accepted: one or more SPKI blocks, anything outside them ignored (hex included).
  const accepted: [string, string][] = [
    ["hex line after the block", `${pub}${HMAC_SECRET}\n`],
    ["hex and words around the block", `${HMAC_SECRET}\nkey:\n${pub}\n${HMAC_SECRET} trailing`],
    ["two blocks (a rotation) with comments", `# old\n${pub}# new\n${pub}`],
  ];
  for (const [name, text] of accepted) {
    await s.write("key.pem", text);
    const r = await s.json(["inspect", "--signature", "--public-key", "key.pem"]);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.equal((r.doc.verification as { status: string }).status, "valid", name);
    // With --algorithm HMAC_SHA256 the hex around a PEM block is still not a key.
    assertError(
      await s.run([
        "inspect",
        "--signature",
        "--public-key",
        "key.pem",
        "--algorithm",
        "HMAC_SHA256",
      ]),
      2,
      "INVALID_KEY",
    );
  }
  const refused: [string, string][] = [
    ["empty", ""],
    ["white space only", " \n\t\n"],
    ["a public and a private key", `${pub}${priv}`],
    ["a private key", priv],
    ["a certificate label", pub.replaceAll("PUBLIC KEY", "CERTIFICATE")],
    ["BEGIN without END", pub.replace(/-----END PUBLIC KEY-----\n?/, "")],
    ["END without BEGIN", `-----END PUBLIC KEY-----\n${pub}`],
    ["mismatched labels", pub.replace("END PUBLIC KEY", "END PRIVATE KEY")],
    ["junk inside the block", pub.replace(body, `${body}\n${HMAC_SECRET}!`)],
    ["a header inside the block", pub.replace(body, `Proc-Type: 4,ENCRYPTED\n\n${body}`)],
    ["a labelled secret", `secret: ${HMAC_SECRET}\n`],
    ["a secret and a word", `${HMAC_SECRET} x\n`],
    ["63 hex digits", HMAC_SECRET.slice(1)],
    ["65 hex digits", `${HMAC_SECRET}a`],
    ["17 secrets", Array(17).fill(HMAC_SECRET).join("\n")],
    ["17 public keys", Array(17).fill(pub).join("")],
  ];
  for (const [name, text] of refused) {
    await s.write("key.pem", text);
    for (
      const algorithm of [[], ["--algorithm", "HMAC_SHA256"], ["--algorithm", "ECDSA_SHA_256"]]
    ) {
      const r = await s.run(["inspect", "--signature", "--public-key", "key.pem", ...algorithm]);
      assertError(r, 2, "INVALID_KEY");
      for (const fragment of [HMAC_SECRET.slice(0, 16), body.slice(0, 24), "BEGIN PRIVATE"]) {
        assert.ok(!(r.stdout + r.stderr).includes(fragment), `${name}: quotes the key text`);
      }
    }
  }
});

Deno.test("private keys and HMAC secret variables go through the same strict reader", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "k"]);
  const pub = await s.read("k/public-key.pem");
  const priv = await s.read("k/private-key.pem");
  const sign = (file: string) => [
    "build",
    "--signed",
    "--ecdsa-private-key",
    file,
    "--signing-key-id",
    "k1",
  ];
  // A private key file with a fingerprint comment signs ECDSA; the hex is not a key.
  await s.write("annotated-private.pem", `# fingerprint ${HMAC_SECRET}\n${priv}`);
  const ok = await s.json(sign("annotated-private.pem"));
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(ok.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "k1" });
  const refused: [string, string][] = [
    ["hex only", `${HMAC_SECRET}\n`],
    ["two private keys", `${priv}${priv}`],
    ["a public key", pub],
    ["a private key and a public key", `${priv}${pub}`],
    ["BEGIN without END", priv.replace(/-----END PRIVATE KEY-----\n?/, "")],
  ];
  for (const [name, text] of refused) {
    await s.write("bad.pem", text);
    const r = await s.run(sign("bad.pem"));
    assertError(r, 2, "INVALID_KEY");
    assert.ok(!(r.stdout + r.stderr).includes(HMAC_SECRET.slice(0, 16)), name);
  }
  // The signing block's private key, read to verify (simulate, inspect): the same reader.
  await s.write("policy.config.json", {
    build: {
      signing: { algorithm: "ECDSA_SHA_256", keyId: "k1", ecdsaPrivateKeyPath: "bad.pem" },
    },
  });
  await s.write("bad.pem", `${priv}${priv}`);
  assertError(await s.run(["inspect", "--signature"]), 2, "INVALID_KEY");
  // HMAC secret variables: exactly one 64-hex secret (surrounding white space allowed).
  await s.write("policy.config.json", {});
  const hmac = ["build", "--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "h"];
  assert.equal(
    (await s.run(hmac, { env: { POLICY_HMAC_SECRET: `${HMAC_SECRET}\n` } })).code,
    0,
  );
  for (
    const value of [
      `${HMAC_SECRET} ${HMAC_SECRET}`,
      `${pub}${HMAC_SECRET}`,
      `# secret\n${HMAC_SECRET}`,
    ]
  ) {
    const r = await s.run(hmac, { env: { POLICY_HMAC_SECRET: value } });
    assertError(r, 2, "INVALID_KEY");
    assert.ok(!(r.stdout + r.stderr).includes(HMAC_SECRET.slice(0, 16)));
    const verify = await s.run(["inspect", "--signature"], { env: { POLICY_HMAC_SECRET: value } });
    assertError(verify, 2, "INVALID_KEY");
  }
});
