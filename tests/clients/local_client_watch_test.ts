// createLocalClient({ watch }): every way a bundle file changes in production,
// what each failure reports, and that close() stops everything. The client's
// timers run on a FakeClock: a test runs checks one by one (each resolves when
// the check is over and the next one is scheduled), never sleeping.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import {
  createLocalClient,
  type LocalClientOptions,
  type PolicyClient,
  type PolicyError,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";

import { FakeClock } from "../_fake_clock.ts";
import { statVersion } from "../../src/io/file_version.ts";
import {
  hmacSecret,
  numberedBundle,
  signedText,
  symlink,
  TARGET,
  test,
  withDigest,
  writeAtomic,
} from "./_helpers.ts";

const INTERVAL_MS = 10;

/** More checks than any change needs to be seen (a rewrite caught half-way takes two). */
const MAX_CHECKS = 50;

/**
 * Runs one check of the file on `clock`: fires the pending watch timer and
 * resolves when the check is over (the client scheduled the next one); with
 * a check already running, waits for its end.
 */
async function check(clock: FakeClock): Promise<void> {
  // No timer pending: a check is running; its end is the next timer.
  if (clock.pending === 0) return await clock.nextTimer();
  assert.equal(clock.pending, 1, "one watch timer pending");
  const next = clock.nextTimer();
  clock.tick(INTERVAL_MS);
  await next;
}

/** Runs checks until `condition` holds, failing after {@link MAX_CHECKS}. */
async function checkUntil(
  clock: FakeClock,
  condition: () => boolean,
  message: string,
): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i === MAX_CHECKS) throw new Error(`not after ${MAX_CHECKS} checks: ${message}`);
    await check(clock);
  }
}

interface Watched {
  client: PolicyClient;
  clock: FakeClock;
  dir: string;
  path: string;
  secret: string;
  errors: PolicyError[];
  /** HMAC-signed text of `numberedBundle(n, effect)` under the client's key. */
  text(n: number, effect?: "allow" | "deny"): Promise<string>;
  /** The rule that decides at TARGET: `rule-<n>` of the bundle in force. */
  rule(): string | undefined;
  /** Runs checks until the bundle in force is `rule-<n>`. */
  untilRule(n: number): Promise<void>;
  /** Runs checks until `count` errors were reported. */
  untilErrors(count: number): Promise<void>;
  /** Runs checks until `condition` holds. */
  until(condition: () => boolean, message: string): Promise<void>;
  /** Runs `n` checks. */
  checks(n: number): Promise<void>;
}

/**
 * Runs `fn` with a client watching `<dir>/bundle.json` (HMAC-verified,
 * holding `numberedBundle(1)` unless `setup` writes something else), then
 * closes it and removes the folder.
 */
async function watching(
  fn: (w: Watched) => Promise<void>,
  options: Partial<LocalClientOptions> & {
    setup?: (dir: string, text: (n: number) => Promise<string>) => Promise<string>;
    /** Create the client without onError. */
    noOnError?: boolean;
  } = {},
): Promise<void> {
  const secret = hmacSecret();
  const text = (n: number, effect?: "allow" | "deny") =>
    signedText(numberedBundle(n, effect), secret);
  await withTempDir(async (dir) => {
    const { setup, noOnError, ...clientOptions } = options;
    let path = `${dir}/bundle.json`;
    if (setup === undefined) await Deno.writeTextFile(path, await text(1));
    else path = await setup(dir, text);
    const errors: PolicyError[] = [];
    // The wall clock starts at the real time: the files' times are real.
    const clock = options.clock instanceof FakeClock
      ? options.clock
      : new FakeClock({ wallNow: Date.now() });
    const client = await createLocalClient({
      bundlePath: path,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
      watch: { intervalMs: INTERVAL_MS },
      clock,
      ...(!noOnError && { onError: (error: PolicyError) => void errors.push(error) }),
      ...clientOptions,
    });
    const rule = () => client.evaluate({ target: TARGET }).ruleId;
    const until = (condition: () => boolean, message: string) =>
      checkUntil(clock, condition, message);
    try {
      await fn({
        client,
        clock,
        dir,
        path,
        secret,
        errors,
        text,
        rule,
        untilRule: (n) => until(() => rule() === `rule-${n}`, `rule-${n} in force`),
        untilErrors: (count) =>
          until(
            () => errors.length >= count,
            `${count} errors, got ${errors.map((e) => e.code)}`,
          ),
        until,
        checks: async (n) => {
          for (let i = 0; i < n; i++) await check(clock);
        },
      });
    } finally {
      await client.close();
    }
  });
}

