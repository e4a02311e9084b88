// createLocalClient(): options, reading at creation and its errors. Watching
// is in local_client_watch_test.ts, permissions in local_client_permissions_test.ts,
// and the behaviour every client shares in the conformance suite.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { createLocalClient, type LocalClientOptions } from "../../mod.ts";
import { DEFAULT_WATCH_INTERVAL_MS } from "../../src/clients/mod.ts";

import { assertRejectsCode } from "../_assert_policy_error.ts";
import { hmacSecret, numberedBundle, signedText, symlink, TARGET, test } from "./_helpers.ts";
import { FakeClock } from "../_fake_clock.ts";
import { HANG_BOUND_MS } from "../_hang_bound.ts";

const unsignedText = (n: number) => JSON.stringify(numberedBundle(n));

test("createLocalClient() reads the file once when watch is not set", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/bundle.json`;
    await Deno.writeTextFile(bundlePath, unsignedText(1));
    for (const watch of [undefined, false]) {
      const clock = new FakeClock();
      const options: LocalClientOptions = { bundlePath, allowUnsigned: true, clock };
      if (watch !== undefined) options.watch = watch;
      const client = await createLocalClient(options);
      await Deno.writeTextFile(bundlePath, unsignedText(2));
      // No timer: nothing will ever read the file again.
      assert.equal(clock.pending, 0);
      clock.tick(60_000);
      assert.equal(client.evaluate({ target: TARGET }).ruleId, "rule-1");
      assert.equal(client.status().bundleVersion, 1);
      await client.close();
      await Deno.writeTextFile(bundlePath, unsignedText(1));
    }
  });
});

test("status() of the local client has origin local and the bundle's fields, nothing else", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/bundle.json`;
    const secret = hmacSecret();
    const text = await signedText(numberedBundle(4), secret);
    await Deno.writeTextFile(bundlePath, text);
    await using client = await createLocalClient({
      bundlePath,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
    });
    const checksum = JSON.parse(text).checksum;
    assert.deepEqual(client.status(), {
      origin: "local",
      bundleVersion: 4,
      checksum,
      etag: `"${checksum.slice(7)}"`,
      env: "test",
      signature: { status: "verified", algorithm: "HMAC_SHA256", keyId: "k" },
      freshness: null,
      policies: 1,
      expired: false,
      rollbackRefused: null,
    });
  });
});

test("createLocalClient() gives BUNDLE_READ_ERROR naming a missing file", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/missing.json`;
    const error = await assertRejectsCode(
      createLocalClient({ bundlePath, allowUnsigned: true }),
      "BUNDLE_READ_ERROR",
    );
    assert.ok(error.message.includes(bundlePath), error.message);
    assert.match(error.message, /does not exist; check bundlePath/);
    assert.equal((error.cause as { code?: string }).code, "ENOENT");
  });
});

test("createLocalClient() gives BUNDLE_READ_ERROR for a folder or a path through a file", async () => {
  await withTempDir(async (dir) => {
    const folder = await assertRejectsCode(
      createLocalClient({ bundlePath: dir, allowUnsigned: true }),
      "BUNDLE_READ_ERROR",
    );
    assert.match(folder.message, /is a folder; point bundlePath at the bundle JSON file/);
    await Deno.writeTextFile(`${dir}/file`, "{}");
    const through = await assertRejectsCode(
      createLocalClient({ bundlePath: `${dir}/file/bundle.json`, allowUnsigned: true }),
      "BUNDLE_READ_ERROR",
    );
    assert.ok(through.message.includes(`${dir}/file/bundle.json`), through.message);
  });
});

test("createLocalClient() resolves a relative bundlePath from the current directory", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/bundle.json`, unsignedText(1));
    const relative = `${dir.slice(Deno.cwd().length + 1)}/bundle.json`;
    assert.ok(!relative.startsWith("/"));
    await using client = await createLocalClient({ bundlePath: relative, allowUnsigned: true });
    assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
  });
});

