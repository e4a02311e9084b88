/**
 * `kill -9` of the CLI while it writes: `policy build` (the bundle) and
 * `policy policies add-rule` (the draft) are started as child processes with
 * the `policy` task's permissions and SIGKILLed after random delays, again
 * and again. After every kill the file is the previous complete document or
 * the new complete one, never a partial one, and nothing is left in the
 * folder that a reader could take for the document.
 *
 * 5 kills each in the default test task, 200 under `deno task test:long`.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { loadBundle } from "../../mod.ts";
import { scratch } from "../cli/_helpers.ts";
import { cliEnv, DENO, explainIgnored, LONG, policyCommand, runPolicy } from "./_policy_process.ts";
import { replayHint, seededRandom, testSeed } from "../_random.ts";

/** Every random draw of this file (replay a failure with POLICY_TEST_SEED). */
const random = seededRandom(testSeed(0x4b11));

explainIgnored("kill_during_write_test");

const KILLS = LONG ? 200 : 5;
/** Rules in the draft: enough for a build to take a few hundred milliseconds. */
const RULES = 2_000;

const keys = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  true,
  ["sign", "verify"],
);
// Awaited as the module loads: an export still running when the first test starts would be
// an async operation of the module's that ends inside the test (the sanitizer's "leak").
const privatePem = await crypto.subtle.exportKey("pkcs8", keys.privateKey).then((der) => {
  const base64 = btoa(String.fromCharCode(...new Uint8Array(der))).replace(/.{1,64}/g, "$&\n");
  return `-----BEGIN PRIVATE KEY-----\n${base64}-----END PRIVATE KEY-----\n`;
});

function draftWith(rules: number): Record<string, unknown> {
  return {
    schemaVersion: "1.0",
    generatedAt: "2026-11-21T09:00:00.000Z",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      friendlyName: "p",
      defaults: { effect: "deny" },
      rules: Array.from({ length: rules }, (_, i) => ({
        id: `r${i}`,
        status: "active",
        priority: i % 10,
        target: { service: "svc", resource: `res${i % 50}`, action: `act${i}` },
        when: { op: "in", path: "ctx.plan", values: ["pro", "enterprise", `p${i}`] },
        effect: { type: i % 2 === 0 ? "allow" : "deny" },
        description: `rule number ${i} of the kill -9 test`,
      })),
    }],
  };
}

/** Starts `policy <args>`, SIGKILLs it after `delayMs` (if still running), and waits for it. */
async function killAfter(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  delayMs: number,
): Promise<"killed" | "finished"> {
  const child = policyCommand(args, { cwd, env }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
      killed = true;
    } catch {
      // It ended just before.
    }
  }, delayMs);
  // Drain the pipes rather than close them: a closed pipe would fail the child's own
  // writes (for example the licence grace-period warning) and end it before the kill.
  const [status] = await Promise.all([
    child.status,
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
  ]);
  clearTimeout(timer);
  if (status.success) return "finished";
  assert.ok(killed && status.signal === "SIGKILL", `exit ${status.code}, signal ${status.signal}`);
  return "killed";
}

/** A random delay: uniform over the run, and half the time near its end, where the write is. */
function randomDelay(runMs: number): number {
  return random.next() < 0.5 ? random.next() * runMs * 1.1 : runMs * (0.75 + 0.35 * random.next());
}

/** The file names in `folder` other than `expected`. */
async function others(folder: string, expected: string[]): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (!expected.includes(entry.name)) names.push(entry.name);
  }
  return names.sort();
}

/**
 * Temporary files of the atomic writer, `.<name>.<12 hex>.tmp`, and what a
 * killed command leaves of the working folder's lock (`.policy.lock`, taken
 * over by the next command; its temporary and break files).
 */
const tempOf = (name: string) =>
  new RegExp(
    `^(?:\\.${
      name.replaceAll(".", "\\.")
    }\\.[0-9a-f]{12}\\.tmp|\\.policy\\.lock(?:\\.[0-9a-f]{16}\\.tmp|\\.break)?)$`,
  );

