/**
 * Hostile documents through the `policy` command line: as a child process
 * with the `policy` task's permissions (the exit code and stderr a user
 * sees: a code, never a stack trace), and in-process in an isolated worker
 * (see `_isolated.ts`) for the many smaller cases.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { scratch } from "../cli/_helpers.ts";
import {
  type ChildResult,
  cliEnv,
  DENO,
  explainIgnored,
  runPolicy,
} from "../faults/_policy_process.ts";
import { hostileTest } from "./_isolated.ts";
import { bundleOf, deepArray, notChain, rule, signedText, withRaw } from "./_inputs.ts";

explainIgnored("cli_hostile_test");

const DEEP = 200_000;

/** A run that failed cleanly: exit 1 or 2, a code in parentheses, no stack trace. */
function assertCleanFailure(
  result: Pick<ChildResult, "code" | "stdout" | "stderr">,
  what: string,
): string {
  assert.ok(
    result.code === 1 || result.code === 2,
    `${what}: exit ${result.code}\n${result.stderr}`,
  );
  const all = result.stdout + result.stderr;
  assert.doesNotMatch(all, /^\s+at /m, `${what}: no stack trace\n${all.slice(0, 2000)}`);
  assert.doesNotMatch(all, /Uncaught|RangeError|Maximum call stack|INTERNAL_ERROR/, what);
  const code = /\(([A-Z][A-Z_]+)\)/.exec(result.stderr)?.[1] ??
    /^error ([A-Z][A-Z_]+) at /m.exec(result.stdout)?.[1];
  assert.ok(code !== undefined, `${what}: names a code\n${all.slice(0, 2000)}`);
  return code;
}

Deno.test({
  name:
    "cli.ts validate on files nested 200,000 deep exits 1 or 2 with a code, never a stack trace",
  ignore: DENO === null,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    await using s = await scratch();
    const files: Record<string, string> = {
      "deep-array.json": deepArray(DEEP),
      "deep-when.json": withRaw(bundleOf([rule("r1", { when: "<w>" })]), { "<w>": notChain(DEEP) }),
      "deep-default.json": withRaw(
        bundleOf([rule()], {}, { defaults: { effect: "deny", x: "<d>" } }),
        { "<d>": deepArray(DEEP) },
      ),
    };
    const expected: Record<string, string> = {
      "deep-array.json": "DOCUMENT_NOT_OBJECT",
      "deep-when.json": "CONDITION_TOO_DEEP",
      "deep-default.json": "DOCUMENT_TOO_DEEP",
    };
    for (const [name, text] of Object.entries(files)) {
      await s.write(name, text);
      const result = await runPolicy(["validate", name], { cwd: s.wf, env: cliEnv(s.home) });
      assert.equal(assertCleanFailure(result, name), expected[name], name);
      // The same file as the configured bundle goes through the bundle reader.
      const json = await runPolicy(["validate", name, "--format", "json"], {
        cwd: s.wf,
        env: cliEnv(s.home),
      });
      assert.equal(json.code, 1, json.stderr);
      const document = JSON.parse(json.stdout);
      assert.equal(document.valid, false);
      assert.ok(document.errors.some((e: { code: string }) => e.code === expected[name]), name);
    }
    // And through the commands that load it as the bundle.
    await s.write("policy-bundle.json", files["deep-when.json"]!);
    for (
      const args of [["inspect"], [
        "simulate",
        "--service",
        "s",
        "--resource",
        "r",
        "--action",
        "a",
      ]]
    ) {
      const result = await runPolicy(args, { cwd: s.wf, env: cliEnv(s.home) });
      assert.equal(assertCleanFailure(result, args[0]!), "BUNDLE_INVALID");
    }
  },
});

