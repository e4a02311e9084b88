/**
 * The working folder's lock (src/cli/kit/working_folder_lock.ts) and what
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
} from "../../../src/cli/kit/working_folder_lock.ts";
import { scratch } from "../_helpers.ts";
import { DENO, explainIgnored } from "../../faults/_policy_process.ts";
import { FakeClock } from "../../_fake_clock.ts";
import { symlink } from "../../clients/_helpers.ts";

explainIgnored("working_folder_lock_test");

const HOLDER = fileURLToPath(new URL("../testdata/hold_lock.ts", import.meta.url));

/**
 * Settles `promise` (a lock being taken on `clock`): each time the taker
 * schedules its next wait, time moves to it. Event-driven: no real time.
 */
async function drive<T>(clock: FakeClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  const done = promise.then(() => settled = true, () => settled = true);
  for (let turns = 0; !settled; turns++) {
    assert.ok(turns < 100_000, "the taker never settled");
    await Promise.race([done, clock.nextTimer()]);
    if (!settled) clock.runNext();
  }
  return await promise;
}

Deno.test("lockWorkingFolder() makes a second taker wait, then refuses with WORKING_FOLDER_LOCKED naming the holder", async () => {
  await using s = await scratch();
  const clock = new FakeClock({ wallNow: Date.now() });
  const held = await lockWorkingFolder(s.wf, "build", { clock });
  let waitedFor = "";
  const start = clock.now();
  await assert.rejects(
    drive(
      clock,
      lockWorkingFolder(s.wf, "policies add-rule", {
        clock,
        waitMs: 300,
        onWait: (holder) => void (waitedFor = holder),
      }),
    ),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "WORKING_FOLDER_LOCKED");
      assert.match(error.message, /locked by 'policy build' \(process \d+, since /);
      return true;
    },
  );
  assert.ok(clock.now() - start >= 300 && clock.now() - start < 400, `${clock.now() - start} ms`);
  assert.match(waitedFor, /'policy build'/);
  let waiting!: () => void;
  const waits = new Promise<void>((resolve) => waiting = resolve);
  const next = lockWorkingFolder(s.wf, "sign", { waitMs: 5_000, onWait: () => waiting() });
  await waits;
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

Deno.test("a dangling symbolic link at the lock's path is WRITE_ERROR naming it, at once (it used to spin forever)", async () => {
  await using s = await scratch();
  const file = path.join(s.wf, LOCK_FILE);
  await symlink(path.join(s.wf, "nowhere"), file);
  const clock = new FakeClock({ wallNow: Date.now() });
  await assert.rejects(
    drive(clock, lockWorkingFolder(s.wf, "build", { clock, waitMs: 1_000 })),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "WRITE_ERROR");
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.message, /symbolic link/);
      return true;
    },
  );
  assert.equal(clock.now(), 1_000, "no time waited");
});

Deno.test("a stale lock with a folder at .policy.lock.break is WRITE_ERROR naming the folder, never INTERNAL_ERROR", async () => {
  for (const age of ["new", "old"] as const) {
    await using s = await scratch();
    const file = path.join(s.wf, LOCK_FILE);
    await Deno.writeTextFile(
      file,
      JSON.stringify({ pid: 1, command: "build", token: "0", since: "2020-01-01", flock: false }),
    );
    await Deno.mkdir(`${file}.break`);
    if (age === "old") {
      const old = new Date(Date.now() - 2 * STALE_LOCK_MS);
      await Deno.utime(`${file}.break`, old, old);
    }
    // The wall clock says the lock file is long untouched: stale.
    const clock = new FakeClock({ wallNow: Date.now() + STALE_LOCK_MS + 5_000 });
    await assert.rejects(
      drive(clock, lockWorkingFolder(s.wf, "build", { clock, waitMs: 1_000 })),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "WRITE_ERROR", `${age}: ${error.message}`);
        assert.ok(error.message.includes(`${file}.break`), error.message);
        assert.match(error.message, /is a folder/);
        return true;
      },
    );
    await Deno.remove(`${file}.break`);
  }
});

Deno.test("every path through the lock loop meets the deadline: a lock file holding no record waits, then WORKING_FOLDER_LOCKED", async () => {
  await using s = await scratch();
  const file = path.join(s.wf, LOCK_FILE);
  // Garbage in the lock file, freshly written: not a record, not stale.
  await Deno.writeTextFile(file, "not a lock record");
  const clock = new FakeClock({ wallNow: Date.now() });
  await assert.rejects(
    drive(clock, lockWorkingFolder(s.wf, "build", { clock, waitMs: 500 })),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "WORKING_FOLDER_LOCKED");
      assert.match(error.message, /locked by another command/);
      return true;
    },
  );
  assert.ok(clock.now() - 1_000 >= 500 && clock.now() - 1_000 < 600);
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
