// `policy playground`: in-process with the fake clock (what it serves and pushes, and that it
// never writes), and as the repository runs it (`deno task policy`: the task's permissions, the
// page built by `deno task playground:build`, which the test task runs first).
import assert from "node:assert/strict";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, runCli } from "../../_exports.ts";
import { assertShape, scratch } from "../../_helpers.ts";
import { FakeClock } from "../../../_fake_clock.ts";
import { stateEvents } from "../../_event_stream.ts";
import { servedPage } from "../../../../src/cli/commands/playground/playground_server.ts";
import { cliEnv, DENO, explainIgnored, policyTaskFlags } from "../../../faults/_policy_process.ts";
import { symlink } from "../../../clients/_helpers.ts";

explainIgnored("playground_test");

const POLICY_TASK = fileURLToPath(new URL("../../../../tools/policy.ts", import.meta.url));
const PAGE_MODULE = new URL("../../../../dist/playground/page.js", import.meta.url);
const loadPage = () => import(PAGE_MODULE.href) as Promise<{ html: string; csp: string }>;
const examples = (name: string) =>
  Deno.readTextFile(new URL(`../../../../examples/${name}`, import.meta.url));

/** `policy playground …` running in-process until `stop()`; resolves `started` with its JSON. */
function playground(
  run: (
    args: string[],
    options: { command: (a: string[], io: CliIo) => Promise<number> },
  ) => Promise<
    { code: number; stdout: string; stderr: string }
  >,
  args: string[],
  extra: Partial<CliIo> = {},
) {
  const controller = new AbortController();
  const clock = new FakeClock();
  let resolveStarted: (doc: Record<string, unknown>) => void;
  const started = new Promise<Record<string, unknown>>((resolve) => resolveStarted = resolve);
  let out = "";
  const finished = run(["playground", "--port", "0", "--format", "json", ...args], {
    command: (a, io) =>
      runCli(a, {
        ...io,
        stdout: (text) => {
          io.stdout(text);
          out += text;
          try {
            resolveStarted(JSON.parse(out));
          } catch {
            // Not the whole document yet.
          }
        },
        signal: controller.signal,
        clock,
        playgroundPage: loadPage,
        ...extra,
      }),
  });
  return { started, finished, clock, stop: () => controller.abort() };
}

