/**
 * docs/walkthrough.md, step by step, on a copy of examples/service: the
 * example's source, rules and suite must keep working together, and two
 * instances of the service sharing one Redis hold a tenant to one limit.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { requireDenoCommand } from "../_deno_command.ts";
import { freePort, listening } from "../_loopback.ts";
import { withTempDir } from "../_openssl.ts";
import { findRedisServer, startRedisServer } from "../enforce/_redis_server.ts";
import { type Scratch, scratch } from "./_helpers.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/service/", import.meta.url));

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else await Deno.copyFile(source, target);
  }
}

async function step(s: Scratch, args: string[]) {
  const result = await s.run(args);
  assert.equal(result.code, 0, `policy ${args.join(" ")}\n${result.stdout}\n${result.stderr}`);
  return result;
}

Deno.test("walkthrough: analyze examples/service, add its rules, build, sign and simulate its suite", async () => {
  await using s = await scratch();
  await copyTree(EXAMPLE, s.wf);

  const analyzed = await s.json(["analyze"]);
  assert.equal(analyzed.code, 0, analyzed.stderr);
  assert.deepEqual(
    (analyzed.doc.policies as { policyKey: string; status: string }[]).map((p) => [
      p.policyKey,
      p.status,
    ]),
    [
      ["billing.invoice.create", "missing"],
      ["billing.invoice.export", "missing"],
      ["billing.refund.create", "missing"],
      ["search.index.query", "missing"],
    ],
  );
  assert.deepEqual(analyzed.doc.warnings, []);
  const before = await s.json(["analyze", "--check"]);
  assert.equal(before.code, 0);
  assert.equal((before.doc.warnings as unknown[]).length, 4, "4 targets without rules yet");

  for (
    const [key, rule] of [
      ["billing.invoice.create", "paid-plans"],
      ["billing.invoice.create", "free-small-teams"],
      ["billing.invoice.export", "export-per-tenant"],
      ["billing.refund.create", "finance-only"],
      ["search.index.query", "search-open"],
      ["search.index.query", "search-off"],
    ]
  ) {
    await step(s, [
      "policies",
      "add-rule",
      "--policy-key",
      key!,
      "--rule-file",
      `policy/rules/${rule}.json`,
    ]);
  }
  await step(s, [
    "policies",
    "update-policy",
    "--policy-key",
    "billing.invoice.create",
    "--defaults-effect",
    "deny",
  ]);
  await step(s, ["analyze", "--check", "--strict"]);
  await step(s, ["validate", "--strict"]);
  await step(s, ["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"]);
  const built = await s.json(["build"]);
  assert.equal(built.code, 0, built.stderr);
  assert.deepEqual(
    [built.doc.orgId, built.doc.projectId, built.doc.policyCount, built.doc.ruleCount],
    ["acme", "billing-service", 4, 6],
  );
  assert.deepEqual(built.doc.signature, { algorithm: "ECDSA_SHA_256", keyId: "release-1" });
  assert.match((await step(s, ["inspect", "--signature"])).stdout, /signature: valid/);
  const suite = await step(s, ["simulate", "--suite", "policy/suite.json"]);
  assert.match(suite.stdout, /signature: verified \(ECDSA_SHA_256, key id release-1\)/);
  assert.match(suite.stdout, /scenarios 7, passed 7, failed 0/);
  assert.match(suite.stdout, /coverage: 5 of 5 active rules exercised/);

  await twoInstancesShareOneRedis(s);
});

/** How docs/walkthrough.md runs the service (from its folder, with PORT and REDIS_URL set). */
const RUN_SERVICE = [
  "run",
  "--allow-read=.",
  "--allow-net=127.0.0.1",
  "--allow-env=PORT,REDIS_URL",
  "--ignore-env=REDIS_DEBUG_MAINTENANCE",
  "src/main.ts",
];

/**
 * Step 6 of the walkthrough: instances A and B of the built service count in one Redis, so
 * the tenant that spent its 10 exports on A is refused on B, and another tenant is not.
 */
async function twoInstancesShareOneRedis(s: Scratch): Promise<void> {
  const docs = await Deno.readTextFile(new URL("../../docs/walkthrough.md", import.meta.url));
  assert.ok(docs.includes(`deno ${RUN_SERVICE.join(" ")}`), "the docs run the service so");
  const redis = await findRedisServer();
  if (!redis.ok) {
    console.log(`walkthrough: skipping the two instances sharing Redis: ${redis.reason}`);
    return;
  }
  // At the depth of examples/service, so that its ../../../mod.ts imports resolve.
  const service = fileURLToPath(
    new URL(`../../.tmp/service-${crypto.randomUUID()}`, import.meta.url),
  );
  await copyTree(s.wf, service);
  try {
    await withTempDir(async (dir) => {
      await using server = await startRedisServer(dir);
      const instances = [freePort(), freePort()].map((port) => ({
        port,
        child: new Deno.Command(requireDenoCommand(), {
          args: ["run", "--no-prompt", ...RUN_SERVICE.slice(1)],
          cwd: service,
          env: { PORT: String(port), REDIS_URL: server.url },
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).spawn(),
      }));
      const logs = instances.map(({ child }) => new Response(child.stderr).text());
      try {
        for (const { port, child } of instances) {
          assert.ok(await listening(port, child), `instance on ${port} did not start`);
        }
        const [a, b] = instances.map(({ port }) => (tenant: string) =>
          fetch(`http://127.0.0.1:${port}/invoices/export`, { headers: { "x-tenant": tenant } })
        ) as [(tenant: string) => Promise<Response>, (tenant: string) => Promise<Response>];
        for (let i = 0; i < 10; i++) {
          const response = await a("t1");
          await response.body?.cancel();
          assert.equal(response.status, 200, `export ${i + 1} on A`);
          assert.match(response.headers.get("ratelimit") ?? "", new RegExp(`;r=${9 - i};t=\\d+$`));
        }
        const refused = await b("t1");
        assert.equal(refused.status, 429, "t1 spent its limit on A: refused on B");
        const retryAfter = Number(refused.headers.get("retry-after"));
        assert.ok(retryAfter > 0 && retryAfter <= 63, `Retry-After ${retryAfter}`);
        const problem = await refused.json();
        assert.deepEqual(problem["violated-policies"], [
          "billing.invoice.export/export-per-tenant",
        ]);
        const other = await b("t2");
        await other.body?.cancel();
        assert.equal(other.status, 200, "another tenant on B");
      } finally {
        for (const { child } of instances) {
          try {
            child.kill("SIGTERM");
          } catch {
            // Already exited.
          }
          await child.status;
        }
        const stderr = (await Promise.all(logs)).join("");
        assert.doesNotMatch(stderr, /error|failed/i, stderr);
      }
    });
  } finally {
    await Deno.remove(service, { recursive: true });
  }
}
