/**
 * The folder walker (src/io/find_files.ts) with `within`: no folder is
 * listed whose real path leads out of the folder, the one given included;
 * links to folders below are never entered either way.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { findFiles, FindFilesError } from "../../src/io/find_files.ts";
import { isInside } from "../../src/io/within_folder.ts";
import { withTempDir } from "../temp_dir.ts";
import { symlink } from "../clients/_helpers.ts";

Deno.test("findFiles within a folder lists only folders whose real path is inside", async () => {
  await withTempDir(async (dir) => {
    const wf = path.join(dir, "wf");
    await Deno.mkdir(path.join(wf, "checks", "deeper"), { recursive: true });
    await Deno.mkdir(path.join(dir, "secret"));
    await Deno.writeTextFile(path.join(wf, "checks", "a.suite.json"), "{}");
    await Deno.writeTextFile(path.join(wf, "checks", "deeper", "b.suite.json"), "{}");
    await Deno.writeTextFile(path.join(dir, "secret", "hidden.suite.json"), "{}");
    await symlink(path.join(dir, "secret"), path.join(wf, "out"));
    await symlink("checks", path.join(wf, "alias"));
    const suites = (name: string) => name.endsWith(".suite.json");
    const all = { enter: () => true, within: wf };

    // The walk of the folder itself: the linked folder is not entered.
    const found = await findFiles(wf, suites, all);
    assert.deepEqual(found.map((f) => path.relative(wf, f)), [
      "checks/a.suite.json",
      "checks/deeper/b.suite.json",
    ]);
    // A folder given through a link that stays inside is listed.
    assert.deepEqual(
      (await findFiles(path.join(wf, "alias"), suites, all)).map((f) => path.relative(wf, f)),
      ["alias/a.suite.json", "alias/deeper/b.suite.json"],
    );
    // A folder given through a link that leads out is refused before it is listed.
    const error = await findFiles(path.join(wf, "out"), suites, all).catch((e) => e);
    assert.ok(error instanceof FindFilesError);
    assert.equal(error.reason, "outside");
    assert.equal(error.folder, path.join(wf, "out"));
    assert.doesNotMatch(error.message, /hidden/);
    // So is a path that leads out with `..`, and nothing refuses it without `within`.
    const up = await findFiles(path.join(wf, "..", "secret"), suites, all).catch((e) => e);
    assert.equal((up as FindFilesError).reason, "outside");
    assert.equal((await findFiles(path.join(wf, "out"), suites, { enter: () => true })).length, 1);
  });
});

Deno.test("isInside compares whole path segments", () => {
  assert.equal(isInside("/a/wf", "/a/wf", "/"), true);
  assert.equal(isInside("/a/wf", "/a/wf/x.json", "/"), true);
  assert.equal(isInside("/a/wf", "/a/wfx/x.json", "/"), false);
  assert.equal(isInside("/a/wf", "/a/x.json", "/"), false);
  assert.equal(isInside("/", "/x.json", "/"), true);
  assert.equal(isInside("C:\\wf", "C:\\wf\\x.json", "\\"), true);
  assert.equal(isInside("C:\\wf", "C:\\wf2\\x.json", "\\"), false);
});
