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

/** Values that look like secrets, pasted into the wrong flag or config field. */
const PASTED = {
  hex: HMAC_SECRET,
  // A valid variable name (and identifier), still holding a secret.
  prefixed: `x${HMAC_SECRET}`,
  base64: "q3Zl7Tn0Xc9VbH2mKp4RwYs8Ld6FgJ1aEu5Oi0NtBr7CzQxW",
  pem:
    "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----",
};

/** Parts of `value` that must not be printed: itself and its 16-character pieces. */
function piecesOf(value: string): string[] {
  const core = value.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const pieces = [value];
  for (let i = 0; i + 16 <= core.length; i += 8) pieces.push(core.slice(i, i + 16));
  return pieces;
}

/**
 * Flags and config fields whose value is data the command stores or reports
 * (ids, names, a target, where to write): given a secret there, the command
 * does what it was told and may print it. Every other value is checked.
 */
const DATA_FLAGS = new Set([
  "update-policy --friendly-name",
  "update-policy --kill-switch-service",
  "update-policy --kill-switch-reason",
  "update-policy --throttle-key",
  "update-policy --custom-effect",
  "build --org-id",
  "build --project-id",
  "build --signing-key-id",
  "sign --signing-key-id",
  "simulate --service",
  "simulate --resource",
  "simulate --action",
  "simulate --junit",
  "generate --out-dir",
  // Where keys are written, and the folder the command exists to show or set.
  "generate --working-folder",
  "working-folder --working-folder",
  "working-folder set",
]);

/** The flags of a command that take a value, from its `--help`. */
function valueFlags(help: string): string[] {
  const flags: string[] = [];
  for (const line of help.split("\n")) {
    const match = /^\s+(?:-\w, )?--([a-z][a-z-]*) (\S+)\s{2,}/.exec(line);
    if (match !== null) flags.push(match[1]!);
  }
  return flags;
}

Deno.test("a secret pasted into any flag, argument or config field is never echoed", async () => {
  await using s = await scratch();
  await s.fixture("draft.json", "policy-drafts.json");
  await s.fixture("suite.json");
  assert.equal((await s.run(["build"])).code, 0);
  await s.write("rules/r.json", {
    id: "r-new",
    status: "active",
    priority: 5,
    target: { service: "billing", resource: "invoice", action: "create" },
    effect: { type: "allow" },
  });
  const env = { POLICY_HMAC_SECRET: HMAC_SECRET, POLICY_API_URL: "http://127.0.0.1:9" };
  // Each command with arguments that make it otherwise valid.
  const commands: [string[], string[]][] = [
    [["analyze"], []],
    [["policies", "update-policy"], [
      "--policy-key",
      "billing.invoice.create",
      "--defaults-effect",
      "deny",
    ]],
    [["policies", "add-rule"], [
      "--policy-key",
      "billing.invoice.create",
      "--rule-file",
      "rules/r.json",
    ]],
    [["policies", "import"], []],
    [["validate"], []],
    [["build"], ["--signed", "--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "k"]],
    [["sign"], ["--signing-algorithm", "HMAC_SHA256", "--signing-key-id", "k"]],
    [["simulate"], ["--service", "billing", "--resource", "invoice", "--action", "create"]],
    [["diff"], ["policy-bundle.json", "policy-bundle.json"]],
    [["inspect"], ["--signature"]],
    [["keys", "generate"], ["--algorithm", "ECDSA_SHA_256", "--out-dir", "k"]],
    [["activate"], []],
    [["working-folder"], []],
  ];
  const failures: string[] = [];
  const check = async (what: string, args: string[], data: boolean, extraEnv = {}) => {
    for (const [name, secret] of Object.entries(PASTED)) {
      for (const format of [[], ["--format", "json"]]) {
        const filled = args.map((a) => a === "<secret>" ? secret : a);
        const result = await s.run([...filled, ...format], { env: { ...env, ...extraEnv } });
        if (data && result.code === 0) continue;
        for (const piece of piecesOf(secret)) {
          if ((result.stdout + result.stderr).includes(piece)) {
            failures.push(
              `${what} (${name}${format.length ? ", json" : ""}): ${
                (result.stdout + result.stderr).slice(0, 300)
              }`,
            );
            break;
          }
        }
      }
    }
  };
  for (const [command, base] of commands) {
    const help = (await s.run([...command, "--help"])).stdout;
    const flags = new Set(valueFlags(help));
    for (const flag of flags) {
      const at = base.indexOf(`--${flag}`);
      const args = at === -1
        ? [...command, ...base, `--${flag}`, "<secret>"]
        : [...command, ...base.slice(0, at + 1), "<secret>", ...base.slice(at + 2)];
      if (flag === "junit") args.push("--suite", "suite.json");
      const name = `${command.at(-1)} --${flag}`;
      await check(name, args, DATA_FLAGS.has(name));
    }
    // As an argument: a file, a subcommand, or a stray one.
    await check(`${command.join(" ")} <argument>`, [...command, "<secret>"], false);
  }
  await check("an unknown command", ["<secret>"], false);
  await check("an unknown flag", ["build", "--<secret>"], false);
  await check("working-folder set", ["working-folder", "set", "<secret>"], true);
  assert.equal((await s.run(["working-folder", "reset"])).code, 0);
  await check("POLICY_WORKING_FOLDER", ["validate"], false, { POLICY_WORKING_FOLDER: "<secret>" });
  // Every field of policy.config.json, read by the commands that use it.
  const fields = [
    "draft.path",
    "bundle.path",
    "signature.publicKeyPath",
    "limits.maxFileBytes",
    "build.env",
    "build.outputDirectory",
    "build.signed",
    "build.validateParity",
    "build.bundleVersionStrategy",
    "build.signing.algorithm",
    "build.signing.keyId",
    "build.signing.hmacSecretEnv",
    "build.signing.ecdsaPrivateKeyPath",
    "sign.signing.algorithm",
    "sign.signing.hmacSecretEnv",
    "sign.signing.ecdsaPrivateKeyPath",
    "analyze.source",
  ];
  const dataFields = new Set(["build.signing.keyId"]);
  for (const field of fields) {
    for (const [name, secret] of Object.entries(PASTED)) {
      const config: Record<string, unknown> = {};
      const parts = field.split(".");
      let at = config;
      for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
      at[parts.at(-1)!] = secret;
      await s.write("policy.config.json", config);
      const runs = [["build", "--signed"], ["sign"], ["inspect", "--signature"], ["analyze"], [
        "validate",
      ]];
      for (const args of runs) {
        const result = await s.run(
          [...args, "--signing-key-id", "k"].slice(
            0,
            args[0] === "build" || args[0] === "sign" ? undefined : args.length,
          ),
          { env },
        );
        if (dataFields.has(field) && result.code === 0) continue;
        if (piecesOf(secret).some((p) => (result.stdout + result.stderr).includes(p))) {
          failures.push(
            `config ${field} (${name}) via ${args[0]}: ${
              (result.stdout + result.stderr).slice(0, 300)
            }`,
          );
        }
      }
    }
  }
  await s.write("policy.config.json", {});
  assert.deepEqual(failures, [], `secrets echoed:\n${failures.join("\n")}`);
});
