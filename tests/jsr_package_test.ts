// The JSR package holds what its exports reach and nothing else: the files of
// `deno publish --dry-run` are the local modules of the module graphs of
// deno.json's exports (as `deno info` computes them), plus README.md, LICENSE,
// deno.json, docs/ and schemas/. Its ./cli export runs with the permissions
// docs/install.md states. Needs --allow-run=deno. The dry run takes a while (a `deno info` per
// export, then the publish): `deno task test:long` runs it.
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { requireDenoCommand } from "./_deno_command.ts";
import { LONG, noteLong } from "./_long.ts";
import { makeTempDir } from "./temp_dir.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const denoJson = JSON.parse(await readFile(`${root}deno.json`, "utf8")) as {
  name: string;
  exports: Record<string, string>;
};

/** The files besides modules that the package carries, by choice. */
const NON_MODULE_FILES = ["LICENSE", "README.md", "deno.json"];
/**
 * Folders the package carries whole, by choice: the documentation README.md
 * links to, and the JSON Schemas (docs/schemas.md, served from JSR at their `$id`).
 */
const WHOLE_FOLDERS = ["docs", "schemas"];

async function deno(args: string[], cwd = root): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(requireDenoCommand(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, out: decoder.decode(stdout) + decoder.decode(stderr) };
}

/** Project files (relative paths) of the module graph of every export. */
async function reachedModules(): Promise<Set<string>> {
  const files = new Set<string>();
  for (const source of Object.values(denoJson.exports)) {
    const { code, out } = await deno(["info", "--json", source]);
    assert.equal(code, 0, out);
    const graph = JSON.parse(out.slice(0, out.lastIndexOf("}") + 1)) as {
      modules: { specifier: string }[];
    };
    for (const { specifier } of graph.modules) {
      if (specifier.startsWith("file://")) files.add(fileURLToPath(specifier).slice(root.length));
    }
  }
  return files;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(`${root}${folder}`, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile())
    .map((e) => `${e.parentPath}/${e.name}`.slice(root.length));
}

noteLong("tests/jsr_package_test.ts", "deno publish --dry-run");

Deno.test({
  name:
    "deno publish --dry-run publishes what the exports reach, README.md, LICENSE, deno.json, docs/ and schemas/",
  ignore: !LONG,
}, async () => {
  const { code, out } = await deno(["publish", "--dry-run", "--allow-dirty"]);
  assert.equal(code, 0, out);
  const published = [...out.matchAll(/^\s+(file:\/\/\S+) \(/gm)]
    .map((m) => fileURLToPath(m[1]!).slice(root.length))
    .sort();
  const expected = [
    ...await reachedModules(),
    ...NON_MODULE_FILES,
    ...(await Promise.all(WHOLE_FOLDERS.map(filesUnder))).flat(),
  ].sort();
  assert.deepEqual(published, expected);
  // What that means today, spelled out.
  for (const file of ["mod.ts", "cli.ts", "src/cli/run_cli.ts", "src/analyze/mod.ts"]) {
    assert.ok(published.includes(file), `${file} is published`);
  }
  for (const prefix of ["tests/", "bench/", "examples/", "tools/", "build_npm.ts", "npm/"]) {
    assert.deepEqual(published.filter((f) => f.startsWith(prefix)), [], `nothing of ${prefix}`);
  }
  assert.equal(denoJson.exports["./cli"], "./cli.ts");
});

/** The flags docs/install.md gives for `deno run … jsr:@policy/runtime/cli`. */
async function documentedFlags(): Promise<string[]> {
  const install = await readFile(`${root}docs/install.md`, "utf8");
  const block = [...install.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!.replaceAll("\\\n", " "))
    .find((text) => text.includes(`deno run `) && text.includes(`jsr:${denoJson.name}/cli`));
  assert.ok(block, "docs/install.md shows how to run the CLI from JSR");
  const words = block.trim().split(/\s+/).map((w) => w.replace(/^'(.*)'$/, "$1"));
  return words.slice(words.indexOf("run") + 1, words.indexOf(`jsr:${denoJson.name}/cli`));
}

Deno.test("the CLI export runs with the permissions docs/install.md states (analyze included)", async () => {
  const flags = await documentedFlags();
  assert.ok(flags.every((flag) => flag.startsWith("--")), flags.join(" "));
  const { dir: folder, remove } = await makeTempDir("jsr-cli-");
  try {
    await writeFile(
      `${folder}/app.ts`,
      'client.evaluate({ target: { service: "billing", resource: "invoice", action: "create" } });\n',
    );
    const policy = (...args: string[]) =>
      deno(["run", "--no-prompt", ...flags, `${root}cli.ts`, "-w", folder, ...args], folder);
    for (
      const args of [
        ["analyze", "--format", "json"],
        ["keys", "generate", "--algorithm", "ECDSA_SHA_256", "--out-dir", "keys"],
        ["validate", "--format", "json"],
      ]
    ) {
      const { code, out } = await policy(...args);
      assert.equal(code, 0, `policy ${args.join(" ")}:\n${out}`);
    }
  } finally {
    await remove();
  }
});
