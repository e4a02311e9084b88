/**
 * Bundles the JavaScript that `build_npm.ts` emitted (held in memory) with
 * esbuild, so that Node loads a few files instead of about 160: each ES
 * module costs Node 20 about a millisecond to resolve, load and link, which
 * made importing the package take 45 ms (docs/performance.md, "Start-up").
 *
 * Two builds:
 *
 * - the library's exports together, in layers: each export is a file of
 *   re-exports, and the code of each layer's exports is one chunk, which
 *   every export of that layer and of the layers above imports. The
 *   package's root export loads three files, and an object made by one
 *   export is an instance of the other's classes (`PolicyError` is one
 *   class for `.` and `./engine`). Left to itself, code splitting makes one
 *   chunk per set of exports that share a module: nineteen, twelve of them
 *   for the root export, which then loaded 20 ms slower. Leaves (the
 *   exports of `build_npm.ts`'s `EXPORT_PEERS`) sit on a layer and import
 *   none of each other: their own code stays in their own file (or a chunk
 *   only leaves share), so the package they import loads with them and
 *   with nothing else;
 * - the `policy` bin alone, one file with nothing shared: `policy simulate`
 *   reaches more than half of its code, and a bin of simulate alone started
 *   only about 5 ms faster (docs/performance.md), less than the chunks of a
 *   split bin would cost to load.
 *
 * The output is the emitted code as it is, bundled: no minifying, no
 * transpiling (the target is the emit's ES2022), names kept except where two
 * modules' top-level names collide (`build_npm.ts` checks that every
 * export keeps its name).
 *
 * @module
 */
import * as esbuild from "esbuild";
import { posix } from "node:path";

/** What to bundle. */
export interface BundleInput {
  /** The emitted JavaScript: path relative to the package root (`src/engine/mod.js`) → text. */
  files: ReadonlyMap<string, string>;
  /**
   * The library's entries in layers, lowest first: the code the entries of a
   * layer reach (and the layers below do not) is one chunk.
   */
  library: readonly (readonly string[])[];
  /**
   * Library entries that no other entry imports (see above), each with the
   * index of the layer it sits on: it imports the entries of that layer and
   * those below.
   */
  leaves?: Readonly<Record<string, number>>;
  /**
   * Modules every entry imports too, so that they join the lowest layer's
   * chunk: those a leaf shares with a higher layer only, which would
   * otherwise be a chunk of their own that the higher layer's exports load.
   */
  hoist?: readonly string[];
  /** The bin's entry, bundled alone into one file (or none). */
  bin?: string;
  /** Bare specifiers left for Node to resolve (packages); `node:` built-ins always are. */
  external: readonly string[];
  /**
   * Files of the package that are not emitted modules, imported by the bin
   * as they are (`./dist/playground/page.js` from `cli.js`): the import is
   * kept, with its specifier, so the bin must sit where the source did.
   */
  keep?: readonly string[];
}

/** The folder of shared chunks in the package. */
export const CHUNKS_DIR = "_chunks";

/** The namespace of emitted modules: they are read from memory, never from the disk. */
const NAMESPACE = "npm";

/** The namespace of the entries esbuild is given (see {@link layeredEntry}). */
const ENTRY = "entry";

/**
 * The bundled package: path relative to the package root → text, for every
 * entry and chunk. Replaces the emitted modules, which it no longer needs.
 *
 * @throws {Error} An import of a module that was not emitted, or an esbuild error.
 */
export async function bundleModules(input: BundleInput): Promise<Map<string, string>> {
  const output = new Map<string, string>();
  try {
    const leaves = Object.keys(input.leaves ?? {});
    const library = await build(input, [...input.library.flat(), ...leaves], true);
    const bin = input.bin === undefined ? [] : await build(input, [input.bin], false);
    for (const file of [...library, ...bin]) {
      const path = posix.relative("/", file.path.split("\\").join("/"));
      if (output.has(path)) throw new Error(`two bundles write ${path}`);
      output.set(path, file.text);
    }
  } finally {
    await esbuild.stop();
  }
  return output;
}

async function build(
  input: BundleInput,
  entries: readonly string[],
  splitting: boolean,
): Promise<esbuild.OutputFile[]> {
  const result = await esbuild.build({
    entryPoints: entries.map((entry) => `/${entry}`),
    bundle: true,
    splitting,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
    outdir: "/",
    outbase: "/",
    entryNames: "[dir]/[name]",
    chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    legalComments: "none",
    logLevel: "silent",
    plugins: [emittedModules(input, splitting)],
  });
  for (const warning of result.warnings) {
    throw new Error(esbuild.formatMessagesSync([warning], { kind: "warning" }).join("\n"));
  }
  return result.outputFiles;
}

/**
 * What esbuild bundles for the library entry `file` of layer `n`: its
 * exports, and an import of every entry of layers `0…n` (a leaf: of the
 * layer it sits on and below). A module then belongs to every entry of the lowest layer
 * whose entries reach it and to every entry above, and esbuild puts the
 * modules of each layer in one chunk; a module only leaves reach stays with
 * them. The imports add no code and change no behaviour: library modules
 * do nothing when they are evaluated but define.
 */
function layeredEntry(file: string, input: BundleInput): string {
  const layers = input.library;
  const leaf = input.leaves?.[file];
  const n = leaf ?? layers.findIndex((layer) => layer.includes(file));
  const below = layers.slice(0, n + 1).flat();
  // Every entry imports the hoisted modules: they then belong to every entry,
  // as the lowest layer's modules do, and esbuild puts them in its chunk.
  const hoisted = input.hoist ?? [];
  return [
    `export * from ${JSON.stringify(`/${file}`)};`,
    ...[...below, ...hoisted].map((entry) => `import ${JSON.stringify(`/${entry}`)};`),
  ].join("\n");
}

/**
 * Resolves and loads the emitted modules from memory; packages and
 * built-ins stay imports. With `layered`, the entries are those of
 * {@link layeredEntry}.
 */
function emittedModules(input: BundleInput, layered: boolean): esbuild.Plugin {
  const external = new Set(input.external);
  const packageName = (specifier: string) =>
    specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
  const emitted = (path: string, importer: string) =>
    input.files.has(path.slice(1))
      ? { path, namespace: NAMESPACE }
      : { errors: [{ text: `"${path}" (from ${importer}) was not emitted` }] };
  return {
    name: "emitted-modules",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") {
          return layered ? { path: args.path, namespace: ENTRY } : emitted(args.path, "");
        }
        if (args.namespace === ENTRY) return emitted(args.path, args.importer);
        if (args.path.startsWith("node:") || external.has(packageName(args.path))) {
          return { path: args.path, external: true };
        }
        if (args.importer === `/${input.bin}` && input.keep?.includes(args.path)) {
          return { path: args.path, external: true };
        }
        if (!/^\.\.?\//.test(args.path)) {
          return {
            errors: [{ text: `"${args.path}" is neither a built-in nor an external package` }],
          };
        }
        return emitted(posix.join(posix.dirname(args.importer), args.path), args.importer);
      });
      build.onLoad({ filter: /.*/, namespace: ENTRY }, (args) => ({
        contents: layeredEntry(args.path.slice(1), input),
        loader: "js",
      }));
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: input.files.get(args.path.slice(1))!,
        loader: "js",
      }));
    },
  };
}
