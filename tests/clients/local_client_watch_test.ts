// createLocalClient({ watch }): every way a bundle file changes in production,
// what each failure reports, and that close() stops everything. Intervals are
// short and every wait polls for its condition with a generous timeout.
import assert from "node:assert/strict";
import {
  createLocalClient,
  type LocalClientOptions,
  type PolicyClient,
  type PolicyError,
  type RuntimeBundleV1,
  signBundle,
} from "../../mod.ts";
import { withTempDir } from "../_openssl.ts";
import { statVersion } from "../../src/_io/file_version.ts";
import {
  hmacSecret,
  numberedBundle,
  signedText,
  sleep,
  symlink,
  TARGET,
  test,
  waitFor,
  withDigest,
  writeAtomic,
} from "./_helpers.ts";

const INTERVAL_MS = 10;

interface Watched {
  client: PolicyClient;
  dir: string;
  path: string;
  secret: string;
  errors: PolicyError[];
  /** HMAC-signed text of `numberedBundle(n, effect)` under the client's key. */
  text(n: number, effect?: "allow" | "deny"): Promise<string>;
  /** The rule that decides at TARGET: `rule-<n>` of the bundle in force. */
  rule(): string | undefined;
  /** Waits until the bundle in force is `rule-<n>`. */
  untilRule(n: number): Promise<void>;
  /** Waits until `count` errors were reported. */
  untilErrors(count: number): Promise<void>;
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
    const client = await createLocalClient({
      bundlePath: path,
      verify: { algorithm: "HMAC_SHA256", publicKey: secret },
      watch: { intervalMs: INTERVAL_MS },
      ...(!noOnError && { onError: (error: PolicyError) => void errors.push(error) }),
      ...clientOptions,
    });
    const rule = () => client.evaluate({ target: TARGET }).ruleId;
    try {
      await fn({
        client,
        dir,
        path,
        secret,
        errors,
        text,
        rule,
        untilRule: (n) => waitFor(() => rule() === `rule-${n}`, `rule-${n} in force`),
        untilErrors: (count) =>
          waitFor(
            () => errors.length >= count,
            `${count} errors, got ${errors.map((e) => e.code)}`,
          ),
      });
    } finally {
      await client.close();
    }
  });
}

const codes = (errors: PolicyError[]) => errors.map((error) => error.code);

