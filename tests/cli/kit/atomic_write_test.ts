import assert from "node:assert/strict";
import * as path from "node:path";
import { STALE_TEMPORARY_MS, writeFileAtomic } from "../../../src/cli/kit/atomic_write.ts";
import { exists, readJsonDocument } from "../../../src/cli/kit/read_document.ts";
import { scratch } from "../_helpers.ts";
import { nodeFileLayer } from "../../../src/io/node_file_layer.ts";
import { denoFileLayer } from "../../../src/io/deno_file_layer.ts";
import { FakeClock } from "../../_fake_clock.ts";

Deno.test("writeFileAtomic() replaces a file through a temporary file and leaves nothing else", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "doc.json");
  await writeFileAtomic(target, "one");
  await writeFileAtomic(target, "two");
  assert.equal(await Deno.readTextFile(target), "two");
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name), ["doc.json"]);
});

Deno.test("writeFileAtomic() with overwrite false refuses an existing file and keeps it", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "key.pem");
  await writeFileAtomic(target, "original", { mode: 0o600, overwrite: false });
  await assert.rejects(
    writeFileAtomic(target, "new", { overwrite: false, onExists: () => new Error("exists") }),
    { message: "exists" },
  );
  assert.equal(await Deno.readTextFile(target), "original");
  if (Deno.build.os !== "windows") assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
  assert.deepEqual([...Deno.readDirSync(s.wf)].map((e) => e.name), ["key.pem"]);
});

Deno.test(
  "writeFileAtomic() keeps the mode of the file it replaces; a new file gets 0644, and mode wins",
  {
    ignore: Deno.build.os === "windows",
  },
  async () => {
    await using s = await scratch();
    const target = path.join(s.wf, "draft.json");
    await writeFileAtomic(target, "one");
    assert.equal((await Deno.stat(target)).mode! & 0o777, 0o644);
    await Deno.chmod(target, 0o600);
    await writeFileAtomic(target, "two");
    assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600, "a 0600 draft stays 0600");
    await writeFileAtomic(target, "three", { mode: 0o640 });
    assert.equal((await Deno.stat(target)).mode! & 0o777, 0o640);
  },
);

/** Root, told by the owner of a file this process creates (reading the uid needs --allow-sys). */
const isRoot = Deno.build.os !== "windows" && await (async () => {
  await using s = await scratch();
  return (await Deno.stat(await s.write("probe", ""))).uid === 0;
})();
Deno.test({
  name: "writeFileAtomic() keeps the owner and group of the file it replaces (as root)",
  ignore: !isRoot,
  fn: async () => {
    await using s = await scratch();
    const target = path.join(s.wf, "bundle.json");
    await writeFileAtomic(target, "one");
    await Deno.chown(target, 4321, 4322);
    await writeFileAtomic(target, "two");
    const stat = await Deno.stat(target);
    assert.deepEqual([stat.uid, stat.gid], [4321, 4322]);
    assert.equal(await Deno.readTextFile(target), "two");
  },
});
if (!isRoot) {
  console.log("atomic_write_test: the owner test needs root (only root can give a file away)");
}

Deno.test("writeFileAtomic() reports WRITE_ERROR when the folder is missing, unless asked to create it", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "a", "b", "c.json");
  await assert.rejects(writeFileAtomic(target, "x"), { code: "WRITE_ERROR" });
  await writeFileAtomic(target, "x", { createParents: true });
  assert.equal(await Deno.readTextFile(target), "x");
});

for (
  const [name, layer] of [
    ["node:fs", () => nodeFileLayer()],
    ["Deno.*", () => Promise.resolve(denoFileLayer()!)],
  ] as const
) {
  Deno.test(`readJsonDocument() on the ${name} file layer checks the size limit and gives bundle or document codes`, async () => {
    const files = await layer();
    await using s = await scratch();
    const file = await s.write("d.json", '{"a": 1}');
    assert.deepEqual((await readJsonDocument(files, file, "draft", 8)).value, { a: 1 });
    await assert.rejects(readJsonDocument(files, file, "draft", 7), { code: "DOCUMENT_TOO_LARGE" });
    await assert.rejects(readJsonDocument(files, file, "bundle", 7), { code: "BUNDLE_TOO_LARGE" });
    await assert.rejects(readJsonDocument(files, s.wf, "bundle", 100), {
      code: "BUNDLE_READ_ERROR",
    });
    const bom = await s.write("bom.json", '\uFEFF{"b": 2}');
    assert.deepEqual((await readJsonDocument(files, bom, "suite", 100)).value, { b: 2 });
    const bad = await s.write("bad.json", "{");
    await assert.rejects(readJsonDocument(files, bad, "bundle", 100), {
      code: "BUNDLE_PARSE_ERROR",
    });
  });
}

Deno.test("writeFileAtomic() removes the target's temporary files left by killed writers (over a minute old), and nothing else", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "policy-bundle.json");
  const old = new Date(Date.now() - STALE_TEMPORARY_MS - 5_000);
  const names = {
    stale: ".policy-bundle.json.0123456789ab.tmp",
    staleOther: ".policy-drafts.json.0123456789ab.tmp", // another target's: its own writes clean it
    fresh: ".policy-bundle.json.ba9876543210.tmp", // a writer that may still be running
    lookalike: ".policy-bundle.json.tmp",
    user: "policy-bundle.json.0123456789ab.tmp",
  };
  for (const name of Object.values(names)) {
    await Deno.writeTextFile(path.join(s.wf, name), "partial");
    if (name !== names.fresh) await Deno.utime(path.join(s.wf, name), old, old);
  }
  await writeFileAtomic(target, "{}");
  const left = [...Deno.readDirSync(s.wf)].map((e) => e.name).sort();
  assert.deepEqual(
    left,
    ["policy-bundle.json", ...Object.values(names).filter((n) => n !== names.stale)].sort(),
  );
  // Also when the file is created with overwrite false.
  const key = path.join(s.wf, "key.pem");
  await Deno.writeTextFile(path.join(s.wf, ".key.pem.aaaaaaaaaaaa.tmp"), "partial");
  await Deno.utime(path.join(s.wf, ".key.pem.aaaaaaaaaaaa.tmp"), old, old);
  await writeFileAtomic(key, "k", { overwrite: false, mode: 0o600 });
  assert.ok(!(await exists(await nodeFileLayer(), path.join(s.wf, ".key.pem.aaaaaaaaaaaa.tmp"))));
});

Deno.test("writeFileAtomic()'s sweep measures a temporary file's age against the injected clock's wallNow()", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "policy-bundle.json");
  const temporary = path.join(s.wf, ".policy-bundle.json.0123456789ab.tmp");
  await Deno.writeTextFile(temporary, "partial");
  // Just written: young on the system clock, old on a clock a minute and a second ahead.
  const now = Date.now();
  const clock = new FakeClock({ wallNow: now });
  await writeFileAtomic(target, "{}", { clock });
  assert.ok((await Deno.stat(temporary)).isFile, "young: kept");
  clock.stepWall(STALE_TEMPORARY_MS + 1_000);
  await writeFileAtomic(target, "{}", { clock });
  await assert.rejects(Deno.stat(temporary), Deno.errors.NotFound);
});
