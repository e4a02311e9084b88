// The runbooks of docs/operations.md against Debian's nginx on 127.0.0.1:
// a fleet of local and remote clients through a signing key rotation with
// no failed reload, the staleness bound, rollback refusal, and failover
// between two real origins. Skipped, with the reason printed, when nginx is
// not installed; CI installs it (.ci/run).
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { rename, rm, writeFile } from "node:fs/promises";
import {
  createLocalClient,
  createRemoteClient,
  generateEcdsaKeyPair,
  type PolicyClient,
  type PolicyError,
  type RemoteClient,
  signBundle,
  type VerifyKeyOptions,
} from "../../mod.ts";

import { FaultServer } from "./_fault_server.ts";
import { FakeClock } from "../_fake_clock.ts";
import { findNginx, publishBundle, startNginx } from "./_nginx.ts";
import {
  bundleOf,
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
  console.log(`nginx is not available, skipping the nginx operations tests: ${nginx.reason}`);
}
const ignore = nginx.path === null;

let published = Date.UTC(2026, 10, 21, 9, 0, 0);

/** Publishes `text` with a fresh modification time, so that nginx gives it a new ETag. */
function publish(root: string, text: string): Promise<void> {
  published += 60_000;
  return publishBundle(root, text, new Date(published));
}

/** A signing key pair: the private key and its verify entry. */
async function keyPair(keyId: string) {
  const { privateKey, publicKey } = await generateEcdsaKeyPair();
  const verify: VerifyKeyOptions = { algorithm: "ECDSA_SHA_256", publicKey, keyId };
  return { keyId, privateKey, verify };
}

async function signedWith(version: number, key: { keyId: string; privateKey: string }) {
  const signed = await signBundle(bundleOf(version), {
    algorithm: "ECDSA_SHA_256",
    key: key.privateKey,
    keyId: key.keyId,
  });
  return JSON.stringify(signed, null, 2);
}

/** One member of the fleet: a client and what it reported. */
interface Member {
  name: string;
  client: PolicyClient;
  errors: PolicyError[];
}

test(
  "key rotation runbook: a fleet of local and remote clients moves to a new signing key with no failed reload",
  async () => {
    await withTempDir(async (dir) => {
      const root = `${dir}/www`;
      const bundlePath = `${dir}/bundle.json`;
      const oldKey = await keyPair("signing-2026-01");
      const newKey = await keyPair("signing-2026-07");
      const v1 = await signedWith(1, oldKey);
      await publish(root, v1);
      await writeFile(bundlePath, v1);
      await using server = await startNginx(nginx.path!, {
        prefix: dir,
        root,
        runtimeKey: RUNTIME_KEY,
      });

      const fleet: Member[] = [];
      // Every member's timers on one fake clock: the test runs the local clients' checks.
      const clock = new FakeClock({ wallNow: Date.now() });
      const start = async (name: string, verify: VerifyKeyOptions[]): Promise<Member> => {
        const errors: PolicyError[] = [];
        const onError = (error: PolicyError) => void errors.push(error);
        const client = name.startsWith("local")
          ? await createLocalClient({
            bundlePath,
            verify,
            watch: { intervalMs: 10 },
            onError,
            clock,
          })
          : await createRemoteClient(remoteOptions(server.baseUrl, {
            verify,
            poll: { intervalMs: 3_600_000 },
            onError,
            clock,
          }));
        return { name, client, errors };
      };
      /** A rolling restart: each member replaced, one at a time, by one with `verify`. */
      const restartAll = async (verify: VerifyKeyOptions[]) => {
        for (const [index, member] of fleet.entries()) {
          const replacement = await start(member.name, verify);
          await member.client.close();
          assert.deepEqual(member.errors, [], `${member.name} before its restart`);
          fleet[index] = replacement;
        }
      };
      /** Every member has `version` in force: remote ones are refreshed, local ones watched. */
      const untilVersion = async (version: number) => {
        for (const { name, client } of fleet) {
          if (name.startsWith("remote")) await (client as RemoteClient).refresh();
          await clock.runUntil(
            () => client.status().bundleVersion === version,
            `${name} has ${version}`,
          );
        }
      };
      try {
        for (const name of ["local-1", "local-2", "local-3", "remote-1", "remote-2", "remote-3"]) {
          fleet.push(await start(name, [oldKey.verify]));
        }
        // A member nobody updated: it shows what skipping step 1 does.
        const forgotten = await start("remote-forgotten", [oldKey.verify]);

        // 1. Add the new key to every client, next to the old one.
        await restartAll([oldKey.verify, newKey.verify]);
        await untilVersion(1);

        // 2. Sign with the new key and publish.
        const v2 = await signedWith(2, newKey);
        await publish(root, v2);
        await writeFile(`${bundlePath}.tmp`, v2);
        await rename(`${bundlePath}.tmp`, bundlePath);
        await untilVersion(2);
        for (const { name, client, errors } of fleet) {
          assert.equal(client.status().signature.status, "verified", name);
          const signature = client.status().signature;
          if (signature.status === "verified") assert.equal(signature.keyId, newKey.keyId, name);
          assert.deepEqual(errors.map((e) => e.code), [], `${name}: no failed reload`);
        }
        const skipped = await (forgotten.client as RemoteClient).refresh();
        assert.equal(skipped.error?.code, "BUNDLE_SIGNATURE_KEY_UNKNOWN");
        assert.equal(skipped.status.bundleVersion, 1);
        await forgotten.client.close();

        // 3. Retire the old key.
        await restartAll([newKey.verify]);
        await untilVersion(2);

        // Afterwards a bundle signed with the retired key is refused everywhere.
        const v3 = await signedWith(3, oldKey);
        await publish(root, v3);
        await writeFile(`${bundlePath}.tmp`, v3);
        await rename(`${bundlePath}.tmp`, bundlePath);
        for (const { name, client, errors } of fleet) {
          if (name.startsWith("remote")) await (client as RemoteClient).refresh();
          await clock.runUntil(() => errors.length > 0, `${name} refuses the retired key`);
          assert.deepEqual(errors.map((e) => e.code), ["BUNDLE_SIGNATURE_KEY_UNKNOWN"], name);
          assert.equal(client.status().bundleVersion, 2, name);
        }
      } finally {
        for (const { client } of fleet) await client.close();
      }
    });
  },
  { ignore },
);

