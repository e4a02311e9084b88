/**
 * Writers never replace what is not a regular file: a symbolic link (to a
 * file elsewhere, to a device such as `/dev/null`, to a pipe, or dangling),
 * a named pipe or a folder at a path the CLI or a client writes is refused
 * with nothing changed (`WRITE_ERROR`, exit 2, in the CLI), where a rename
 * used to replace it with a regular file (as root, `--junit /dev/stdout`
 * replaced the system's `/dev/stdout`). New files are never more open than
 * 0644. Everything here happens under `.tmp/`: the link to `/dev/null` is
 * only ever looked at (lstat), never followed.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import * as path from "node:path";
import { symlink } from "../clients/_helpers.ts";
import { assertError, scratch } from "../cli/_helpers.ts";
import { TEST_LICENSE } from "../_license.ts";
import { writeFileAtomic } from "../../src/io/write_file_atomic.ts";
import { writeCacheFile } from "../../src/clients/_cache_file.ts";
import { SYSTEM_CLOCK } from "../../src/public/clock.ts";
import { CLI, DENO, explainIgnored, policyTaskFlags } from "../faults/_policy_process.ts";

explainIgnored("tests/hostile/writers_test.ts");
const MKFIFO = Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
const BASH = Deno.permissions.querySync({ name: "run", command: "bash" }).state === "granted";
if (!MKFIFO) console.log("tests/hostile/writers_test.ts: skipped, needs --allow-run=mkfifo");
if (!BASH) console.log("tests/hostile/writers_test.ts: the umask test needs --allow-run=bash");

async function mkfifo(file: string): Promise<void> {
  const { code } = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert.equal(code, 0, `mkfifo ${file}`);
}

/** What is at `file`, without following it: its kind and, for a link, where it points. */
function entry(file: string): string {
  const stat = Deno.lstatSync(file);
  if (stat.isSymlink) return `link -> ${Deno.readLinkSync(file)}`;
  if (stat.isDirectory) return "folder";
  if (stat.isFile) return `file ${Deno.readTextFileSync(file)}`;
  return stat.isFifo ? "fifo" : "other";
}

/**
 * Makes, in `dir`, one path of each kind a writer must refuse, and a file
 * elsewhere that a link points to. Returns the paths by name, and a
 * snapshot function of everything (which must not change).
 */
async function obstacles(dir: string): Promise<{
  paths: Record<string, string>;
  snapshot: () => Record<string, string>;
}> {
  const elsewhere = path.join(dir, "elsewhere");
  await Deno.mkdir(elsewhere);
  const precious = path.join(elsewhere, "precious.json");
  await Deno.writeTextFile(precious, "precious");
  const fifo = path.join(elsewhere, "pipe");
  await mkfifo(fifo);
  const at = path.join(dir, "at");
  await Deno.mkdir(at);
  const paths: Record<string, string> = {
    "link to a file elsewhere": path.join(at, "link-to-file"),
    "link to /dev/null": path.join(at, "link-to-dev-null"),
    "link to a named pipe": path.join(at, "link-to-pipe"),
    "dangling link": path.join(at, "dangling"),
    "named pipe": path.join(at, "pipe"),
    "folder": path.join(at, "folder"),
  };
  await symlink(precious, paths["link to a file elsewhere"]!);
  await symlink("/dev/null", paths["link to /dev/null"]!);
  await symlink(fifo, paths["link to a named pipe"]!);
  await symlink(path.join(elsewhere, "missing"), paths["dangling link"]!);
  await mkfifo(paths["named pipe"]!);
  await Deno.mkdir(paths["folder"]!);
  const snapshot = () => {
    const all: Record<string, string> = {};
    for (const folder of [at, elsewhere]) {
      for (const { name } of Deno.readDirSync(folder)) {
        all[path.join(folder, name)] = entry(path.join(folder, name));
      }
    }
    return all;
  };
  return { paths, snapshot };
}

Deno.test({
  name:
    "writeFileAtomic() refuses a symlink (to a file, to /dev/null, to a pipe, dangling), a named pipe and a folder, changing nothing",
  ignore: !MKFIFO,
  fn: async () => {
    const { dir, remove } = await makeTempDir("writers-");
    try {
      const { paths, snapshot } = await obstacles(dir);
      const before = snapshot();
      for (const [kind, target] of Object.entries(paths)) {
        for (const overwrite of [true, false]) {
          const error = await writeFileAtomic(target, "new", { overwrite }).then(
            () => assert.fail(`${kind}: written (overwrite ${overwrite})`),
            (error: Error & { code?: string }) => error,
          );
          if (overwrite) {
            assert.equal(error.code, "ENOTREG", `${kind}: ${error}`);
            assert.match(error.message, /not a regular file; it was not replaced/, kind);
          } else {
            assert.equal(error.code, "EEXIST", `${kind}: ${error}`);
          }
        }
        await assert.rejects(
          writeCacheFile(target, new TextEncoder().encode("{}"), SYSTEM_CLOCK),
          (error: Error & { code?: string }) => {
            assert.equal(error.code, "CACHE_WRITE_ERROR", kind);
            assert.match(error.message, /not a regular file/, kind);
            return true;
          },
        );
      }
      // Nothing changed, and no temporary file was left.
      assert.deepEqual(snapshot(), before);
    } finally {
      await remove();
    }
  },
});

