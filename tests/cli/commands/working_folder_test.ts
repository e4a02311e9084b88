import assert from "node:assert/strict";
import * as path from "node:path";
import { assertError, assertShape, scratch } from "../_helpers.ts";
import { schemaUrl } from "../../../src/cli/kit/schema.ts";

const SHAPE = {
  formatVersion: "number",
  action: "string",
  workingFolder: "string",
  source: "string",
  exists: "boolean",
  userConfig: "string|null",
  draftPath: "string|null",
  warnings: "array",
};

Deno.test("working-folder resolves flag, then POLICY_WORKING_FOLDER, then the persisted folder, then cwd", async () => {
  await using s = await scratch();
  const a = path.join(s.root, "a");
  const b = path.join(s.root, "b");
  const c = path.join(s.root, "c");
  for (const d of [a, b, c]) await Deno.mkdir(d);
  assert.equal((await s.run(["working-folder", "set", c])).code, 0);

  const env = { POLICY_WORKING_FOLDER: b };
  let r = await s.json(["working-folder", "-w", a], { env });
  assert.deepEqual([r.doc.workingFolder, r.doc.source], [a, "flag"]);
  r = await s.json(["working-folder"], { env });
  assert.deepEqual([r.doc.workingFolder, r.doc.source], [b, "env"]);
  r = await s.json(["working-folder"]);
  assert.deepEqual([r.doc.workingFolder, r.doc.source], [c, "user-config"]);
  assert.equal((await s.run(["working-folder", "reset"])).code, 0);
  r = await s.json(["working-folder"]);
  assert.deepEqual([r.doc.workingFolder, r.doc.source], [s.wf, "cwd"]);
  assertShape(r.doc, SHAPE);
  assert.equal(r.doc.action, "show");
  assert.equal(r.doc.exists, true);
});

Deno.test("working-folder resolves relative flag and env values from the current folder", async () => {
  await using s = await scratch();
  let r = await s.json(["working-folder", "-w", "sub"], { cwd: s.root });
  assert.equal(r.doc.workingFolder, path.join(s.root, "sub"));
  assert.equal(r.doc.exists, false);
  r = await s.json(["working-folder"], { cwd: s.root, env: { POLICY_WORKING_FOLDER: "wf" } });
  assert.equal(r.doc.workingFolder, s.wf);
});

Deno.test("working-folder set persists an absolute path in $POLICY_HOME/config.json, reset removes it", async () => {
  await using s = await scratch();
  const r = await s.json(["working-folder", "set", "wf"], { cwd: s.root });
  assert.equal(r.code, 0);
  assertShape(r.doc, SHAPE);
  assert.equal(r.doc.action, "set");
  assert.equal(r.doc.userConfig, path.join(s.home, "config.json"));
  const saved = JSON.parse(await Deno.readTextFile(path.join(s.home, "config.json")));
  assert.deepEqual(saved, { schemaVersion: 1, workingFolder: s.wf });
  const reset = await s.json(["working-folder", "reset"], { cwd: s.root });
  assert.equal(reset.doc.source, "cwd");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path.join(s.home, "config.json"))), {
    schemaVersion: 1,
  });
});

Deno.test("working-folder set refuses a folder that does not exist", async () => {
  await using s = await scratch();
  assertError(await s.run(["working-folder", "set", "nope"]), 2, "WORKING_FOLDER_NOT_FOUND");
});

Deno.test("working-folder set warns when POLICY_WORKING_FOLDER overrides the persisted folder", async () => {
  await using s = await scratch();
  const r = await s.run(["working-folder", "set", s.wf], {
    env: { POLICY_WORKING_FOLDER: s.root },
  });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /WORKING_FOLDER_OVERRIDDEN/);
});

Deno.test("working-folder init creates an empty draft and refuses to overwrite it", async () => {
  await using s = await scratch();
  const r = await s.json(["working-folder", "init"]);
  assert.equal(r.code, 0);
  assertShape(r.doc, SHAPE);
  assert.equal(r.doc.draftPath, path.join(s.wf, "policy-drafts.json"));
  assert.deepEqual(await s.readJson("policy-drafts.json"), {
    $schema: schemaUrl("draft"),
    schemaVersion: "1.0",
    generatedAt: "2026-11-21T09:30:00.000Z",
    policies: [],
  });
  const again = await s.json(["working-folder", "init"]);
  assertError(again, 2, "DRAFT_EXISTS");
  assert.equal((again.doc.error as { code: string }).code, "DRAFT_EXISTS");
});