const codes = (errors: PolicyError[]) => errors.map((error) => error.code);

test("watch does not read an unchanged file again, directly or through a symlink", async () => {
  for (const linked of [false, true]) {
    await watching(async ({ path, text, untilRule, checks }) => {
      const two = await text(2); // before counting: signing computes a digest too
      // Every load computes one digest: count them.
      let loads = 0;
      await withDigest((digest) => (...args) => {
        loads++;
        return digest(...args);
      }, async () => {
        await checks(20);
        assert.equal(loads, 0, "an unchanged file was loaded again");
        await writeAtomic(linked ? `${path}.target` : path, two);
        await untilRule(2);
        await checks(20);
        assert.equal(loads, 1);
      });
    }, {
      setup: async (dir, text) => {
        const path = `${dir}/bundle.json`;
        await Deno.writeTextFile(linked ? `${path}.target` : path, await text(1));
        if (linked) await symlink(`${path}.target`, path);
        return path;
      },
    });
  }
});

test("watch reloads a file rewritten in place", async () => {
  await watching(async ({ path, text, untilRule, client, errors }) => {
    const { ino } = await Deno.stat(path);
    await Deno.writeTextFile(path, await text(2));
    await untilRule(2);
    assert.equal((await Deno.stat(path)).ino, ino, "written in place, same inode");
    assert.equal(client.status().bundleVersion, 2);
    // A check may catch the file between truncation and write: that can only
    // be a parse error, and the complete file is loaded afterwards.
    assert.ok(errors.every((e) => e.code === "BUNDLE_PARSE_ERROR"), String(codes(errors)));
  });
});

test("watch sees a same-size in-place rewrite that leaves the file's stat unchanged", async () => {
  // mtime has a limited precision (milliseconds on Deno, the ctime a second):
  // a same-size rewrite in the same tick leaves every stat field unchanged.
  // Made deterministic here: start early in a second, then put the old mtime
  // back, so that only the bytes differ. Should the rewrite still cross into
  // the next second (its ctime then differs), the scenario is run again.
  let unchanged = false;
  for (let attempt = 0; attempt < 3 && !unchanged; attempt++) {
    // The file system's clock, not a timer of the client: wait for a new second to start.
    await new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));
    await watching(async ({ path, text, untilRule }) => {
      const two = await text(2);
      const before = await Deno.stat(path);
      const version = await statVersion(path);
      await Deno.writeTextFile(path, two);
      await Deno.utime(path, before.atime!, before.mtime!);
      unchanged = await statVersion(path) === version;
      if (unchanged) await untilRule(2);
    });
  }
  assert.ok(unchanged, "the scenario never left the stat unchanged");
});

test("watch reloads a file replaced by an atomic rename, with no error", async () => {
  await watching(async ({ path, text, untilRule, errors }) => {
    const { ino } = await Deno.stat(path);
    await writeAtomic(path, await text(2));
    await untilRule(2);
    assert.notEqual((await Deno.stat(path)).ino, ino);
    await writeAtomic(path, await text(3, "deny"));
    await untilRule(3);
    assert.deepEqual(errors, []);
  });
});

test("watch sees two in-place writes of the same size within one second (full-precision mtime)", async () => {
  await watching(async ({ path, text, untilRule, errors }) => {
    const [two, three] = [await text(2), await text(3)];
    assert.equal(two.length, three.length);
    const { ino } = await Deno.stat(path);
    // Same second, 100 ms apart: a watcher comparing whole seconds misses the second write.
    await Deno.writeTextFile(path, two);
    await Deno.utime(
      path,
      new Date("2030-01-01T00:00:00.100Z"),
      new Date("2030-01-01T00:00:00.100Z"),
    );
    await untilRule(2);
    await Deno.writeTextFile(path, three);
    await Deno.utime(
      path,
      new Date("2030-01-01T00:00:00.200Z"),
      new Date("2030-01-01T00:00:00.200Z"),
    );
    await untilRule(3);
    const after = await Deno.stat(path);
    assert.equal(after.ino, ino);
    assert.equal(after.size, three.length);
    assert.ok(errors.every((e) => e.code === "BUNDLE_PARSE_ERROR"), String(codes(errors)));
  });
});

