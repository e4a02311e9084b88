// The local client under Deno's permission model, in child processes: it
// works with nothing but --allow-read of the bundle file (no env, net, write
// or run), watching included, and without it fails with a PolicyError code,
// not a permission stack trace.
//
// Needs --allow-run=deno in the test process (the child is `deno run`), on top
// of read of the repository and write of .tmp/.
import { withTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";

import { hmacSecret, numberedBundle, signedText, symlink, test, writeAtomic } from "./_helpers.ts";

import { requireDenoCommand } from "../_deno_command.ts";
const CHILD = new URL("./testdata/local_client_child.ts", import.meta.url).pathname;

interface Child {
  /** Writes `line` and a newline to the child's stdin (watch mode). */
  send(line: string): Promise<void>;
  /** The next line the child prints, or null at the end of its output. */
  nextLine(): Promise<string | null>;
  /** Waits for the child to exit; its exit code and stderr. */
  exit(): Promise<{ code: number; stderr: string }>;
}

/** Starts `deno run --no-prompt <permissions> local_client_child.ts <args>`. */
function startChild(permissions: string[], args: string[]): Child {
  const child = new Deno.Command(requireDenoCommand(), {
    args: ["run", "--no-prompt", ...permissions, CHILD, ...args],
    stdin: args[0] === "watch" ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A child that never exits (a timer left running) fails the test instead of hanging it.
  const killer = setTimeout(() => child.kill(), 60_000);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let done = false;
  const nextLine = async (): Promise<string | null> => {
    while (!buffered.includes("\n") && !done) {
      const chunk = await reader.read();
      if (chunk.done) done = true;
      else buffered += chunk.value;
    }
    if (buffered === "") return null;
    const end = buffered.includes("\n") ? buffered.indexOf("\n") : buffered.length;
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    return line;
  };
  const writer = args[0] === "watch" ? child.stdin.getWriter() : null;
  return {
    async send(line) {
      await writer!.write(new TextEncoder().encode(`${line}\n`));
    },
    nextLine,
    async exit() {
      await writer?.close();
      while ((await nextLine()) !== null) { /* drain */ }
      reader.releaseLock();
      const status = await child.status;
      clearTimeout(killer);
      return { code: status.code, stderr: await stderr };
    },
  };
}

/** Runs the child to its end; its stdout lines, exit code and stderr. */
async function runChild(permissions: string[], args: string[]) {
  const child = startChild(permissions, args);
  const lines: string[] = [];
  for (let line; (line = await child.nextLine()) !== null;) lines.push(line);
  return { lines, ...await child.exit() };
}

/** Runs `fn` with `<dir>/bundle.json` holding numberedBundle(1), HMAC-signed with `secret`. */
async function withBundle(
  fn: (path: string, secret: string, dir: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const secret = hmacSecret();
    const path = `${dir}/bundle.json`;
    await Deno.writeTextFile(path, await signedText(numberedBundle(1), secret));
    await fn(path, secret, dir);
  });
}

/** Asserts that `stderr` holds no uncaught error or stack trace. */
function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /Uncaught|NotCapable|^\s+at /m, stderr);
}

test("the local client loads and verifies with nothing but --allow-read of the bundle file", async () => {
  await withBundle(async (path, secret) => {
    const { lines, code, stderr } = await runChild([`--allow-read=${path}`], [
      "once",
      path,
      secret,
    ]);
    assert.deepEqual(lines, ["decision rule-1 verified", "closed"], stderr);
    assert.equal(code, 0);
    assert.equal(stderr, "");
  });
});

test("the local client watches with nothing but --allow-read of the bundle file, and exits after close()", async () => {
  await withBundle(async (path, secret) => {
    const child = startChild([`--allow-read=${path}`], ["watch", path, secret]);
    assert.equal(await child.nextLine(), "ready rule-1");
    // A failed reload (garbage), then a good one, both by atomic rename, each
    // seen by the one check the child runs next (its watch is on a fake clock).
    await writeAtomic(path, "garbage");
    await child.send("check");
    assert.equal(await child.nextLine(), "onError BUNDLE_PARSE_ERROR");
    await writeAtomic(path, await signedText(numberedBundle(2), secret));
    await child.send("check");
    assert.equal(await child.nextLine(), "reloaded rule-2");
    assert.equal(await child.nextLine(), "pending 0", "close() cleared the watch timer");
    assert.equal(await child.nextLine(), "closed");
    // The process ends by itself: close() left nothing running.
    const { code, stderr } = await child.exit();
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "");
  });
});

test("a symlinked bundlePath needs read permission for the link's path only", async () => {
  await withBundle(async (path, secret, dir) => {
    const link = `${dir}/link.json`;
    await symlink(path, link);
    const { lines, code, stderr } = await runChild([`--allow-read=${link}`], [
      "once",
      link,
      secret,
    ]);
    assert.deepEqual(lines, ["decision rule-1 verified", "closed"], stderr);
    assert.equal(code, 0);
  });
});

test("without read permission the local client fails with BUNDLE_READ_ERROR, not a permission stack trace", async () => {
  await withBundle(async (path, secret, dir) => {
    for (const permissions of [[], [`--allow-read=${dir}/other.json`]]) {
      const { lines, code, stderr } = await runChild(permissions, ["once", path, secret]);
      assert.deepEqual(lines, ["error BUNDLE_READ_ERROR"], stderr);
      assert.equal(code, 2);
      assert.ok(stderr.includes(`--allow-read=${path}`), stderr);
      assertNoStack(stderr);
    }
  });
});