test("createLocalClient() follows a symlinked bundlePath", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/real.json`, unsignedText(3));
    await symlink(`${dir}/real.json`, `${dir}/bundle.json`);
    await using client = await createLocalClient({
      bundlePath: `${dir}/bundle.json`,
      allowUnsigned: true,
    });
    assert.equal(client.status().bundleVersion, 3);
  });
});

test("createLocalClient() checks the size with stat before reading (a sparse 64 GiB file)", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/huge.json`;
    // Sparse: no disk space, but reading it whole would take minutes and all memory.
    await Deno.writeTextFile(bundlePath, "");
    await Deno.truncate(bundlePath, 64 * 2 ** 30);
    const started = performance.now();
    const error = await assertRejectsCode(
      createLocalClient({ bundlePath, allowUnsigned: true }),
      "BUNDLE_TOO_LARGE",
    );
    assert.ok(performance.now() - started < HANG_BOUND_MS);
    assert.ok(error.message.includes(`${64 * 2 ** 30} bytes`), error.message);
    assert.ok(error.message.includes("8388608"), error.message);
    assert.ok(error.message.includes(bundlePath), error.message);
  });
});

test("maxFileBytes defaults to 8 MiB and can be lowered or raised", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/bundle.json`;
    const text = unsignedText(1);
    const limit = 8 * 1024 * 1024;
    // Exactly 8 MiB of valid JSON (padded with spaces) loads; one byte more does not.
    await Deno.writeTextFile(bundlePath, text + " ".repeat(limit - text.length));
    await (await createLocalClient({ bundlePath, allowUnsigned: true })).close();
    await Deno.writeTextFile(bundlePath, text + " ".repeat(limit - text.length + 1));
    await assertRejectsCode(
      createLocalClient({ bundlePath, allowUnsigned: true }),
      "BUNDLE_TOO_LARGE",
    );
    const raised = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      maxFileBytes: limit + 1,
    });
    await raised.close();
    await Deno.writeTextFile(bundlePath, text);
    await assertRejectsCode(
      createLocalClient({ bundlePath, allowUnsigned: true, maxFileBytes: text.length - 1 }),
      "BUNDLE_TOO_LARGE",
    );
    await (await createLocalClient({ bundlePath, allowUnsigned: true, maxFileBytes: text.length }))
      .close();
  });
});

test("createLocalClient() refuses invalid options with INVALID_OPTIONS", async () => {
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/bundle.json`;
    await Deno.writeTextFile(bundlePath, unsignedText(1));
    const base = { bundlePath, allowUnsigned: true };
    const invalid: unknown[] = [
      undefined,
      null,
      "bundle.json",
      {},
      { bundlePath: "" },
      { bundlePath: 42 },
      ...[0, -5, 0.5, NaN, Infinity, 2 ** 31, "10"].map((intervalMs) => ({
        ...base,
        watch: { intervalMs },
      })),
      ...[null, "yes", 1000, []].map((watch) => ({ ...base, watch })),
      ...[0, -1, 1.5, "8", NaN].map((maxFileBytes) => ({ ...base, maxFileBytes })),
      { ...base, onError: "log" },
      { ...base, allowUnsigned: "yes" },
      { ...base, parseCustomEffect: 1 },
      { ...base, contextPolicy: { allowedKeys: "plan" } },
      { ...base, contextPolicy: { allowedKeys: ["plan", 3] } },
      { ...base, contextPolicy: null },
    ];
    for (const options of invalid) {
      const error = await assertRejectsCode(
        createLocalClient(options as LocalClientOptions),
        "INVALID_OPTIONS",
      );
      assert.ok(error.message.length > 0);
    }
  });
});

test("watch: true and watch: {} poll every DEFAULT_WATCH_INTERVAL_MS (1000 ms)", async () => {
  assert.equal(DEFAULT_WATCH_INTERVAL_MS, 1000);
  await withTempDir(async (dir) => {
    const bundlePath = `${dir}/bundle.json`;
    await Deno.writeTextFile(bundlePath, unsignedText(1));
    const original = globalThis.setTimeout;
    for (
      const [watch, want] of [[true, 1000], [{}, 1000], [{ intervalMs: 250 }, 250], [
        false,
        null,
      ]] as const
    ) {
      const delays: (number | undefined)[] = [];
      globalThis.setTimeout = ((handler: () => void, delay?: number) => {
        delays.push(delay);
        return original(handler, delay);
      }) as typeof setTimeout;
      let client;
      try {
        client = await createLocalClient({ bundlePath, allowUnsigned: true, watch });
      } finally {
        globalThis.setTimeout = original;
      }
      await client.close();
      assert.deepEqual(delays, want === null ? [] : [want], JSON.stringify(watch));
    }
  });
});
