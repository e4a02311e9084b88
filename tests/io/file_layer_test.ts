/**
 * The CLI's two file layers (`node:fs` and `Deno.*`, src/io/file_layer.ts)
 * on the same cases: a regular file is read (directly and through a
 * symlink); a named pipe, a device, a folder, a missing file and a file
 * over the limit are refused with the same reason, at once (a pipe with no
 * writer never holds the read); `kind`, `exists`, `list` and `version`
 * agree; with `within`, only files whose real path is inside the folder are
 * read. Named pipes need `--allow-run=mkfifo`.
 */
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import * as path from "node:path";
import type { FileLayer } from "../../src/io/file_layer.ts";
import { nodeFileLayer } from "../../src/io/node_file_layer.ts";
import { denoFileLayer } from "../../src/io/deno_file_layer.ts";
import { ReadFailure, type ReadOptions } from "../../src/io/read_regular_file.ts";
import { symlink } from "../clients/_helpers.ts";

const MKFIFO = Deno.permissions.querySync({ name: "run", command: "mkfifo" }).state === "granted";
if (!MKFIFO) console.log("file_layer_test: named pipe cases skipped, needs --allow-run=mkfifo");

const LAYERS: [string, () => Promise<FileLayer>][] = [
  ["node", nodeFileLayer],
  ["deno", () => Promise.resolve(denoFileLayer()!)],
];

async function mkfifo(file: string): Promise<void> {
  const { code } = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert.equal(code, 0, `mkfifo ${file}`);
}

/** The reason `readRegularFile` fails with, or "read:<text>" when it reads. */
async function outcome(
  layer: FileLayer,
  file: string,
  max = 1000,
  options: ReadOptions = {},
): Promise<string> {
  try {
    return `read:${new TextDecoder().decode(await layer.readRegularFile(file, max, options))}`;
  } catch (error) {
    if (!(error instanceof ReadFailure)) throw error;
    return error.reason;
  }
}

