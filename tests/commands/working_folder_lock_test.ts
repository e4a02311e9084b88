/**
 * The working folder's lock (src/commands/_working_folder_lock.ts) and what
 * it is for: commands that read, change and write the draft or the bundle
 * run one at a time, so concurrent commands never lose each other's work,
 * and a lock left by a killed process is taken over.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import {
  LOCK_FILE,
  lockWorkingFolder,
  STALE_LOCK_MS,
} from "../../src/commands/_working_folder_lock.ts";
import { scratch } from "./_helpers.ts";
import { DENO, explainIgnored } from "../faults/_policy_process.ts";

explainIgnored("working_folder_lock_test");

const HOLDER = fileURLToPath(new URL("./testdata/hold_lock.ts", import.meta.url));

Deno.test("lockWorkingFolder() makes a second taker wait, then refuses with WORKING_FOLDER_LOCKED naming the holder", async () => {
  await using s = await scratch();
  const held = await lockWorkingFolder(s.wf, "build");
  let waitedFor = "";
  await assert.rejects(
    lockWorkingFolder(s.wf, "policies add-rule", {
      waitMs: 300,
      onWait: (holder) => void (waitedFor = holder),
    }),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "WORKING_FOLDER_LOCKED");
      assert.match(error.message, /locked by 'policy build' \(process \d+, since /);
      return true;
    },
  );
  assert.match(waitedFor, /'policy build'/);
  const next = lockWorkingFolder(s.wf, "sign", { waitMs: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await held.release();
  const second = await next; // taken as soon as the first is released
  await second.assertHeld();
  await second.release();
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name), [], "nothing is left");
});

Deno.test("lockWorkingFolder() takes over a lock file untouched for longer than STALE_LOCK_MS, whoever left it", async () => {
  await using s = await scratch();
  const file = path.join(s.wf, LOCK_FILE);
  await Deno.writeTextFile(
    file,
    JSON.stringify({ pid: 1, command: "build", token: "0", since: "2020-01-01", flock: false }),
  );
  const old = new Date(Date.now() - STALE_LOCK_MS - 1_000);
  await Deno.utime(file, old, old);
  const lock = await lockWorkingFolder(s.wf, "build", { waitMs: 1_000 });
  await lock.assertHeld();
  await lock.release();
});

const MKFIFO = Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
if (!MKFIFO) {
  console.log("working_folder_lock_test: the FIFO case is skipped, needs --allow-run=mkfifo");
}

Deno.test({
  name:
    "a named pipe at the lock's path fails at once with WRITE_ERROR, it never holds the command",
  ignore: !MKFIFO,
  fn: async () => {
    await using s = await scratch();
    const file = path.join(s.wf, LOCK_FILE);
    const made = await new Deno.Command("mkfifo", { args: [file] }).output();
    assert.ok(made.success, "mkfifo");
    await assert.rejects(
      lockWorkingFolder(s.wf, "build", { waitMs: 1_000 }),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "WRITE_ERROR");
        assert.match(error.message, /not a regular file/);
        return true;
      },
    );
  },
});

Deno.test("a holder whose lock was taken over does not write: assertHeld() fails", async () => {
  await using s = await scratch();
  const stalled = await lockWorkingFolder(s.wf, "build");
  // What a waiter does to a lock it judged stale: remove it, and take its own.
  await Deno.remove(path.join(s.wf, LOCK_FILE));
  const taker = await lockWorkingFolder(s.wf, "build");
  await assert.rejects(stalled.assertHeld(), { code: "WORKING_FOLDER_LOCKED" });
  await stalled.release(); // leaves the taker's lock alone
  await taker.assertHeld();
  await taker.release();
});

Deno.test({
  name:
    "a lock held by a process killed with SIGKILL is taken over at once (the kernel drops its flock)",
  ignore: DENO === null,
  fn: async () => {
    await using s = await scratch();
    const child = new Deno.Command(DENO!, {
      args: ["run", `--allow-read=${s.wf}`, `--allow-write=${s.wf}`, HOLDER, s.wf],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.equal((await reader.read()).value?.trim(), "locked");
    await assert.rejects(lockWorkingFolder(s.wf, "build", { waitMs: 200 }), {
      code: "WORKING_FOLDER_LOCKED",
    });
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
    // Well within STALE_LOCK_MS: the dead holder's OS lock is gone, so its lock file is stale.
    const lock = await lockWorkingFolder(s.wf, "build", { waitMs: STALE_LOCK_MS / 4 });
    await lock.release();
  },
});