test("watch does not read an unchanged file again, directly or through a symlink", async () => {
  for (const linked of [false, true]) {
    await watching(async ({ path, text, untilRule }) => {
      const two = await text(2); // before counting: signing computes a digest too
      // Every load computes one digest: count them.
      let loads = 0;
      await withDigest((digest) => (...args) => {
        loads++;
        return digest(...args);
      }, async () => {
        await sleep(20 * INTERVAL_MS);
        assert.equal(loads, 0, "an unchanged file was loaded again");
        await writeAtomic(linked ? `${path}.target` : path, two);
        await untilRule(2);
        await sleep(20 * INTERVAL_MS);
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
    await sleep(1050 - (Date.now() % 1000));
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
  await watching(async ({ path, text, rule, untilRule, untilErrors, errors }) => {
    await Deno.remove(path);
    await untilErrors(1);
    // Twenty more checks while it stays missing: no further report.
    await sleep(20 * INTERVAL_MS);
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
  await watching(async ({ path, client, text, rule, untilRule, untilErrors, errors }) => {
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
    await sleep(20 * INTERVAL_MS);
    assert.equal(errors.length, steps.length);
    // The path turned into a folder (a check between the two steps may
    // report the file missing first).
    await Deno.remove(path);
    await Deno.mkdir(path);
    await waitFor(
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
  }, { maxFileBytes: 4096 });
});

test("watch reloads a file whose bundleVersion changed but whose policies did not", async () => {
  await watching(async ({ path, secret, client }) => {
    const checksum = client.status().checksum;
    const bumped = { ...numberedBundle(1), bundleVersion: 9 };
    await writeAtomic(path, await signedText(bumped, secret));
    await waitFor(() => client.status().bundleVersion === 9, "bundleVersion 9");
    assert.equal(client.status().checksum, checksum);
  });
});

test("evaluate() during reloads answers from the old or the new bundle, never a mix", async () => {
  await watching(async ({ path, client, text, untilRule }) => {
    const checksums = new Map<string, string>(); // checksum -> rule id
    const texts: string[] = [];
    for (let n = 1; n <= 9; n++) {
      const t = await text(n, n % 2 === 0 ? "deny" : "allow");
      texts.push(t);
      checksums.set(JSON.parse(t).checksum, `rule-${n}`);
    }
    let seen = 1;
    for (let n = 2; n <= 9; n++) {
      await writeAtomic(path, texts[n - 1]!);
      // Evaluate continuously until rule-n is in force.
      while (true) {
        const decision = client.evaluate({ target: TARGET });
        const status = client.status();
        const m = Number(decision.ruleId!.slice("rule-".length));
        // The decision and the status come from the same bundle, …
        assert.equal(checksums.get(status.checksum), decision.ruleId);
        assert.equal(decision.decision, m % 2 === 0 ? "deny" : "allow");
        // … which is the previous one or the new one.
        assert.ok(m === seen || m === n, `rule-${m} while going from rule-${seen} to rule-${n}`);
        if (m === n) break;
        await sleep(1);
      }
      seen = n;
    }
    await untilRule(9);
  });
});

test("close() stops watching: later changes are not loaded and nothing is reported", async () => {
  await watching(async ({ client, path, text, rule, errors }) => {
    await client.close();
    await writeAtomic(path, await text(2));
    await sleep(10 * INTERVAL_MS);
    await Deno.remove(path);
    await sleep(10 * INTERVAL_MS);
    assert.equal(rule(), "rule-1");
    assert.deepEqual(errors, []);
    await client.close();
  });
});

test("close() during a reload waits for it to finish, and the reload then changes nothing", async () => {
  await watching(async ({ client, path, text, rule, errors }) => {
    const two = await text(2);
    // Hold the reload inside the load pipeline (its checksum digest) until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    let entered = false;
    await withDigest((digest) => async (...args) => {
      entered = true;
      await gate;
      return await digest(...args);
    }, async () => {
      try {
        await writeAtomic(path, two);
        await waitFor(() => entered, "a reload started");
        let closed = false;
        const closing = client.close().then(() => closed = true);
        await sleep(5 * INTERVAL_MS);
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
      const client = await createLocalClient({
        bundlePath: path,
        verify: { algorithm: "HMAC_SHA256", publicKey: secret },
        watch: { intervalMs: 1 },
        onError: () => {},
      });
      await writeAtomic(path, two);
      await sleep(i % 3);
      await client.close();
    }
  });
});

test("a throwing or rejecting onError does not stop watching", async () => {
  for (const kind of ["throw", "reject"] as const) {
    let calls = 0;
    await watching(async ({ path, text, untilRule }) => {
      await writeAtomic(path, "garbage");
      await waitFor(() => calls === 1, "onError called");
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
    await watching(async ({ path, text, untilRule }) => {
      await writeAtomic(path, "garbage");
      await waitFor(() => warnings.length === 1, "one warning");
      await sleep(10 * INTERVAL_MS);
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
  const original = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const live = new Set<unknown>();
  let most = 0;
  globalThis.setTimeout = ((handler: () => void, delay?: number) => {
    if (delay !== INTERVAL_MS) return original.setTimeout(handler, delay);
    const id = original.setTimeout(() => {
      live.delete(id);
      handler();
    }, delay);
    live.add(id);
    most = Math.max(most, live.size);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: number) => {
    live.delete(id);
    original.clearTimeout(id);
  }) as typeof clearTimeout;
  try {
    await watching(async ({ path, secret, untilRule }) => {
      // A large bundle makes each reload take a while.
      const big = numberedBundle(2);
      for (let i = 0; i < 3000; i++) {
        big.policies.push({ ...structuredClone(big.policies[0]!), policyKey: `p-${i}` });
      }
      await writeAtomic(path, await signedText(big, secret));
      await untilRule(2);
      await writeAtomic(path, await signedText(numberedBundle(3), secret));
      await untilRule(3);
    });
  } finally {
    globalThis.setTimeout = original.setTimeout;
    globalThis.clearTimeout = original.clearTimeout;
  }
  assert.equal(most, 1);
  assert.equal(live.size, 0);
});