Deno.test("working-folder init writes draft.path from the config and creates a missing working folder", async () => {
  await using s = await scratch();
  const wf = path.join(s.root, "new");
  await Deno.mkdir(wf);
  await Deno.writeTextFile(
    path.join(wf, "policy.config.json"),
    '{"draft": {"path": "drafts/d.json"}}',
  );
  assert.equal((await s.run(["working-folder", "init", "-w", wf])).code, 0);
  assert.ok((await Deno.stat(path.join(wf, "drafts/d.json"))).isFile);
  const fresh = path.join(s.root, "fresh");
  assert.equal((await s.run(["working-folder", "init", "-w", fresh])).code, 0);
  assert.ok((await Deno.stat(path.join(fresh, "policy-drafts.json"))).isFile);
});

Deno.test("commands refuse a working folder that does not exist", async () => {
  await using s = await scratch();
  const r = await s.run(["validate", "-w", path.join(s.root, "missing")]);
  assertError(r, 2, "WORKING_FOLDER_NOT_FOUND");
});

Deno.test("--verbose names the working folder, its source and the config in use on stderr", async () => {
  await using s = await scratch();
  await s.run(["working-folder", "init"]);
  const r = await s.run(["validate", "--verbose"], { env: { POLICY_WORKING_FOLDER: s.wf } });
  assert.equal(r.code, 0);
  assert.match(
    r.stderr,
    new RegExp(`verbose: working folder: ${s.wf} \\(from POLICY_WORKING_FOLDER\\)`),
  );
  assert.match(r.stderr, /verbose: config: none/);
  assert.match(r.stderr, /verbose: read .*policy-drafts.json \(draft\)/);
  assert.match(r.stderr, /verbose: type: draft \(draft\.path\)/);
});

Deno.test("a damaged $POLICY_HOME/config.json stops only what uses it, and reset or set start it over", async () => {
  await using s = await scratch();
  await Deno.mkdir(s.home, { recursive: true });
  const userConfig = path.join(s.home, "config.json");
  await Deno.writeTextFile(userConfig, '{"workingFolder": "/x", oops}');
  assert.equal((await s.run(["working-folder", "init", "-w", s.wf])).code, 0);
  // With -w (or POLICY_WORKING_FOLDER) the user file is not needed.
  assert.equal((await s.run(["validate", "-w", s.wf])).code, 0);
  const shown = await s.run(["working-folder"]);
  assertError(shown, 2, "CONFIG_INVALID");
  assert.match(shown.stderr, /hint: .*'policy working-folder reset'/);
  const reset = await s.json(["working-folder", "reset"]);
  assert.equal(reset.code, 0, reset.stderr);
  assert.deepEqual((reset.doc.warnings as { code: string }[]).map((w) => w.code), [
    "USER_CONFIG_REPLACED",
  ]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(userConfig)), { schemaVersion: 1 });
  const kept = [...Deno.readDirSync(s.home)].map((e) => e.name).filter((n) =>
    n.startsWith("config.json.damaged-")
  );
  assert.equal(kept.length, 1, "the damaged file is kept beside it");
  assert.equal(
    await Deno.readTextFile(path.join(s.home, kept[0]!)),
    '{"workingFolder": "/x", oops}',
  );
  assert.equal((await s.run(["working-folder"])).code, 0);
  // set works on a damaged file too.
  await Deno.writeTextFile(userConfig, "[]");
  const set = await s.json(["working-folder", "set", s.wf]);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(JSON.parse(await Deno.readTextFile(userConfig)).workingFolder, s.wf);
});

Deno.test("a workingFolder that is not a path in $POLICY_HOME/config.json is CONFIG_INVALID, not ignored", async () => {
  await using s = await scratch();
  await Deno.mkdir(s.home, { recursive: true });
  await Deno.writeTextFile(path.join(s.home, "config.json"), '{"workingFolder": 5}');
  const r = await s.run(["validate"]);
  assertError(r, 2, "CONFIG_INVALID");
  assert.match(r.stderr, /workingFolder must be a non-empty string/);
});
