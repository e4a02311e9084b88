// The library's one clock: the system clock's four methods, the option
// checker's `clock` field, and the old clock shapes refused with a message.
import assert from "node:assert/strict";
import { SYSTEM_CLOCK } from "../../src/public/clock.ts";
import { clockField } from "../../src/_internal/check_options.ts";
import { createLocalClient, createRemoteClient } from "../../mod.ts";
import { createMemoryStore } from "../../src/enforce/mod.ts";
import { createDecisionLogWriter } from "../../src/decision_log/mod.ts";
import { assertRejectsCode, assertThrowsCode } from "../_assert_policy_error.ts";
import { FakeClock } from "../_fake_clock.ts";
import { remoteOptions } from "../clients/_remote_fixtures.ts";

Deno.test("SYSTEM_CLOCK: now() is performance.now(), wallNow() is Date.now(), its timers are the global ones", () => {
  const [before, now, after] = [performance.now(), SYSTEM_CLOCK.now(), performance.now()];
  assert.ok(before <= now && now <= after);
  const [wallBefore, wall, wallAfter] = [Date.now(), SYSTEM_CLOCK.wallNow(), Date.now()];
  assert.ok(wallBefore <= wall && wall <= wallAfter);
  let fired = false;
  const handle = SYSTEM_CLOCK.setTimeout(() => fired = true, 60_000);
  // Cleared: the test's op sanitizer would report a timer left pending.
  SYSTEM_CLOCK.clearTimeout(handle);
  assert.equal(fired, false);
  assert.ok(Object.isFrozen(SYSTEM_CLOCK));
});

Deno.test("clockField: an object with the four methods; what is missing is named", () => {
  assert.equal(clockField.check(new FakeClock(), "clock"), undefined);
  assert.match(clockField.check(5, "clock")!, /must be an object with now\(\), wallNow\(\)/);
  assert.match(
    clockField.check({ now: () => 0, setTimeout() {}, clearTimeout() {} }, "clock")!,
    /wallNow\(\) missing/,
  );
});

Deno.test("the factories refuse a clock of the old shapes with INVALID_OPTIONS", async () => {
  const oldRemoteClock = { now: () => Date.now(), setTimeout, clearTimeout };
  const remote = await assertRejectsCode(
    createRemoteClient(remoteOptions("https://cp.test", { clock: oldRemoteClock as never })),
    "INVALID_OPTIONS",
  );
  assert.match(remote.message, /clock must be an object .*wallNow\(\) missing/);
  await assertRejectsCode(
    createLocalClient({ bundlePath: "x.json", allowUnsigned: true, clock: {} as never }),
    "INVALID_OPTIONS",
  );
  const store = assertThrowsCode(
    () => createMemoryStore({ now: () => 0 } as never),
    "INVALID_OPTIONS",
  );
  assert.match(store.message, /now was replaced by clock/);
  assertThrowsCode(
    () => createDecisionLogWriter({ stream: new WritableStream(), clock: Date } as never),
    "INVALID_OPTIONS",
  );
});

Deno.test("FakeClock: tick fires due timers in order at their own time; the wall clock steps alone", () => {
  const clock = new FakeClock({ now: 0, wallNow: 1_000_000 });
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
  clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
  const cleared = clock.setTimeout(() => fired.push("never"), 15);
  clock.clearTimeout(cleared);
  clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
  clock.tick(19);
  assert.deepEqual(fired, ["a@10"]);
  clock.tick(1);
  assert.deepEqual(fired, ["a@10", "b@20", "c@20"]);
  assert.equal(clock.wallNow(), 1_000_020);
  clock.stepWall(-3_600_000);
  assert.equal(clock.now(), 20);
  assert.equal(clock.wallNow(), 1_000_020 - 3_600_000);
  assert.throws(() => clock.tick(-1), RangeError);
});