hostileTest(
  import.meta.url,
  "the CLI in-process: invalid UTF-8, empty, null, 1e400, oversized and deeply nested documents all fail with a code",
  async () => {
    await using s = await scratch();
    const write = async (name: string, data: string | Uint8Array) => {
      const file = path.join(s.wf, name);
      if (typeof data === "string") await Deno.writeTextFile(file, data);
      else await Deno.writeFile(file, data);
      return name;
    };
    const signed = await signedText(bundleOf([rule("r1", {
      when: { op: "eq", path: "x", value: null },
    })]));
    const cases: [string, string | Uint8Array, number, string][] = [
      ["bad-utf8.json", new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), 2, "DOCUMENT_PARSE_ERROR"],
      ["utf16.json", new Uint8Array([0xff, 0xfe, 0x7b, 0, 0x7d, 0]), 2, "DOCUMENT_PARSE_ERROR"],
      ["empty.json", "", 2, "DOCUMENT_PARSE_ERROR"],
      ["null.json", "null", 1, "DOCUMENT_NOT_OBJECT"],
      ["string.json", '"policies"', 1, "DOCUMENT_NOT_OBJECT"],
      ["overflow.json", signed.replace('"value":null', '"value":1e400'), 1, "NUMBER_NOT_FINITE"],
    ];
    for (const [name, data, exit, code] of cases) {
      await write(name, data);
      const result = await s.run(["validate", name]);
      assert.equal(result.code, exit, `${name}: ${result.stderr}${result.stdout}`);
      assert.ok(
        (result.stdout + result.stderr).includes(code),
        `${name}: ${result.stdout}${result.stderr}`,
      );
      assert.doesNotMatch(result.stdout + result.stderr, /INTERNAL_ERROR|^\s+at /m, name);
    }
    // The configured bundle, over limits.maxFileBytes: refused before it is read (a sparse file).
    await write("policy-bundle.json", "");
    await Deno.truncate(path.join(s.wf, "policy-bundle.json"), 110_000_000);
    for (
      const args of [["validate"], ["inspect"], [
        "simulate",
        "--service",
        "s",
        "--resource",
        "r",
        "--action",
        "a",
      ]]
    ) {
      const result = await s.run(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /\(BUNDLE_TOO_LARGE\)/);
    }
    // sign refuses a bundle it cannot sign with a code, not an internal error.
    await write(
      "policy-bundle.json",
      withRaw(bundleOf([rule()], { x: "<d>" }), { "<d>": deepArray(DEEP) }),
    );
    const sign = await s.run([
      "sign",
      "--signing-algorithm",
      "HMAC_SHA256",
      "--signing-key-id",
      "k",
    ], {
      env: { POLICY_HMAC_SECRET: "ab".repeat(32) },
    });
    assert.equal(sign.code, 1, sign.stderr);
    assert.match(sign.stderr, /\(BUNDLE_INVALID\)/);
  },
);

hostileTest(
  import.meta.url,
  "the CLI end to end with __proto__ and constructor as policy key, rule id, rule members and context keys",
  async () => {
    await using s = await scratch();
    assert.equal((await s.run(["working-folder", "init", "-w", s.wf])).code, 0);
    const update = await s.run([
      "policies",
      "update-policy",
      "--create",
      "--policy-key",
      "__proto__",
      "--defaults-effect",
      "deny",
    ]);
    assert.equal(update.code, 0, update.stderr);
    // JSON text, so that __proto__ is an own member of the rule.
    await s.write(
      "rule.json",
      `{"__proto__": {"status": "disabled"}, "id": "constructor", "status": "active", "priority": 1,
        "target": {"service": "svc", "resource": "doc", "action": "read"},
        "when": {"op": "exists", "path": "__proto__.admin"}, "effect": {"type": "allow"}}`,
    );
    const added = await s.run([
      "policies",
      "add-rule",
      "--policy-key",
      "__proto__",
      "--rule-file",
      "rule.json",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const built = await s.json(["build", "--env", "dev", "--org-id", "o", "--project-id", "p"]);
    assert.equal(built.code, 0, built.stderr);
    const validated = await s.run(["validate"]);
    assert.equal(validated.code, 0, validated.stdout);
    const simulate = (context: string) =>
      s.json([
        "simulate",
        "--service",
        "svc",
        "--resource",
        "doc",
        "--action",
        "read",
        "--context",
        context,
      ]);
    const admin = await simulate('{"__proto__": {"admin": true}}');
    assert.equal(admin.code, 0, admin.stderr);
    assert.deepEqual(admin.doc.decision, {
      decision: "allow",
      reason: "rule",
      policyKey: "__proto__",
      ruleId: "constructor",
    });
    const none = await simulate('{"constructor": {"admin": true}}');
    assert.deepEqual(none.doc.decision, {
      decision: "deny",
      reason: "default",
      policyKey: "__proto__",
    });
    const bundle = await s.read("policy-bundle.json");
    assert.ok(bundle.includes('"__proto__"'));
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    assert.equal(({} as Record<string, unknown>).status, undefined);
  },
);