test("watch sees an atomic rename that keeps the modification time and size (inode)", async () => {
  const mtime = new Date("2030-01-01T00:00:00.000Z");
  await watching(async ({ path, text, untilRule, errors }) => {
    const before = await Deno.stat(path);
    const two = await text(2);
    assert.equal(two.length, before.size);
    await writeAtomic(path, two, mtime);
    await untilRule(2);
    const after = await Deno.stat(path);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    assert.equal(after.size, before.size);
    assert.notEqual(after.ino, before.ino);
    assert.deepEqual(errors, []);
  }, {
    setup: async (dir, text) => {
      const path = `${dir}/bundle.json`;
      await Deno.writeTextFile(path, await text(1));
      await Deno.utime(path, mtime, mtime);
      return path;
    },
  });
});

test("watch reports a removed file once (BUNDLE_READ_ERROR), keeps the bundle and reloads it when restored", async () => {
  await watching(async ({ path, text, rule, untilRule, untilErrors, errors, checks }) => {
    await Deno.remove(path);
    await untilErrors(1);
    // Twenty more checks while it stays missing: no further report.
    await checks(20);
    assert.deepEqual(codes(errors), ["BUNDLE_READ_ERROR"]);
    assert.ok(errors[0]!.message.includes(path), errors[0]!.message);
    assert.equal(rule(), "rule-1");
    await writeAtomic(path, await text(2));
    await untilRule(2);
    // Missing again, then restored with the very bytes of before: reloaded too.
    const one = await text(1);
    await Deno.remove(path);
    await untilErrors(2);
    await writeAtomic(path, one);
    await untilRule(1);
    assert.deepEqual(codes(errors), ["BUNDLE_READ_ERROR", "BUNDLE_READ_ERROR"]);
    // Going back from version 2 to version 1 is a deliberate rollback here.
  }, { allowRollback: true });
});

test("watch follows a symlink swap (the Kubernetes ConfigMap ..data pattern)", async () => {
  const mtime = new Date("2030-01-01T00:00:00.000Z");
  await watching(async ({ dir, path, untilRule, errors }) => {
    // Same size and modification time in both versions: only the inode differs.
    const swap = async (version: string) => {
      await symlink(version, `${dir}/..data_tmp`);
      await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
    };
    await swap("..v2");
    await untilRule(2);
    await swap("..v1");
    await untilRule(1);
    assert.equal(path, `${dir}/bundle.json`);
    assert.deepEqual(errors, []);
  }, {
    // Swapping back to version 1 is a deliberate rollback here.
    allowRollback: true,
    setup: async (dir, text) => {
      for (const n of [1, 2]) {
        await Deno.mkdir(`${dir}/..v${n}`);
        await Deno.writeTextFile(`${dir}/..v${n}/bundle.json`, await text(n));
        await Deno.utime(`${dir}/..v${n}/bundle.json`, mtime, mtime);
      }
      await symlink("..v1", `${dir}/..data`);
      await symlink("..data/bundle.json", `${dir}/bundle.json`);
      return `${dir}/bundle.json`;
    },
  });
});

test("watch keeps the bundle in force on truncated files: BUNDLE_PARSE_ERROR, CHECKSUM_MISMATCH", async () => {
  await watching(async ({ path, secret, client, text, rule, untilRule, untilErrors, errors }) => {
    const checksum = client.status().checksum;
    const two = await text(2);
    const steps: [string, string][] = [
      [two.slice(0, Math.floor(two.length / 2)), "BUNDLE_PARSE_ERROR"],
      ["", "BUNDLE_PARSE_ERROR"],
    ];
    // Still JSON, but cut short: the last rules of a policy missing.
    const twoRules: RuntimeBundleV1 = numberedBundle(2);
    twoRules.policies[0]!.rules.push({ ...twoRules.policies[0]!.rules[0]!, id: "extra" });
    const signed = await signBundle(twoRules, {
      algorithm: "HMAC_SHA256",
      key: secret,
      keyId: "k",
    });
    signed.policies[0]!.rules.pop();
    steps.push([JSON.stringify(signed), "CHECKSUM_MISMATCH"]);
    for (const [i, [content, code]] of steps.entries()) {
      await writeAtomic(path, content);
      await untilErrors(i + 1);
      assert.equal(errors[i]!.code, code, errors[i]!.message);
      assert.equal(rule(), "rule-1");
      assert.equal(client.status().checksum, checksum);
    }
    await writeAtomic(path, await text(3));
    await untilRule(3);
    assert.equal(errors.length, steps.length);
  });
});