for (const [name, make] of LAYERS) {
  Deno.test(`${name} file layer: reads regular files only, refuses the rest at once`, async () => {
    const layer = await make();
    assert.equal(layer.runtime, name);
    const { dir, remove } = await makeTempDir("file-layer-");
    try {
      const file = path.join(dir, "a.json");
      await Deno.writeTextFile(file, "{}");
      await symlink(file, path.join(dir, "link.json"));
      await symlink(path.join(dir, "nothing"), path.join(dir, "dangling"));
      await symlink("/dev/null", path.join(dir, "device"));
      await Deno.mkdir(path.join(dir, "folder"));
      await Deno.writeTextFile(path.join(dir, "big.json"), "x".repeat(1001));
      const cases: Record<string, string> = {
        "a.json": "read:{}",
        "link.json": "read:{}",
        "dangling": "missing",
        "nothing": "missing",
        "a.json/below": "missing",
        "device": "not-regular",
        "folder": "folder",
        "big.json": "too-large",
      };
      if (MKFIFO) {
        await mkfifo(path.join(dir, "pipe"));
        await symlink(path.join(dir, "pipe"), path.join(dir, "pipe-link"));
        cases["pipe"] = "not-regular";
        cases["pipe-link"] = "not-regular";
      }
      for (const [relative, expected] of Object.entries(cases)) {
        assert.equal(await outcome(layer, path.join(dir, relative)), expected, relative);
      }
      assert.equal((await layer.readRegularFile(file, 2)).byteLength, 2, "exactly the limit");

      assert.equal(await layer.kind(file), "file");
      assert.equal(await layer.kind(path.join(dir, "folder")), "folder");
      assert.equal(await layer.kind(path.join(dir, "device")), "other");
      assert.equal(await layer.kind(path.join(dir, "dangling")), null);
      assert.equal(await layer.exists(path.join(dir, "dangling")), true);
      assert.equal(await layer.exists(path.join(dir, "nothing")), false);

      const listed = (await layer.list(dir)).sort((a, b) => a.name < b.name ? -1 : 1);
      const expectedKinds: Record<string, string> = {
        "a.json": "file",
        "big.json": "file",
        "folder": "folder",
        "link.json": "other",
        "dangling": "other",
        "device": "other",
        ...(MKFIFO ? { pipe: "other", "pipe-link": "other" } : {}),
      };
      assert.deepEqual(
        Object.fromEntries(listed.map((e) => [e.name, e.kind])),
        expectedKinds,
      );
      const missing = await layer.list(path.join(dir, "nothing")).catch((e) => e);
      assert.equal((missing as { code?: string }).code, "ENOENT");

      const before = await layer.version(file);
      assert.equal(await layer.version(file), before);
      await Deno.writeTextFile(file, "{ }");
      assert.notEqual(await layer.version(file), before, "a write changes the version");
      const renamed = path.join(dir, "b.json");
      await Deno.writeTextFile(renamed, "{ }");
      const second = await layer.version(file);
      await Deno.rename(renamed, file);
      assert.notEqual(await layer.version(file), second, "a rename over the path changes it");
      await assert.rejects(layer.version(path.join(dir, "nothing")), { code: "ENOENT" });
    } finally {
      await remove();
    }
  });

  Deno.test(`${name} file layer: within a folder, only files whose real path is inside`, async () => {
    const layer = await make();
    const { dir, remove } = await makeTempDir("file-layer-within-");
    try {
      const inside = path.join(dir, "inside");
      await Deno.mkdir(path.join(inside, "real-sub"), { recursive: true });
      await Deno.writeTextFile(path.join(inside, "a.json"), "in");
      await Deno.writeTextFile(path.join(inside, "real-sub", "b.json"), "in below");
      await Deno.writeTextFile(path.join(dir, "secret.json"), "out");
      await Deno.writeTextFile(path.join(dir, "inside-like.json"), "out, a sibling named alike");
      await symlink(path.join(inside, "a.json"), path.join(inside, "link.json"));
      await symlink("real-sub", path.join(inside, "sub"));
      await symlink("../secret.json", path.join(inside, "out.json"));
      await symlink(path.join(dir, "inside-like.json"), path.join(inside, "prefix.json"));
      await symlink(dir, path.join(inside, "up"));
      await symlink("nothing", path.join(inside, "dangling"));
      await symlink(inside, path.join(dir, "alias"));
      await Deno.mkdir(path.join(dir, "insidex"));
      await Deno.writeTextFile(path.join(dir, "insidex", "c.json"), "out, a prefix of the name");
      const cases: [string, string, string][] = [
        ["inside", "a.json", "read:in"],
        ["inside", "link.json", "read:in"],
        ["inside", "sub/b.json", "read:in below"],
        ["inside", "out.json", "outside"],
        ["inside", "prefix.json", "outside"],
        ["inside", "up/secret.json", "outside"],
        ["inside", "up/inside/a.json", "read:in"],
        ["inside", "../secret.json", "outside"],
        ["inside", "../insidex/c.json", "outside"],
        ["inside", "dangling", "missing"],
        ["inside", "nothing.json", "missing"],
        // The folder named through a link: its real path counts, not its name.
        ["alias", "a.json", "read:in"],
        ["alias", "out.json", "outside"],
      ];
      for (const [folder, relative, expected] of cases) {
        const within = path.join(dir, folder);
        assert.equal(
          await outcome(layer, path.join(within, relative), 1000, { within }),
          expected,
          `${folder}: ${relative}`,
        );
      }
      // Without `within`, links are followed wherever they lead (the other commands).
      assert.equal(await outcome(layer, path.join(inside, "out.json")), "read:out");
      const refused = await layer.readRegularFile(path.join(inside, "out.json"), 1000, {
        within: inside,
      }).catch((e) => e);
      assert.ok(refused instanceof ReadFailure);
      assert.doesNotMatch(refused.message, /secret/, "the message does not say where it leads");
    } finally {
      await remove();
    }
  });

  Deno.test(`${name} file layer: path rules`, async () => {
    const { path: rules } = await make();
    assert.equal(rules.resolve("/a/b", "../c", "d.json"), "/a/c/d.json");
    assert.equal(rules.join("a", "..", "b"), "b");
    assert.equal(rules.relative("/a/b", "/a/c/d"), "../c/d");
    assert.equal(rules.dirname("/a/b/c.json"), "/a/b");
    assert.equal(rules.basename("/a/b/c.json"), "c.json");
    assert.equal(rules.isAbsolute("a"), false);
  });
}
