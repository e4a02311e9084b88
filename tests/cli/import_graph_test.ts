/**
 * The static import graph (what loads when a module loads, from `deno info
 * --json`): `cli.ts` loads the dispatcher, and each command's module loads
 * when the command runs (start-up, docs/performance.md); neither loads a
 * `node:` module statically (Deno's Node compatibility layer); TypeScript is
 * reached only through the dynamic `import()` in
 * `src/analyze/_load_typescript.ts`, so no command but `analyze` loads it;
 * and the library never reaches the CLI or the licence code. Needs
 * `--allow-run=deno`; skipped (with a printed reason) without it.
 */
import assert from "node:assert/strict";
import { denoCommand } from "../_deno_command.ts";

const ROOT = new URL("../../", import.meta.url);

const DENO = denoCommand();
if (DENO === null) {
  console.log("import_graph_test: skipped, run permission for deno not granted (--allow-run=deno)");
}

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}
interface GraphModule {
  specifier: string;
  dependencies?: Dependency[];
}

/** The module graph of `entry`, as `deno info --json` reports it. */
async function graph(entry: string): Promise<Map<string, GraphModule>> {
  const output = await new Deno.Command(DENO!, {
    args: ["info", "--json", entry],
    cwd: new URL(".", ROOT),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: GraphModule[] };
  return new Map(info.modules.map((m) => [m.specifier, m]));
}

/** Every module loaded when `root` loads: runtime (not type-only) imports that are not dynamic. */
function staticClosure(modules: Map<string, GraphModule>, root: string): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.code !== undefined && dep.isDynamic !== true) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

const file = (relative: string) => new URL(relative, ROOT).href;

/** A command's module: `src/cli/commands/<name>.ts`, or `<name>/<name>.ts` when it has a folder. */
function commandModule(name: string): string {
  const base = name.replaceAll("-", "_");
  const inFolder = `src/cli/commands/${base}/${base}.ts`;
  const isFile = (relative: string) => {
    try {
      return Deno.statSync(new URL(relative, ROOT)).isFile;
    } catch {
      return false;
    }
  };
  return file(isFile(inFolder) ? inFolder : `src/cli/commands/${base}.ts`);
}

Deno.test({
  name: "cli.ts loads no command's module until the command runs, and TypeScript only in analyze",
  ignore: DENO === null,
  fn: async () => {
    const modules = await graph("cli.ts");
    const loaded = staticClosure(modules, file("cli.ts"));
    assert.ok(loaded.has(file("src/cli/run_cli.ts")));
    const { COMMANDS } = await import("../../src/cli/run_cli.ts");
    const commands = Object.keys(COMMANDS).map(commandModule);
    assert.deepEqual(commands.filter((c) => loaded.has(c)), [], "no command loads with cli.ts");
    // The dispatcher's dynamic imports are exactly the commands.
    const dynamic = modules.get(file("src/cli/run_cli.ts"))!.dependencies!
      .filter((d) => d.isDynamic === true).map((d) => d.code!.specifier).sort();
    assert.deepEqual(dynamic, [...commands].sort());
    assert.ok(loaded.size < 20, `cli.ts loads ${loaded.size} modules before a command runs`);

    // Under Deno a `node:` module (or the `process` global) loads the Node compatibility layer,
    // 20-40 ms of start-up: neither cli.ts nor any command loads one before it reads or writes
    // (node:fs comes lazily, with the node:fs file layer or the atomic writer).
    for (const entry of [file("cli.ts"), ...commands]) {
      const builtins = [...staticClosure(modules, entry)].filter((s) => s.startsWith("node:"));
      assert.deepEqual(builtins, [], `${entry} loads no node: module at start-up`);
    }

    const analyze = staticClosure(modules, file("src/cli/commands/analyze.ts"));
    assert.ok(analyze.has(file("src/analyze/scan_source_tree.ts")));
    const typescript = [...analyze].filter((s) => /^npm:\/?typescript@/.test(s));
    assert.deepEqual(typescript, [], "no static path from analyze to npm:typescript");
    // The one way in is the dynamic import on first scan.
    const loader = modules.get(file("src/analyze/_load_typescript.ts"));
    const viaLoader = loader?.dependencies?.filter((d) => d.specifier === "typescript") ?? [];
    assert.equal(viaLoader.length, 1);
    assert.equal(viaLoader[0]!.isDynamic, true);
    assert.match(viaLoader[0]!.code!.specifier, /^npm:\/?typescript@5\./);
  },
});

Deno.test({
  name: "the library (mod.ts) loads neither the CLI, the analyzer, the licence code nor TypeScript",
  ignore: DENO === null,
  fn: async () => {
    const modules = await graph("mod.ts");
    const loaded = [...staticClosure(modules, file("mod.ts"))];
    for (
      const pattern of [
        /\/src\/cli\//,
        /\/src\/analyze\//,
        /\/src\/license\//,
        /^npm:\/?typescript@/,
      ]
    ) {
      assert.deepEqual(
        loaded.filter((s) => pattern.test(s)),
        [],
        `mod.ts does not load ${pattern}`,
      );
    }
  },
});

Deno.test({
  name: "no export but ./openfeature and ./openfeature/web loads an OpenFeature SDK, even lazily",
  ignore: DENO === null,
  fn: async () => {
    const { exports } = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
      exports: Record<string, string>;
    };
    const sdk = /^npm:\/?@openfeature\//;
    for (const [name, source] of Object.entries(exports)) {
      const modules = await graph(source);
      // Lazy imports count too: a bundler would follow them.
      const reached = [...modules.keys()];
      const sdks = reached.filter((s) => sdk.test(s));
      if (name === "./openfeature" || name === "./openfeature/web") {
        assert.ok(sdks.length > 0, `${name} loads its SDK`);
        const other = name === "./openfeature" ? /web-sdk/ : /server-sdk/;
        assert.deepEqual(sdks.filter((s) => other.test(s)), [], `${name} loads only its own SDK`);
      } else {
        assert.deepEqual(sdks, [], `${name} loads no OpenFeature SDK`);
        assert.deepEqual(reached.filter((s) => s.includes("/src/openfeature/")), [], name);
      }
    }
  },
});