/** Every file under `dir` with its bytes and modification time. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory) await walk(file);
      else {
        const stat = await Deno.stat(file);
        files.set(file, `${stat.mtime?.getTime()} ${await Deno.readTextFile(file)}`);
      }
    }
  };
  await walk(dir);
  return files;
}

Deno.test("policy playground serves the page preloaded with the draft and the suites, pushes changes, and never writes", async () => {
  await using s = await scratch();
  const draft = await s.write(
    "policy-drafts.json",
    await examples("playground/billing-draft.json"),
  );
  const suite = await s.write("policy/suite.json", await examples("service/policy/suite.json"));
  await s.write("tests/more.suite.json", '{"name": "more", "scenarios": []}');
  await s.write("node_modules/x/suite.json", "{}"); // never searched
  await s.write(".cache/suite.json", "{}"); // hidden folders are not searched
  await s.write("dist/suite.json", "{}"); // nor build output
  await s.write("notes.json", "{}"); // not named like a suite
  const before = await snapshot(s.root);
  const { started, finished, clock, stop } = playground(s.run, []);
  const doc = await started;
  assertShape(doc, {
    formatVersion: "number",
    url: "string",
    port: "number",
    workingFolder: "string",
    document: "string",
    suites: "array",
    warnings: "array",
  });
  assert.equal(doc.document, draft);
  assert.deepEqual(doc.suites, [suite, path.join(s.wf, "tests", "more.suite.json")]);
  assert.equal(doc.url, `http://127.0.0.1:${doc.port}/`);

  const page = await fetch(doc.url as string);
  assert.equal(await page.text(), servedPage(await loadPage()).html);
  const stream = stateEvents((await fetch(new URL("/events", doc.url as string))).body!);
  try {
    const first = await stream.next();
    assert.equal(first.workingFolder, s.wf);
    assert.equal(first.document?.text, await Deno.readTextFile(draft));
    assert.equal(first.document?.relativePath, "policy-drafts.json");
    assert.deepEqual(first.suites.map((x) => x.relativePath), [
      "policy/suite.json",
      "tests/more.suite.json",
    ]);
    // Editing the draft (as an editor or another command would) is pushed on the next poll.
    const edited = (await Deno.readTextFile(draft)).replace('"priority": 20', '"priority": 25');
    await Deno.writeTextFile(draft, edited);
    clock.tick(1000);
    const next = await stream.next();
    assert.equal(next.document?.text, edited);
    // A draft that goes away: the bundle is followed instead when there is one, else nothing.
    await Deno.remove(draft);
    clock.tick(1000);
    assert.equal((await stream.next()).document, null);
    const bundle = await s.write("policy-bundle.json", await examples("bundle.json"));
    clock.tick(1000);
    assert.equal((await stream.next()).document?.path, bundle);
    await Deno.remove(bundle);
    await Deno.writeTextFile(draft, edited);
  } finally {
    await stream.cancel();
  }
  stop();
  const result = await finished;
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(clock.pendingDelays(), [], "no timer left");
  // Nothing was written: no lock file, no change but the test's own.
  const after = await snapshot(s.root);
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
  for (const [file, content] of before) {
    if (file !== draft) assert.equal(after.get(file), content, file);
  }
});

Deno.test("policy playground <file> --suite <folder> --suite <file> follows that file and those suites", async () => {
  await using s = await scratch();
  const bundle = await s.write("release/bundle.json", await examples("bundle.json"));
  await s.write("policy-drafts.json", await examples("playground/billing-draft.json"));
  const one = await s.write("checks/one.suite.json", '{"name": "one", "scenarios": []}');
  const two = await s.write("checks/deeper/two.suite.json", '{"name": "two", "scenarios": []}');
  await s.write("checks/notes.json", "{}"); // not a *.suite.json
  const three = await s.write("three.suite.json", '{"name": "three", "scenarios": []}');
  await s.write("suite.json", "{}"); // not followed: --suite names what is
  const { started, finished, stop } = playground(s.run, [
    "release/bundle.json",
    "--suite",
    "checks",
    "--suite",
    "three.suite.json",
  ]);
  const doc = await started;
  assert.equal(doc.document, bundle);
  // In the order simulate --suite takes them: by path below the folder, then the file named.
  assert.deepEqual(doc.suites, [two, one, three]);
  stop();
  assert.equal((await finished).code, 0);
});

Deno.test("policy playground serves and watches only files whose real path is inside the working folder", async () => {
  await using s = await scratch();
  // Outside the working folder: what a symlink in a cloned repository could point at.
  const secret = path.join(s.root, "secret");
  await Deno.mkdir(secret);
  await Deno.writeTextFile(path.join(secret, "id_ed25519"), "SECRET private key");
  await Deno.writeTextFile(
    path.join(secret, "other.suite.json"),
    '{"name": "SECRET suite", "scenarios": []}',
  );
  // Inside: the draft is a symlink to a file inside (served), and so is one suite.
  const draft = await s.write(
    "drafts/billing.json",
    await examples("playground/billing-draft.json"),
  );
  await symlink(draft, path.join(s.wf, "policy-drafts.json"));
  const real = await s.write("tests/real.suite.json", '{"name": "real", "scenarios": []}');
  await symlink(real, path.join(s.wf, "alias.suite.json"));
  // Leading out: a suite linked to any file, one linked to a suite outside, one in a subfolder
  // linked through `..`, and a folder linked outside (never entered).
  await symlink(path.join(secret, "id_ed25519"), path.join(s.wf, "leak.suite.json"));
  await Deno.mkdir(path.join(s.wf, "policy"));
  await symlink("../../secret/other.suite.json", path.join(s.wf, "policy", "deep.suite.json"));
  await symlink(secret, path.join(s.wf, "linked"));

  const { started, finished, clock, stop } = playground(s.run, []);
  const doc = await started;
  assert.doesNotMatch(JSON.stringify(doc), /SECRET/);
  const stream = stateEvents((await fetch(new URL("/events", doc.url as string))).body!);
  try {
    const first = await stream.next();
    assert.doesNotMatch(JSON.stringify(first), /SECRET/);
    assert.equal(first.document?.text, await Deno.readTextFile(draft));
    const byPath = Object.fromEntries(first.suites.map((f) => [f.relativePath, f]));
    assert.deepEqual(Object.keys(byPath).sort(), [
      "alias.suite.json",
      "leak.suite.json",
      "policy/deep.suite.json",
      "tests/real.suite.json",
    ]);
    assert.equal(byPath["alias.suite.json"]!.text, '{"name": "real", "scenarios": []}');
    for (const leaking of ["leak.suite.json", "policy/deep.suite.json"]) {
      assert.equal(byPath[leaking]!.text, null, leaking);
      assert.equal(byPath[leaking]!.error?.code, "DOCUMENT_READ_ERROR", leaking);
      assert.match(byPath[leaking]!.error!.message, /outside the working folder/, leaking);
    }
    // Watched too: a file replaced by a symlink leading out is refused on the next poll.
    await Deno.remove(real);
    await symlink(path.join(secret, "id_ed25519"), real);
    clock.tick(1000);
    const next = await stream.next();
    assert.doesNotMatch(JSON.stringify(next), /SECRET/);
    const replaced = next.suites.find((f) => f.relativePath === "tests/real.suite.json")!;
    assert.equal(replaced.text, null);
    assert.match(replaced.error!.message, /outside the working folder/);
  } finally {
    await stream.cancel();
  }
  stop();
  assert.equal((await finished).code, 0);
});

Deno.test("policy playground refuses a document or --suite folder named through a symlink leading out", async () => {
  await using s = await scratch();
  const secret = path.join(s.root, "secret");
  await Deno.mkdir(secret);
  await Deno.writeTextFile(path.join(secret, "bundle.json"), await examples("bundle.json"));
  await Deno.writeTextFile(
    path.join(secret, "x.suite.json"),
    '{"name": "SECRET suite", "scenarios": []}',
  );
  await symlink(secret, path.join(s.wf, "linked"));
  await s.write("policy-drafts.json", await examples("playground/billing-draft.json"));

  // The document named through the linked folder: followed, never read.
  const named = playground(s.run, ["linked/bundle.json"]);
  const doc = await named.started;
  const stream = stateEvents((await fetch(new URL("/events", doc.url as string))).body!);
  try {
    const first = await stream.next();
    assert.equal(first.document?.text, null);
    assert.equal(first.document?.error?.code, "DOCUMENT_READ_ERROR");
    assert.match(first.document!.error!.message, /outside the working folder/);
  } finally {
    await stream.cancel();
  }
  named.stop();
  assert.equal((await named.finished).code, 0);

  // A --suite folder that leads out: not even its file names are listed.
  const r = await s.json(["playground", "--port", "0", "--suite", "linked"], {
    command: (a, io) => runCli(a, { ...io, playgroundPage: loadPage }),
  });
  assert.equal(r.code, 2);
  assert.equal((r.doc.error as { code: string }).code, "DOCUMENT_READ_ERROR");
  assert.match((r.doc.error as { message: string }).message, /outside the working folder/);
  assert.doesNotMatch(r.stdout + r.stderr, /SECRET|x\.suite\.json/);
});

Deno.test("policy playground refuses a bad --port, a taken port, and starts nothing without its page", async () => {
  await using s = await scratch();
  for (const port of ["-1", "65536", "http", "1.5", ""]) {
    const r = await s.json(["playground", "--port", port]);
    assert.equal(r.code, 2, port);
    assert.equal((r.doc.error as { code: string }).code, "USAGE_ERROR");
  }
  const without = await s.json(["playground", "--port", "0"]);
  assert.equal(without.code, 2);
  assert.equal((without.doc.error as { code: string }).code, "PLAYGROUND_UNAVAILABLE");
  assert.match(without.stderr, /deno task playground:build/);

  const broken = await s.json(["playground", "--port", "0"], {
    command: (a, io) =>
      runCli(a, { ...io, playgroundPage: () => Promise.reject(new Error("Module not found")) }),
  });
  assert.equal(broken.code, 2);
  assert.match((broken.doc.error as { message: string }).message, /not built \(Module not found\)/);

  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const r = await s.json(["playground", "--port", String(taken.addr.port)], {
      command: (a, io) => runCli(a, { ...io, playgroundPage: loadPage }),
    });
    assert.equal(r.code, 2);
    assert.equal((r.doc.error as { code: string }).code, "PLAYGROUND_UNAVAILABLE");
    assert.match((r.doc.error as { message: string }).message, /port \d+ is in use/);
  } finally {
    taken.close();
  }
});

Deno.test({
  name:
    "deno task policy playground serves the built page with the task's permissions, and --open runs xdg-open with the address",
  ignore: DENO === null,
  async fn() {
    await using s = await scratch();
    await s.write("policy-drafts.json", await examples("playground/billing-draft.json"));
    // A stand-in for the system's opener, first on PATH: it records what it was asked to open.
    const bin = path.join(s.root, "bin");
    await Deno.mkdir(bin);
    const opened = path.join(s.root, "opened.txt");
    await Deno.writeTextFile(path.join(bin, "xdg-open"), `#!/bin/sh\necho "$@" > '${opened}'\n`);
    await Deno.chmod(path.join(bin, "xdg-open"), 0o755);
    await Deno.writeTextFile(path.join(bin, "open"), `#!/bin/sh\necho "$@" > '${opened}'\n`);
    await Deno.chmod(path.join(bin, "open"), 0o755);
    // bash puts the stand-in first on PATH, then runs what `deno task policy` runs:
    // `deno run <policy task flags> tools/policy.ts …`, cli.ts bundled (tools/cli_bundle.ts), which
    // loads the page from where the build writes it, not from beside the bundle.
    const child = new Deno.Command("bash", {
      args: [
        "-c",
        'PATH="$1:$PATH" exec "$2" "${@:3}"',
        "bash",
        bin,
        DENO!,
        "run",
        ...policyTaskFlags(),
        POLICY_TASK,
        ...["-w", s.wf, "playground", "--port", "0", "--open", "--format", "json"],
      ],
      cwd: s.wf,
      env: cliEnv(s.home),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      let doc: { url: string } | null = null;
      while (doc === null) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`policy playground ended:\n${out}`);
        out += value;
        try {
          doc = JSON.parse(out);
        } catch {
          // Not the whole document yet.
        }
      }
      await reader.cancel();
      const page = await fetch(doc.url);
      assert.equal(page.status, 200);
      assert.equal(await page.text(), servedPage(await loadPage()).html);
      // The opener runs detached: wait for what it recorded.
      let recorded: string | null = null;
      for (let waited = 0; recorded === null; waited++) {
        recorded = await Deno.readTextFile(opened).catch(() => null);
        if (recorded !== null) break;
        assert.ok(waited < 1500, `the opener did not run; stdout:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(recorded.trim(), doc.url);
      assert.deepEqual((doc as { warnings?: unknown }).warnings, []);
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await child.stderr.cancel();
    }
  },
});
