/**
 * Secrets never appear in any output: every signing path (ECDSA key file,
 * HMAC secret from the environment, HMAC secret on the command line), every
 * command that reads them, with --verbose, in both formats.
 */
import assert from "node:assert/strict";
import { HMAC_SECRET, type RunResult, scratch } from "./_helpers.ts";

/** Fragments of secret material that must not be printed. */
function fragments(privateKeyPem: string, secret: string): string[] {
  const body = privateKeyPem.split("\n").filter((l) => l !== "" && !l.startsWith("-----"));
  return [
    secret,
    secret.toUpperCase(),
    secret.slice(0, 16),
    secret.slice(-16),
    body.join(""),
    ...body.map((line) => line.slice(0, 24)),
    "PRIVATE KEY-----",
  ];
}

function assertNoSecret(result: RunResult, secrets: string[], what: string) {
  for (const secret of secrets) {
    assert.ok(!result.stdout.includes(secret), `${what}: stdout holds secret material`);
    assert.ok(!result.stderr.includes(secret), `${what}: stderr holds secret material`);
  }
}

Deno.test("no signing path prints the HMAC secret or private key material, even with --verbose", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.fixture("suite.json");
  assert.equal(
    (await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"])).code,
    0,
  );
  const secrets = fragments(await s.read("keys/private-key.pem"), HMAC_SECRET);
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET, NAMED_SECRET: HMAC_SECRET };
  const paths: [string, string[], Record<string, string>, string][] = [
    [
      "ECDSA key file",
      ["--signing-algorithm", "ECDSA_SHA_256", "--ecdsa-private-key", "keys/private-key.pem"],
      {},
      "ECDSA_SHA_256",
    ],
    ["HMAC default env", ["--signing-algorithm", "HMAC_SHA256"], env, "HMAC_SHA256"],
    ["HMAC named env", ["--hmac-secret-env", "NAMED_SECRET"], env, "HMAC_SHA256"],
    [
      "HMAC flag",
      ["--signing-algorithm", "HMAC_SHA256", "--hmac-secret", HMAC_SECRET],
      {},
      "HMAC_SHA256",
    ],
  ];
  for (const [name, flags, pathEnv, algorithm] of paths) {
    // The flag path necessarily has the secret in argv; it must still not be echoed.
    for (const format of [[], ["--format", "json"]]) {
      const runs: [string, string[]][] = [
        ["build", ["build", "--signed", "--signing-key-id", "k", ...flags]],
        ["sign", ["sign", "--signing-key-id", "k", ...flags]],
      ];
      for (const [command, args] of runs) {
        const result = await s.run([...args, "--verbose", ...format], { env: pathEnv });
        assert.equal(result.code, 0, `${name} ${command}: ${result.stderr}`);
        assert.match(result.stderr, /verbose: /);
        assertNoSecret(result, secrets, `${name} ${command} ${format.join(" ")}`);
      }
      // Reading the secret back to verify (inspect, simulate) prints no secret either.
      const verifyEnv = algorithm === "HMAC_SHA256" ? { POLICY_PUBLIC_KEY: HMAC_SECRET } : {
        POLICY_PUBLIC_KEY_PATH: "keys/public-key.pem",
      };
      // A public-key variable holds an HMAC secret only with --algorithm HMAC_SHA256.
      const verifyFlags = ["--algorithm", algorithm];
      for (
        const args of [
          ["inspect", "--signature"],
          ["simulate", "--suite", "suite.json"],
          [
            "simulate",
            "--service",
            "billing",
            "--resource",
            "invoice",
            "--action",
            "create",
            "--trace",
            "full",
          ],
        ]
      ) {
        const result = await s.run([...args, ...verifyFlags, "--verbose", ...format], {
          env: verifyEnv,
        });
        assert.equal(result.code, 0, `${name} ${args[0]}: ${result.stderr}`);
        assertNoSecret(result, secrets, `${name} ${args.join(" ")} ${format.join(" ")}`);
      }
    }
  }
  // Verification from the signing blocks (secret variable, private key) prints no secret.
  await s.write("policy.config.json", {
    build: { signing: { algorithm: "HMAC_SHA256", keyId: "k", hmacSecretEnv: "NAMED_SECRET" } },
  });
  for (
    const args of [["build", "--signed"], ["inspect", "--signature"], [
      "simulate",
      "--suite",
      "suite.json",
    ]]
  ) {
    for (const format of [[], ["--format", "json"]]) {
      const result = await s.run([...args, "--verbose", ...format], { env });
      assert.equal(result.code, 0, result.stderr);
      assertNoSecret(result, secrets, `config ${args.join(" ")}`);
    }
  }
  await s.write("policy.config.json", {
    build: {
      signing: {
        algorithm: "ECDSA_SHA_256",
        keyId: "k",
        ecdsaPrivateKeyPath: "keys/private-key.pem",
      },
    },
  });
  for (
    const args of [["build", "--signed"], ["inspect", "--signature"], [
      "simulate",
      "--suite",
      "suite.json",
    ]]
  ) {
    for (const format of [[], ["--format", "json"]]) {
      const result = await s.run([...args, "--verbose", ...format]);
      assert.equal(result.code, 0, result.stderr);
      assertNoSecret(result, secrets, `config ${args.join(" ")}`);
    }
  }
});

