/**
 * The static import graph (what loads when a module loads, from `deno info
 * --json`): TypeScript is reached only through the dynamic `import()` in
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

Deno.test({
  name: "cli.ts loads the analyze command statically but TypeScript only dynamically",
  ignore: DENO === null,
  fn: async () => {
    const modules = await graph("cli.ts");
    const loaded = staticClosure(modules, file("cli.ts"));
    assert.ok(loaded.has(file("src/commands/analyze.ts")), "analyze.ts is part of the CLI");
    assert.ok(loaded.has(file("src/analyze/scan_source_tree.ts")));
    const typescript = [...loaded].filter((s) => /^npm:\/?typescript@/.test(s));
    assert.deepEqual(typescript, [], "no static path from cli.ts to npm:typescript");
    // The one way in is the dynamic import on first scan.
    const loader = modules.get(file("src/analyze/_load_typescript.ts"));
    const dynamic = loader?.dependencies?.filter((d) => d.specifier === "typescript") ?? [];
    assert.equal(dynamic.length, 1);
    assert.equal(dynamic[0]!.isDynamic, true);
    assert.match(dynamic[0]!.code!.specifier, /^npm:\/?typescript@5\./);
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
        /\/src\/commands\//,
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
