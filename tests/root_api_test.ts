/**
 * The root export (`mod.ts`, `@policy/runtime`) is a named list of the
 * symbols of a user's first hour, at most {@link MAX_ROOT_SYMBOLS}: the
 * clients, evaluation and its types, validation, JSON, errors, loading,
 * verifying and signing, keys. Everything else is in the subpath exports
 * (`./engine`, `./verify`, `./clients`, `./otel`, …). A new root symbol is a
 * reviewed change: it must be added to {@link ROOT_API} here, and the
 * failure prints the list as it is.
 */
import assert from "node:assert/strict";
import { denoCommand } from "./_deno_command.ts";

/** Most symbols the root export may have. */
const MAX_ROOT_SYMBOLS = 80;

/** The root API, sorted. */
const ROOT_API: readonly string[] = [
  "BundleScope",
  "BundleSignatureStatus",
  "BundleStatus",
  "ClientEvent",
  "ClientListener",
  "ClientStatus",
  "Clock",
  "CompileOptions",
  "CompiledBundle",
  "Condition",
  "ConditionValue",
  "ContextPolicy",
  "Decision",
  "DecisionRecord",
  "ERROR_CODES",
  "Effect",
  "EffectType",
  "Env",
  "ErrorCode",
  "EvaluateOptions",
  "EvaluationRequest",
  "Evaluator",
  "FetchFunction",
  "FreshnessStatement",
  "FreshnessStatus",
  "InspectedBundle",
  "Issue",
  "JsonParseError",
  "KillSwitchDescriptor",
  "LoadBundleOptions",
  "LoadedBundle",
  "LocalClient",
  "LocalClientOptions",
  "LocalClientStatus",
  "ParseJsonOptions",
  "PemKeyPair",
  "Policy",
  "PolicyClient",
  "PolicyDefault",
  "PolicyError",
  "PolicyErrorOptions",
  "PollResult",
  "RefreshResult",
  "RemoteClient",
  "RemoteClientOptions",
  "RemoteClientSource",
  "RemoteClientStatus",
  "Rule",
  "RuleStatus",
  "RuntimeBundleV1",
  "SignBundleOptions",
  "SignFreshnessOptions",
  "Signature",
  "SignatureAlgorithm",
  "Target",
  "ThrottleDescriptor",
  "ValidateBundleOptions",
  "ValidationResult",
  "VerifyBundleSignatureOptions",
  "VerifyFreshnessOptions",
  "VerifyKeyOptions",
  "VerifyKeySet",
  "WatchOptions",
  "compileBundle",
  "createEvaluator",
  "createLocalClient",
  "createRemoteClient",
  "evaluate",
  "generateEcdsaKeyPair",
  "generateHmacSecret",
  "inspectBundle",
  "isPolicyError",
  "loadBundle",
  "parseJson",
  "signBundle",
  "signFreshness",
  "validateBundle",
  "verifyBundleSignature",
  "verifyFreshness",
];

const ROOT = new URL("../", import.meta.url);

/** The names `text` (a module of named re-exports only) exports; `*` for an `export *`. */
export function exportedNames(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  const names: string[] = [];
  for (const match of code.matchAll(/\bexport\s+(?:type\s+)?(\*|\{([^}]*)\})/g)) {
    if (match[1] === "*") {
      names.push("*");
      continue;
    }
    for (const item of match[2]!.split(",")) {
      const name = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (name !== "") names.push(name);
    }
  }
  return names.sort();
}

Deno.test(`the root export is a named list of at most ${MAX_ROOT_SYMBOLS} symbols, as pinned`, () => {
  const names = exportedNames(Deno.readTextFileSync(new URL("mod.ts", ROOT)));
  assert.ok(!names.includes("*"), "mod.ts re-exports by name, never with export *");
  assert.deepEqual(
    names,
    [...ROOT_API],
    `the root API changed; as it is now (${names.length} symbols):\n${names.join("\n")}`,
  );
  assert.ok(names.length <= MAX_ROOT_SYMBOLS, `${names.length} root symbols`);
});

const DENO = denoCommand();

Deno.test({
  name: "deno doc lists exactly the pinned root symbols",
  ignore: DENO === null,
  fn: async () => {
    const output = await new Deno.Command(DENO!, {
      args: ["doc", "--json", "mod.ts"],
      cwd: decodeURIComponent(ROOT.pathname),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      nodes: Record<string, { symbols?: { name: string }[] }>;
    };
    const names = [
      ...new Set(Object.values(doc.nodes).flatMap((n) => n.symbols ?? []).map((s) => s.name)),
    ]
      .sort();
    assert.deepEqual(names, [...ROOT_API]);
  },
});

Deno.test("exportedNames reads named re-exports and flags export *", () => {
  const text = 'export { a, type B, c as d } from "./x.ts";\nexport type { E } from "./y.ts";\n' +
    '// export { ignored } from "./z.ts";\nexport * from "./w.ts";';
  assert.deepEqual(exportedNames(text), ["*", "B", "E", "a", "d"]);
});
