// The remote client against Debian's nginx serving a plain folder of
// bundles (the configuration of docs/remote.md): the client must work
// against a static origin unchanged. Skipped, with the reason printed, when
// nginx is not installed; CI installs it (.ci/run).
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { createRemoteClient } from "../../mod.ts";

import { assertRejectsCode } from "../_assert_policy_error.ts";
import { findNginx, publishBundle, startNginx } from "./_nginx.ts";
import {
  Recorder,
  remoteOptions,
  RUNTIME_KEY,
  SCOPE,
  TARGET,
  test,
  V1,
  V2,
} from "./_remote_fixtures.ts";

const nginx = await findNginx();
if (nginx.path === null) {
  console.log(`nginx is not available, skipping the nginx tests: ${nginx.reason}`);
}

const publish = publishBundle;

test("nginx: the docs show nginxConfig() verbatim", async () => {
  const source = await readFile(new URL("./_nginx.ts", import.meta.url), "utf8");
  const start = source.indexOf("// BEGIN nginxConfig");
  const end = source.indexOf("// END nginxConfig");
  const snippet = source.slice(source.indexOf("\n", start) + 1, end).trimEnd();
  const docs = await readFile(new URL("../../docs/remote.md", import.meta.url), "utf8");
  assert.ok(snippet.length > 500);
  assert.ok(
    docs.includes(snippet),
    "docs/remote.md must show nginxConfig() and its options of tests/clients/_nginx.ts verbatim",
  );
});

test("nginx: the remote client works against a static nginx origin unchanged", async (t) => {
  await withTempDir(async (dir) => {
    const root = `${dir}/www`;
    const t0 = new Date(Date.UTC(2026, 10, 21, 9, 0, 0));
    await publish(root, V1, t0);
    await using server = await startNginx(nginx.path!, {
      prefix: dir,
      root,
      runtimeKey: RUNTIME_KEY,
    });
    const recorder = new Recorder();
    await using client = await createRemoteClient(
      remoteOptions(server.baseUrl, recorder.callbacks),
    );

    await t.step("initial load", () => {
      assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
      const status = client.status();
      assert.equal(status.bundleVersion, 1);
      assert.equal(status.signature.status, "verified");
      assert.equal(status.source, "network");
      assert.equal(recorder.polls[0]?.httpStatus, 200);
    });

    await t.step("304 on re-poll", async () => {
      const status = (await client.refresh()).status;
      assert.equal(recorder.polls.at(-1)?.httpStatus, 304);
      assert.equal(recorder.polls.at(-1)?.outcome, "unchanged");
      assert.equal(status.consecutiveFailures, 0);
    });

    await t.step("a new bundle after the file is atomically replaced", async () => {
      await publish(root, V2, new Date(t0.getTime() + 60_000));
      const status = (await client.refresh()).status;
      assert.equal(recorder.polls.at(-1)?.outcome, "updated");
      assert.equal(status.bundleVersion, 2);
      assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
      await client.refresh();
      assert.equal(recorder.polls.at(-1)?.httpStatus, 304);
    });

    await t.step("404 once the bundle is withdrawn; the bundle in force stays", async () => {
      const folder = `${root}/v1/${SCOPE.orgId}/${SCOPE.projectId}/${SCOPE.env}`;
      await rm(`${folder}/bundle.json`);
      const status = (await client.refresh()).status;
      assert.equal(status.lastErrorCode, "REMOTE_NOT_FOUND");
      assert.equal(client.evaluate({ target: TARGET }).decision, "deny");
      await publish(root, V2, new Date(t0.getTime() + 120_000));
      assert.equal((await client.refresh()).status.consecutiveFailures, 0);
    });

    await t.step("401 with a wrong key", async () => {
      await assertRejectsCode(
        createRemoteClient(remoteOptions(server.baseUrl, { runtimeKey: "rk_wrong" })),
        "REMOTE_UNAUTHORIZED",
      );
    });

    await t.step("404 for another env", async () => {
      await assertRejectsCode(
        createRemoteClient(remoteOptions(server.baseUrl, { env: "staging" })),
        "REMOTE_NOT_FOUND",
      );
    });

    assert.deepEqual(recorder.codes, ["REMOTE_NOT_FOUND"]);
  });
}, { ignore: nginx.path === null });
