// Signed freshness against Debian's nginx on 127.0.0.1 (docs/operations.md
// "Signed freshness", "The re-issue job"): the job is `policy sign
// --expires-in`, run in-process, and publishing is a rename into nginx's
// root (a new ETag). A client with a short statement lifetime stays fresh
// while the job runs, fails closed with BUNDLE_EXPIRED once it stops and the
// statement runs out (nginx answering 304 all along), and recovers at the
// first poll after the job resumes. The client's clock is a fake one (its
// expiry timer is ours); the requests are real. Skipped, with the reason
// printed, when nginx is not installed; CI installs it (.ci/run).
import assert from "node:assert/strict";
import { createRemoteClient, isPolicyError, type RemoteClient } from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { scratch } from "../cli/_helpers.ts";
import { findNginx, publishBundle, startNginx } from "./_nginx.ts";
import { remoteOptions, RUNTIME_KEY, SCOPE, test } from "./_remote_fixtures.ts";

const nginx = await findNginx();
if (nginx.path === null) {
  console.log(`nginx is not available, skipping the freshness nginx test: ${nginx.reason}`);
}

const TARGET = { service: "billing", resource: "invoice", action: "create" };

function expired(client: RemoteClient): boolean {
  try {
    client.evaluate({ target: TARGET, context: { plan: "pro" } });
    return false;
  } catch (error) {
    if (isPolicyError(error, "BUNDLE_EXPIRED")) return true;
    throw error;
  }
}

test(
  "a re-issue job keeps a client with a short expiresIn fresh through nginx; stopped, the client fails closed after expiresAt; resumed, it recovers",
  async () => {
    await using s = await scratch();
    const root = `${s.root}/www`;
    const clock = new FakeClock();
    const cli = (args: string[]) => s.json(args, { now: new Date(clock.wallNow()) });
    await s.fixture("draft.json", "policy-drafts.json");
    assert.equal(
      (await cli(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"])).code,
      0,
    );
    const signing = ["--ecdsa-private-key", "keys/private-key.pem", "--signing-key-id", "cp-1"];
    const built = await cli([
      "build",
      "--env",
      SCOPE.env,
      "--org-id",
      SCOPE.orgId,
      "--project-id",
      SCOPE.projectId,
      "--signed",
      ...signing,
      "--expires-in",
      "10s",
    ]);
    assert.equal(built.code, 0, built.stderr);
    // Each publication gets its own modification time: nginx's ETag is mtime and size.
    let mtime = Date.UTC(2026, 10, 21, 9, 0, 0);
    const publish = async () => {
      mtime += 60_000;
      await publishBundle(root, await s.read("policy-bundle.json"), new Date(mtime));
    };
    /** The re-issue job: the CLI a cron runs, then the publication. */
    const reissue = async () => {
      const signed = await cli(["sign", ...signing, "--expires-in", "10s"]);
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(signed.doc.freshnessIssued, true);
      await publish();
    };
    await publish();
    await using server = await startNginx(nginx.path!, {
      prefix: s.root,
      root,
      runtimeKey: RUNTIME_KEY,
    });
    await using client = await createRemoteClient(remoteOptions(server.baseUrl, {
      verify: {
        algorithm: "ECDSA_SHA_256",
        publicKey: await s.read("keys/public-key.pem"),
        keyId: "cp-1",
      },
      requireFreshness: true,
      clockSkewMs: 0,
      clock,
      poll: { intervalMs: 3_600_000 },
    }));
    const checksum = client.status().checksum;

    // The job runs every 3 s (of the client's clock), the client polls after each run.
    for (let round = 0; round < 5; round++) {
      clock.tick(3_000);
      await reissue();
      const result = await client.refresh();
      assert.equal(result.outcome, "updated", `round ${round}: ${result.error?.message}`);
      assert.equal(result.status.expired, false);
      assert.equal(result.status.checksum, checksum, "the same bundle, a new statement");
      assert.equal(result.status.bundleVersion, 1, "no new bundleVersion");
      assert.equal(expired(client), false);
    }
    const lastExpiry = Date.parse(client.status().freshness!.expiresAt);

    // The job stops: nginx keeps confirming the same file (304), which proves nothing.
    while (clock.wallNow() < lastExpiry) {
      clock.tick(2_000);
      const result = await client.refresh();
      assert.equal(result.outcome, "unchanged");
      assert.equal(result.httpStatus, 304);
      assert.equal(expired(client), clock.wallNow() >= lastExpiry);
    }
    assert.equal(client.status().expired, true);
    assert.equal(client.status().stale, false);

    // The job resumes: the first poll after it brings the service back.
    clock.tick(5_000);
    await reissue();
    const recovered = await client.refresh();
    assert.equal(recovered.outcome, "updated");
    assert.equal(recovered.status.expired, false);
    assert.equal(expired(client), false);
  },
  { ignore: nginx.path === null },
);
