// The remote client under Deno's permission model, in child processes: it
// needs nothing but --allow-net to the control plane's host and port (plus
// read and write of the cache folder when cachePath is set), and without net
// permission creation fails with a PolicyError code, not a raw stack trace.
//
// Needs --allow-run=deno in the test process (the child is `deno run`), on
// top of --allow-net=127.0.0.1, read of the repository and write of .tmp/.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";

import { FaultServer } from "./_fault_server.ts";
import { ecdsa, remoteOptions, test, V1 } from "./_remote_fixtures.ts";

import { requireDenoCommand } from "../_deno_command.ts";
const CHILD = new URL("./testdata/remote_client_child.ts", import.meta.url).pathname;

interface ChildResult {
  ok: boolean;
  decision?: string;
  status?: Record<string, unknown>;
  errors?: string[];
  policyError?: boolean;
  code?: string | null;
  message?: string;
}

/** Runs the child with exactly `permissions` and the client `options`; its one JSON line. */
async function runChild(
  permissions: string[],
  options: Record<string, unknown>,
): Promise<ChildResult> {
  const child = new Deno.Command(requireDenoCommand(), {
    args: ["run", "--no-prompt", ...permissions, CHILD, JSON.stringify(options)],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A child that never exits (a timer close() left running) fails the test instead of hanging it.
  const killer = setTimeout(() => child.kill(), 60_000);
  const { code, stdout, stderr } = await child.output().finally(() => clearTimeout(killer));
  const errorText = new TextDecoder().decode(stderr);
  assert.equal(code, 0, errorText);
  assert.doesNotMatch(errorText, /Uncaught|NotCapable|^\s+at /m, errorText);
  const lines = new TextDecoder().decode(stdout).trim().split("\n");
  assert.equal(lines.length, 1, lines.join("\n"));
  return JSON.parse(lines[0]!);
}

/** Client options for the child (JSON: the public key as PEM text). */
function childOptions(baseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    ...remoteOptions(baseUrl),
    verify: { algorithm: "ECDSA_SHA_256", publicKey: ecdsa.publicKeyPem },
    // The child polls by refresh(): the timer, armed on the system clock, must
    // never fire during a test (a poll it made would change the request and
    // error counts), and a timer close() left would keep the child alive.
    poll: { intervalMs: 3_600_000 },
    ...extra,
  };
}

test("the remote client needs nothing but --allow-net to the control plane's host", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1, etag: '"v1"' });
  const result = await runChild(
    [`--allow-net=127.0.0.1:${server.port}`],
    childOptions(server.baseUrl),
  );
  assert.equal(result.ok, true, result.message);
  assert.equal(result.decision, "allow");
  assert.equal(result.status?.consecutiveFailures, 0);
  assert.deepEqual(result.errors, []);
  assert.equal(server.requests.length, 2);
  assert.equal(server.lastRequest.headers.get("if-none-match"), '"v1"');
});

test("without net permission creation fails with REMOTE_UNAVAILABLE naming the flag", async () => {
  await using server = FaultServer.start({ kind: "bundle", body: V1 });
  for (const permissions of [[], ["--allow-net=127.0.0.1:1"]]) {
    const result = await runChild(permissions, childOptions(server.baseUrl));
    assert.equal(result.ok, false);
    assert.equal(result.policyError, true);
    assert.equal(result.code, "REMOTE_UNAVAILABLE");
    assert.match(result.message!, new RegExp(`--allow-net=127\\.0\\.0\\.1:${server.port}`));
  }
  assert.equal(server.requests.length, 0);
});

test("with cachePath the remote client also needs read and write of the cache folder only", async () => {
  await withTempDir(async (dir) => {
    const cachePath = `${dir}/bundle.json`;
    await using server = FaultServer.start({ kind: "bundle", body: V1, etag: '"v1"' });
    const net = `--allow-net=127.0.0.1:${server.port}`;
    const fs = [`--allow-read=${dir}`, `--allow-write=${dir}`];
    const written = await runChild([net, ...fs], childOptions(server.baseUrl, { cachePath }));
    assert.equal(written.ok, true, written.message);
    assert.deepEqual(written.errors, []);
    assert.equal(await readFile(cachePath, "utf8"), V1);

    // The control plane is down: the client starts from the cache, degraded.
    server.fault = { kind: "status", status: 503 };
    const cached = await runChild([net, ...fs], childOptions(server.baseUrl, { cachePath }));
    assert.equal(cached.ok, true, cached.message);
    assert.equal(cached.decision, "allow");
    assert.equal(cached.status?.source, "cache");
    assert.equal(cached.status?.degraded, true);
    assert.deepEqual(cached.errors, ["REMOTE_UNAVAILABLE", "REMOTE_UNAVAILABLE"]);

    // Without write permission the bundle still loads; onError says the cache is not
    // written, at start-up and again at each poll (the write is retried).
    server.fault = { kind: "bundle", body: V1, etag: '"v1"' };
    await writeFile(cachePath, "stale");
    const readOnly = await runChild(
      [net, `--allow-read=${dir}`],
      childOptions(server.baseUrl, { cachePath }),
    );
    assert.equal(readOnly.ok, true, readOnly.message);
    assert.deepEqual(readOnly.errors, ["CACHE_WRITE_ERROR", "CACHE_WRITE_ERROR"]);
    assert.equal(await readFile(cachePath, "utf8"), "stale");
  });
});