test("watch keeps the bundle in force on garbage, invalid, unsigned, foreign-signed and oversized files", async () => {
  await watching(
    async ({ path, client, text, rule, untilRule, untilErrors, errors, until, checks }) => {
      const garbage = crypto.getRandomValues(new Uint8Array(512));
      garbage[0] = 0xff; // never valid UTF-8
      const foreign = await signedText(numberedBundle(2), hmacSecret());
      const ecdsa = await crypto.subtle.generateKey(
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["sign", "verify"],
      );
      const steps: [string | Uint8Array, string][] = [
        [garbage, "BUNDLE_PARSE_ERROR"],
        ["not json at all", "BUNDLE_PARSE_ERROR"],
        [JSON.stringify({ schemaVersion: 2, env: "test", policies: [] }), "BUNDLE_INVALID"],
        [JSON.stringify(numberedBundle(2)), "BUNDLE_SIGNATURE_MISSING"],
        [foreign, "BUNDLE_SIGNATURE_INVALID"],
        [
          JSON.stringify(
            await signBundle(numberedBundle(2), {
              algorithm: "ECDSA_SHA_256",
              key: ecdsa.privateKey,
              keyId: "ec",
            }),
          ),
          "BUNDLE_SIGNATURE_ALGORITHM_MISMATCH",
        ],
        [(await text(2)) + " ".repeat(4096), "BUNDLE_TOO_LARGE"],
      ];
      for (const [i, [content, code]] of steps.entries()) {
        await writeAtomic(path, content);
        await untilErrors(i + 1);
        assert.equal(errors[i]!.code, code, errors[i]!.message);
        assert.equal(rule(), "rule-1", `after ${code}`);
      }
      // The failed file is not read again while it stays unchanged: no new report.
      await checks(20);
      assert.equal(errors.length, steps.length);
      // The path turned into a folder (a check between the two steps may
      // report the file missing first).
      await Deno.remove(path);
      await Deno.mkdir(path);
      await until(
        () => errors.some((e) => /is a folder/.test(e.message)),
        "the folder reported",
      );
      assert.ok(
        errors.slice(steps.length).every((e) => e.code === "BUNDLE_READ_ERROR"),
        String(codes(errors)),
      );
      await Deno.remove(path);
      await writeAtomic(path, await text(4));
      await untilRule(4);
      assert.equal(client.status().bundleVersion, 4);
    },
    { maxFileBytes: 4096 },
  );
});

test("watch reloads a file whose bundleVersion changed but whose policies did not", async () => {
  await watching(async ({ path, secret, client, until }) => {
    const checksum = client.status().checksum;
    const bumped = { ...numberedBundle(1), bundleVersion: 9 };
    await writeAtomic(path, await signedText(bumped, secret));
    await until(() => client.status().bundleVersion === 9, "bundleVersion 9");
    assert.equal(client.status().checksum, checksum);
  });
});

test("evaluate() during reloads answers from the old or the new bundle, never a mix", async () => {
  await watching(async ({ path, client, text, until }) => {
    const checksums = new Map<string, string>(); // checksum -> rule id
    const texts: string[] = [];
    for (let n = 1; n <= 9; n++) {
      const t = await text(n, n % 2 === 0 ? "deny" : "allow");
      texts.push(t);
      checksums.set(JSON.parse(t).checksum, `rule-${n}`);
    }
    let seen = 1;
    let next = 1;
    let observed = 0;
    /** One evaluation: the decision and the status from one bundle, the previous or the next. */
    const observe = () => {
      const decision = client.evaluate({ target: TARGET });
      const status = client.status();
      const m = Number(decision.ruleId!.slice("rule-".length));
      // The decision and the status come from the same bundle, …
      assert.equal(checksums.get(status.checksum), decision.ruleId);
      assert.equal(decision.decision, m % 2 === 0 ? "deny" : "allow");
      // … which is the previous one or the new one.
      assert.ok(
        m === seen || m === next,
        `rule-${m} while going from rule-${seen} to rule-${next}`,
      );
      observed++;
      return m;
    };
    // Evaluate in the middle of every reload too: inside its checksum digest.
    await withDigest((digest) => async (...args) => {
      observe();
      const result = await digest(...args);
      observe();
      return result;
    }, async () => {
      for (let n = 2; n <= 9; n++) {
        next = n;
        await writeAtomic(path, texts[n - 1]!);
        // Evaluate after every check until rule-n is in force.
        await until(() => observe() === n, `rule-${n} in force`);
        seen = n;
      }
    });
    assert.ok(observed >= 8 * 3, `${observed} evaluations`);
  });
});

test("close() stops watching: later changes are not loaded and nothing is reported", async () => {
  await watching(async ({ client, clock, path, text, rule, errors }) => {
    await client.close();
    assert.equal(clock.pending, 0, "close() cleared the watch timer");
    await writeAtomic(path, await text(2));
    clock.tick(10 * INTERVAL_MS);
    await Deno.remove(path);
    clock.tick(10 * INTERVAL_MS);
    assert.equal(clock.pending, 0);
    assert.equal(rule(), "rule-1");
    assert.deepEqual(errors, []);
    await client.close();
  });
});

