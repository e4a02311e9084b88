import assert from "node:assert/strict";
import * as path from "node:path";
import { writeFileAtomic } from "../../src/commands/_atomic_write.ts";
import { readJsonDocument } from "../../src/commands/_read_document.ts";
import { scratch } from "./_helpers.ts";

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

Deno.test("writeFileAtomic() reports WRITE_ERROR when the folder is missing, unless asked to create it", async () => {
  await using s = await scratch();
  const target = path.join(s.wf, "a", "b", "c.json");
  await assert.rejects(writeFileAtomic(target, "x"), { code: "WRITE_ERROR" });
  await writeFileAtomic(target, "x", { createParents: true });
  assert.equal(await Deno.readTextFile(target), "x");
});

Deno.test("readJsonDocument() checks the size limit and gives bundle or document codes", async () => {
  await using s = await scratch();
  const file = await s.write("d.json", '{"a": 1}');
  assert.deepEqual(await readJsonDocument(file, "draft", 8), { a: 1 });
  await assert.rejects(readJsonDocument(file, "draft", 7), { code: "DOCUMENT_TOO_LARGE" });
  await assert.rejects(readJsonDocument(file, "bundle", 7), { code: "BUNDLE_TOO_LARGE" });
  await assert.rejects(readJsonDocument(s.wf, "bundle", 100), { code: "BUNDLE_READ_ERROR" });
  const bom = await s.write("bom.json", '\uFEFF{"b": 2}');
  assert.deepEqual(await readJsonDocument(bom, "suite", 100), { b: 2 });
  const bad = await s.write("bad.json", "{");
  await assert.rejects(readJsonDocument(bad, "bundle", 100), { code: "BUNDLE_PARSE_ERROR" });
});