Deno.test({
  name:
    `kill -9 of 'policy build' at random moments, ${KILLS} times: the bundle is always the previous or the new complete signed bundle [${
      replayHint(random.seed)
    }]`,
  ignore: DENO === null,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    await using s = await scratch();
    await s.write("policy-drafts.json", draftWith(RULES));
    await Deno.mkdir(path.join(s.wf, "keys"));
    await Deno.writeTextFile(path.join(s.wf, "keys", "private.pem"), privatePem);
    const env = cliEnv(s.home);
    const args = [
      "build",
      "--signed",
      "--ecdsa-private-key",
      "keys/private.pem",
      "--signing-key-id",
      "kill-test",
      "--org-id",
      "acme",
      "--project-id",
      "shop",
      "--quiet",
    ];
    const bundleFile = path.join(s.wf, "policy-bundle.json");
    const verify = { verify: { algorithm: "ECDSA_SHA_256" as const, publicKey: keys.publicKey } };

    const first = await runPolicy(args, { cwd: s.wf, env });
    assert.equal(first.code, 0, first.stderr);
    // Timed on the second build: from then on, a build also reads the previous bundle.
    const started = performance.now();
    const second = await runPolicy(args, { cwd: s.wf, env });
    const runMs = performance.now() - started;
    assert.equal(second.code, 0, second.stderr);
    const reference = await loadBundle(await Deno.readFile(bundleFile), verify);
    assert.equal(reference.status.bundleVersion, 2);
    let version = 2;
    let killed = 0;
    let temporaries = 0;
    for (let i = 0; i < KILLS; i++) {
      const outcome = await killAfter(args, s.wf, env, randomDelay(runMs));
      if (outcome === "killed") killed++;
      // Whatever the moment of the kill: a complete, signed bundle of this draft.
      const loaded = await loadBundle(await Deno.readFile(bundleFile), verify);
      assert.equal(loaded.status.checksum, reference.status.checksum);
      const now = loaded.status.bundleVersion!;
      assert.ok(now === version || now === version + 1, `bundleVersion ${version} -> ${now}`);
      if (outcome === "finished") assert.equal(now, version + 1);
      version = now;
      // Nothing else but the atomic writer's temporary files, which no reader looks at.
      const extra = await others(s.wf, ["policy-drafts.json", "policy-bundle.json", "keys"]);
      for (const name of extra) assert.match(name, tempOf("policy-bundle.json"));
      temporaries = extra.length;
    }
    assert.ok(killed > 0, "at least one run was killed");
    // The next complete build removes what killed runs left behind, once it is over a minute
    // old (a younger one may belong to a writer still running): age them.
    const old = new Date(Date.now() - 2 * 60_000);
    for (const name of await others(s.wf, ["policy-drafts.json", "policy-bundle.json", "keys"])) {
      await Deno.utime(path.join(s.wf, name), old, old);
    }
    const last = await runPolicy(args, { cwd: s.wf, env });
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(await others(s.wf, ["policy-drafts.json", "policy-bundle.json", "keys"]), []);
    console.log(
      `kill -9 'policy build': ${KILLS} runs (${killed} killed, ${runMs.toFixed(0)} ms a build), ` +
        `bundleVersion 2 -> ${version}, ${temporaries} temporary file(s) left before the last build`,
    );
  },
});

Deno.test({
  name:
    `kill -9 of 'policy policies add-rule' at random moments, ${KILLS} times: the draft is always the previous or the new complete draft [${
      replayHint(random.seed)
    }]`,
  ignore: DENO === null,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    await using s = await scratch();
    await s.write("policy-drafts.json", draftWith(RULES));
    const env = cliEnv(s.home);
    const draftFile = path.join(s.wf, "policy-drafts.json");
    const add = async (i: number) => {
      await s.write(`new-${i}.json`, {
        id: `added-${i}`,
        status: "active",
        priority: 1,
        target: { service: "svc", resource: "added", action: `a${i}` },
        effect: { type: "allow" },
      });
      return [
        "policies",
        "add-rule",
        "--policy-key",
        "p",
        "--rule-file",
        `new-${i}.json`,
        "--quiet",
      ];
    };
    const started = performance.now();
    const first = await runPolicy(await add(0), { cwd: s.wf, env });
    const runMs = performance.now() - started;
    assert.equal(first.code, 0, first.stderr);
    let count = RULES + 1;
    let killed = 0;
    for (let i = 1; i <= KILLS; i++) {
      const outcome = await killAfter(await add(i), s.wf, env, randomDelay(runMs));
      if (outcome === "killed") killed++;
      await Deno.remove(path.join(s.wf, `new-${i}.json`));
      const draft = JSON.parse(await Deno.readTextFile(draftFile));
      const rules = draft.policies[0].rules as { id: string }[];
      assert.ok(
        rules.length === count || rules.length === count + 1,
        `${count} -> ${rules.length}`,
      );
      if (outcome === "finished") assert.equal(rules.length, count + 1);
      if (rules.length === count + 1) assert.equal(rules.at(-1)!.id, `added-${i}`);
      count = rules.length;
      const extra = await others(s.wf, ["policy-drafts.json", "new-0.json"]);
      for (const name of extra) assert.match(name, tempOf("policy-drafts.json"));
    }
    assert.ok(killed > 0, "at least one run was killed");
    const validated = await runPolicy(["validate"], { cwd: s.wf, env });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    // A complete write removes the temporaries killed runs left (aged: see the build test).
    const old = new Date(Date.now() - 2 * 60_000);
    for (const name of await others(s.wf, ["policy-drafts.json", "new-0.json"])) {
      await Deno.utime(path.join(s.wf, name), old, old);
    }
    const last = await runPolicy(await add(KILLS + 1), { cwd: s.wf, env });
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(
      await others(s.wf, ["policy-drafts.json", "new-0.json", `new-${KILLS + 1}.json`]),
      [],
    );
  },
});