Deno.test({
  name:
    "policy refuses to write the JUnit report, the bundle, bundle.path, the user config, the licence or keys over what is not a regular file (exit 2)",
  ignore: !MKFIFO,
  fn: async () => {
    await using s = await scratch();
    const { paths, snapshot } = await obstacles(s.root);
    const before = snapshot();
    await s.fixture("draft.json", "policy-drafts.json");
    await s.fixture("suite.json");
    assert.equal((await s.run(["build"])).code, 0);
    const built = await s.read("policy-bundle.json");
    for (const [kind, target] of Object.entries(paths)) {
      const junit = await s.run(["simulate", "--suite", "suite.json", "--junit", target]);
      assertError(junit, 2, "WRITE_ERROR");
      assert.match(junit.stderr, new RegExp(`cannot write ${target}: it is a `), kind);

      // The private key, never replaced by anything.
      const keys = path.join(s.root, `keys-${kind.replaceAll(/\W/g, "-")}`);
      await Deno.mkdir(keys);
      await symlink(target, path.join(keys, "private-key.pem"));
      assertError(
        await s.run(["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", keys]),
        1,
        "KEY_EXISTS",
      );
    }
    // The bundle, and bundle.path as the project file names it: links to a copy of the bundle
    // elsewhere (the build reads through them, then may not replace them).
    const copy = path.join(s.root, "bundle-elsewhere.json");
    await Deno.writeTextFile(copy, built);
    const bundle = path.join(s.wf, "policy-bundle.json");
    await Deno.remove(bundle);
    await symlink(copy, bundle);
    await symlink(copy, path.join(s.wf, "configured.json"));
    for (const config of [null, { bundle: { path: "configured.json" } }]) {
      if (config !== null) await s.write("policy.config.json", config);
      const build = await s.run(["build"]);
      assertError(build, 2, "WRITE_ERROR");
      assert.match(build.stderr, /is a symbolic link \(to ".*"\), not a regular file/);
    }
    assert.equal(entry(bundle), `link -> ${copy}`);
    assert.equal(entry(path.join(s.wf, "configured.json")), `link -> ${copy}`);
    assert.equal(await Deno.readTextFile(copy), built);
    // The user config and the stored licence in POLICY_HOME.
    await Deno.mkdir(s.home, { recursive: true });
    await symlink(paths["link to /dev/null"]!, path.join(s.home, "license.json"));
    await s.write("licence.json", TEST_LICENSE);
    assertError(
      await s.run(["activate", "--license-file", "licence.json"], { env: { POLICY_LICENSE: "" } }),
      2,
      "WRITE_ERROR",
    );
    const config = path.join(s.root, "config-elsewhere.json");
    await Deno.writeTextFile(config, "{}\n");
    await symlink(config, path.join(s.home, "config.json"));
    assertError(await s.run(["working-folder", "set", s.wf]), 2, "WRITE_ERROR");
    assert.equal(await Deno.readTextFile(config), "{}\n");
    assert.deepEqual(snapshot(), before);
  },
});

Deno.test({
  name: "a new file is created 0644 less the umask: 0600 under umask 077, never 0666",
  ignore: DENO === null || !BASH,
  fn: async () => {
    await using s = await scratch();
    await s.fixture("draft.json", "policy-drafts.json");
    await s.fixture("suite.json");
    assert.equal((await s.run(["build"])).code, 0);
    const junit = await s.run(["simulate", "--suite", "suite.json", "--junit", "open.xml"]);
    assert.equal(junit.code, 0, junit.stderr);
    const mode = (await Deno.stat(path.join(s.wf, "open.xml"))).mode! & 0o777;
    assert.equal(mode & ~0o644, 0, `at most 0644, found 0${mode.toString(8)}`);
    const child = await new Deno.Command("bash", {
      args: [
        "-c",
        'umask 077 && exec "$@"',
        "bash",
        DENO!,
        "run",
        ...policyTaskFlags(),
        CLI,
        "simulate",
        "--suite",
        "suite.json",
        "--junit",
        "private.xml",
      ],
      cwd: s.wf,
      env: { NO_COLOR: "1", POLICY_HOME: s.home, POLICY_LICENSE: TEST_LICENSE },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
    assert.equal((await Deno.stat(path.join(s.wf, "private.xml"))).mode! & 0o777, 0o600);
  },
});