test("close() during a reload waits for it to finish, and the reload then changes nothing", async () => {
  await watching(async ({ client, clock, path, text, rule, errors }) => {
    const two = await text(2);
    // Hold the reload inside the load pipeline (its checksum digest) until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    let enter!: () => void;
    const entered = new Promise<void>((resolve) => enter = resolve);
    await withDigest((digest) => async (...args) => {
      enter();
      await gate;
      return await digest(...args);
    }, async () => {
      try {
        await writeAtomic(path, two);
        clock.tick(INTERVAL_MS);
        await entered;
        let closed = false;
        const closing = client.close().then(() => closed = true);
        // Everything close() could do without the reload is done within these turns.
        for (let i = 0; i < 20; i++) await Promise.resolve();
        clock.tick(10 * INTERVAL_MS);
        assert.equal(closed, false, "close() resolved while a reload was running");
        release();
        await closing;
      } finally {
        release();
      }
    });
    assert.equal(rule(), "rule-1");
    assert.deepEqual(errors, []);
  });
});

test("close() racing with checks leaves no timer or file open", async () => {
  await watching(async ({ path, text }) => {
    const two = await text(2);
    // Repeated closes racing with checks; the sanitizers check what is left.
    for (let i = 0; i < 10; i++) {
      const secret = hmacSecret();
      await writeAtomic(path, await signedText(numberedBundle(1), secret));
      const clock = new FakeClock({ wallNow: Date.now() });
      const client = await createLocalClient({
        bundlePath: path,
        verify: { algorithm: "HMAC_SHA256", publicKey: secret },
        watch: { intervalMs: 1 },
        onError: () => {},
        clock,
      });
      await writeAtomic(path, two);
      // 0, 1 or 2 checks started: close() comes before, during or between them.
      for (let tick = 0; tick < i % 3; tick++) {
        clock.tick(1);
        await Promise.resolve();
      }
      await client.close();
      assert.equal(clock.pending, 0);
    }
  });
});

test("a throwing or rejecting onError does not stop watching", async () => {
  for (const kind of ["throw", "reject"] as const) {
    let calls = 0;
    await watching(async ({ path, text, untilRule, until }) => {
      await writeAtomic(path, "garbage");
      await until(() => calls === 1, "onError called");
      await writeAtomic(path, await text(2));
      await untilRule(2);
    }, {
      onError: kind === "throw"
        ? () => {
          calls++;
          throw new Error("onError failed");
        }
        : (() => {
          calls++;
          return Promise.reject(new Error("onError failed"));
        }) as () => void,
    });
  }
});

test("without onError a failed reload is written once to console.warn", async () => {
  const original = console.warn;
  const warnings: string[] = [];
  console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
  try {
    await watching(async ({ path, text, untilRule, until, checks }) => {
      await writeAtomic(path, "garbage");
      await until(() => warnings.length === 1, "one warning");
      await checks(10);
      await writeAtomic(path, await text(2));
      await untilRule(2);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /BUNDLE_PARSE_ERROR/);
      assert.ok(warnings[0]!.includes(path));
      assert.match(warnings[0]!, /the previous bundle stays in force/);
    }, { noOnError: true });
  } finally {
    console.warn = original;
  }
});

test("watch runs one check at a time: one poll timer, never overlapping", async () => {
  /** A FakeClock that records the most timers ever pending at once. */
  class CountingClock extends FakeClock {
    most = 0;
    override setTimeout(callback: () => void, ms: number): number {
      const id = super.setTimeout(callback, ms);
      this.most = Math.max(this.most, this.pending);
      return id;
    }
  }
  const clock = new CountingClock({ wallNow: Date.now() });
  await watching(async ({ path, secret, untilRule }) => {
    // A large bundle makes each reload take a while.
    const big = numberedBundle(2);
    for (let i = 0; i < 3000; i++) {
      big.policies.push({ ...structuredClone(big.policies[0]!), policyKey: `p-${i}` });
    }
    await writeAtomic(path, await signedText(big, secret));
    // Time runs on while the reload is in progress: no second check starts.
    clock.tick(INTERVAL_MS);
    for (let i = 0; i < 5; i++) clock.tick(INTERVAL_MS);
    await untilRule(2);
    await writeAtomic(path, await signedText(numberedBundle(3), secret));
    await untilRule(3);
  }, { clock });
  assert.equal(clock.most, 1);
  assert.equal(clock.pending, 0);
});