Deno.test("errors about unusable secrets and keys do not quote them", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const badSecret = "g".repeat(63) + "Z";
  const secretRun = await s.run(
    [
      "build",
      "--signed",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "k",
      "--verbose",
      "--format",
      "json",
    ],
    { env: { POLICY_HMAC_SECRET: badSecret } },
  );
  assert.equal(secretRun.code, 2);
  assertNoSecret(secretRun, [badSecret, badSecret.slice(0, 16)], "bad HMAC secret");
  const badKey =
    "-----BEGIN PRIVATE KEY-----\nTUlJQmFkS2V5TWF0ZXJpYWxUaGF0SXNOb3RESVI=\n-----END PRIVATE KEY-----\n";
  await s.write("bad.pem", badKey);
  const keyRun = await s.run([
    "build",
    "--signed",
    "--ecdsa-private-key",
    "bad.pem",
    "--signing-key-id",
    "k",
    "--verbose",
    "--format",
    "json",
  ]);
  assert.equal(keyRun.code, 2);
  assertNoSecret(
    keyRun,
    ["TUlJQmFkS2V5TWF0ZXJpYWxUaGF0SXNOb3RESVI", "TUlJQmFkS2V5"],
    "bad private key",
  );
});

Deno.test("a secret given where a variable name is expected, or as a stray argument, is never echoed", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  const secrets = [HMAC_SECRET, HMAC_SECRET.slice(0, 16), HMAC_SECRET.toUpperCase().slice(0, 16)];
  assert.equal((await s.run(["build"])).code, 0, "an unsigned bundle to sign");
  const upper = HMAC_SECRET.toUpperCase(); // a valid variable name, and still a secret
  const runs: [string, string[], string][] = [
    [
      "value as --hmac-secret-env",
      ["build", "--signed", "--hmac-secret-env", HMAC_SECRET],
      "USAGE_ERROR",
    ],
    [
      "upper-case value as --hmac-secret-env",
      ["build", "--signed", "--hmac-secret-env", upper],
      "USAGE_ERROR",
    ],
    [
      "value as --hmac-secret-env to sign",
      ["sign", "--hmac-secret-env", HMAC_SECRET],
      "USAGE_ERROR",
    ],
    ["stray argument after the signing flags", [
      "build",
      "--signed",
      "--hmac-secret-env",
      "POLICY_HMAC_SECRET",
      HMAC_SECRET,
    ], "USAGE_ERROR"],
    ["stray argument to sign", ["sign", HMAC_SECRET], "USAGE_ERROR"],
  ];
  for (const [name, args, code] of runs) {
    for (const json of [false, true]) {
      const result = await s.run(json ? [...args, "--format", "json"] : args, {
        env: { POLICY_HMAC_SECRET: HMAC_SECRET },
      });
      assert.equal(result.code, 2, `${name}: ${result.stderr}`);
      assertNoSecret(result, [...secrets, upper.slice(0, 16)], name);
      if (json) assert.equal(JSON.parse(result.stdout).error.code, code, name);
    }
  }
  // The same value in the configuration's hmacSecretEnv.
  await s.write("policy.config.json", { build: { signing: { hmacSecretEnv: HMAC_SECRET } } });
  const configured = await s.run(["build", "--signed", "--format", "json"]);
  assert.equal(JSON.parse(configured.stdout).error.code, "CONFIG_INVALID");
  assertNoSecret(configured, secrets, "hmacSecretEnv in the configuration");
});

Deno.test("a file that is not what its path promised is named by path and position, never quoted", async () => {
  await using s = await scratch();
  const foreign = "root:x:0:0:root:/root:/bin/bash\nsecret-line: hunter2\n";
  await s.write("passwd", foreign);
  await s.write("policy-bundle.json", foreign);
  await s.write("policy-drafts.json", foreign);
  const runs = [
    ["validate", "passwd"],
    ["validate"],
    ["inspect", "--policies"],
    ["simulate", "--service", "s", "--resource", "r", "--action", "a"],
    ["simulate", "--suite", "passwd"],
    ["policies", "add-rule", "--policy-key", "p", "--rule-file", "passwd"],
    ["validate", "policy-bundle.json", "--config", "passwd"],
  ];
  for (const args of runs) {
    for (const json of [false, true]) {
      const result = await s.run(json ? [...args, "--format", "json"] : args);
      const what = `policy ${args.join(" ")}`;
      assert.notEqual(result.code, 0, what);
      for (const fragment of ["root:x", "hunter2", "/bin/bash"]) {
        assert.ok(!result.stdout.includes(fragment), `${what}: stdout quotes the file`);
        assert.ok(!result.stderr.includes(fragment), `${what}: stderr quotes the file`);
      }
      assert.match(result.stdout + result.stderr, /line 1, column 1|:1:1/, what);
    }
  }
});