test(
  "staleness against nginx: evaluate fails closed with BUNDLE_STALE once no poll confirmed the bundle for maxStalenessMs",
  async () => {
    await withTempDir(async (dir) => {
      const root = `${dir}/www`;
      await publish(root, V1);
      await using server = await startNginx(nginx.path!, {
        prefix: dir,
        root,
        runtimeKey: RUNTIME_KEY,
      });
      const clock = new FakeClock();
      await using client = await createRemoteClient(remoteOptions(server.baseUrl, {
        poll: { intervalMs: 3_600_000 },
        maxStalenessMs: 300,
        clock,
      }));
      assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
      await rm(`${root}/v1/${SCOPE.orgId}/${SCOPE.projectId}/${SCOPE.env}/bundle.json`);
      assert.equal((await client.refresh()).error?.code, "REMOTE_NOT_FOUND");
      clock.tick(300);
      assert.equal(client.status().stale, false);
      clock.tick(1);
      assert.equal(client.status().stale, true);
      assert.throws(() => client.evaluate({ target: TARGET }), { code: "BUNDLE_STALE" });
      await publish(root, V1);
      const result = await client.refresh();
      assert.equal(result.outcome, "unchanged");
      assert.equal(result.status.stale, false);
      assert.equal(client.evaluate({ target: TARGET }).decision, "allow");
    });
  },
  { ignore },
);

test(
  "rollback against nginx: an older bundle published again is refused, unless allowRollback",
  async () => {
    await withTempDir(async (dir) => {
      const root = `${dir}/www`;
      await publish(root, V2);
      await using server = await startNginx(nginx.path!, {
        prefix: dir,
        root,
        runtimeKey: RUNTIME_KEY,
      });
      const options = { poll: { intervalMs: 3_600_000 } };
      await using client = await createRemoteClient(remoteOptions(server.baseUrl, options));
      await using deliberate = await createRemoteClient(
        remoteOptions(server.baseUrl, { ...options, allowRollback: true }),
      );
      await publish(root, V1);
      const refused = await client.refresh();
      assert.equal(refused.error?.code, "BUNDLE_VERSION_ROLLBACK");
      assert.equal(refused.status.bundleVersion, 2);
      assert.equal(refused.status.rollbackRefused?.bundleVersion, 1);
      assert.equal((await deliberate.refresh()).status.bundleVersion, 1);
    });
  },
  { ignore },
);

test(
  "failover against two real origins: a Deno HTTP server first, nginx second; status names the origin in force",
  async () => {
    await withTempDir(async (dir) => {
      const root = `${dir}/www`;
      await publish(root, V1);
      await using backup = await startNginx(nginx.path!, {
        prefix: dir,
        root,
        runtimeKey: RUNTIME_KEY,
      });
      await using primary = FaultServer.start({ kind: "status", status: 503 });
      const errors: string[] = [];
      // Requests time out when the test moves the clock: never while an origin is answering,
      // however slow the machine.
      const clock = new FakeClock({ wallNow: Date.now() });
      await using client = await createRemoteClient(remoteOptions(primary.baseUrl, {
        baseUrl: [primary.baseUrl, backup.baseUrl],
        poll: { intervalMs: 3_600_000 },
        requestTimeoutMs: 500,
        clock,
        onError: (error) => errors.push(error.code),
      }));
      let status = client.status();
      assert.equal(status.source === "network" && status.servedBy, `${backup.baseUrl}/`);
      assert.deepEqual(errors, ["REMOTE_UNAVAILABLE"]);
      assert.equal(status.degraded, false);

      // The primary is back with a newer bundle: it is put in force from there.
      primary.fault = { kind: "bundle", body: V2, etag: '"p2"' };
      let result = await client.refresh();
      assert.equal(result.outcome, "updated");
      assert.equal(result.servedBy, `${primary.baseUrl}/`);

      // The primary hangs; nginx has caught up: the poll times out there and nginx confirms.
      await publish(root, V2);
      primary.fault = { kind: "hang" };
      const asked = primary.requests.length;
      const refreshing = client.refresh();
      await primary.untilRequests(asked + 1);
      clock.tick(500);
      result = await refreshing;
      assert.equal(result.outcome, "unchanged");
      assert.equal(result.servedBy, `${backup.baseUrl}/`);
      status = result.status;
      assert.equal(status.bundleVersion, 2);
      assert.equal(status.consecutiveFailures, 0);
      assert.deepEqual(errors, ["REMOTE_UNAVAILABLE", "REMOTE_UNAVAILABLE"]);
    });
  },
  { ignore },
);
