// This module is browser compatible.
import type { Env, Issue, Policy } from "./types.ts";
import { DEFAULT_MAX_ISSUES, LOAD_MAX_ISSUES, validateAndBuild } from "./validate_bundle.ts";
import { BundleBuilder } from "./_bundle_builder.ts";
import { compiledCodeOf, registerCompiledCode } from "./_compiled_code.ts";
import { allPolicies } from "./_rule_table.ts";
import { booleanField, checkOptions, type Fields } from "../_internal/check_options.ts";

/** Version of the compiled form; changes when its shape does. */
export const COMPILER_VERSION = 4;

/** The scope a bundle was built for: its `env`, and its `orgId` and `projectId` when present. */
export interface BundleScope {
  /** The environment. */
  readonly env: Env;
  /** The organisation, when the bundle names one. */
  readonly orgId?: string;
  /** The project, when the bundle names one. */
  readonly projectId?: string;
}

/**
 * A validated bundle compiled into an immutable exact-target index. The
 * compiled form itself is internal: {@link createEvaluator} and
 * {@link traceEvaluation} use it, and {@link policiesOf} gives its rules. The
 * document it was compiled from is not kept (keep it yourself if you need
 * it: `compileBundle` does not copy or change it).
 */
export interface CompiledBundle {
  /** Version of the compiled form ({@link COMPILER_VERSION} when it was made). */
  readonly compilerVersion: number;
  /** The bundle's `env`, `orgId` and `projectId`. */
  readonly scope: BundleScope;
  /** Number of policies. */
  readonly policyCount: number;
  /** Number of rules, active or disabled. */
  readonly ruleCount: number;
  /** Number of distinct targets the rules name. */
  readonly targetCount: number;
}

/** Options of {@link compileBundle}. */
export interface CompileOptions {
  /**
   * Accepted for compatibility; changes nothing. Validation runs in the
   * same walk as compiling, so skipping it would save little, and a
   * document is never compiled unchecked.
   */
  skipValidation?: boolean;
}

/** The options of {@link compileBundle}, for the library's one option checker. */
const COMPILE_FIELDS: Fields = { skipValidation: booleanField };

/**
 * Validates a bundle and compiles it into an immutable index, in one walk of
 * the document: an exact target lookup (nested maps, no scanning),
 * conditions compiled once into closures (identical conditions share one;
 * every context path gets a slot, read at most once per evaluation, see
 * `_path_table.ts`), and for each target a small program that tests its
 * candidate decisions in the order they win (all programs in one array, see
 * `_target_program.ts`).
 *
 * @throws {PolicyError} `BUNDLE_INVALID` with the validation issues.
 *
 * @example
 * ```ts
 * import { compileBundle } from "./compile_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const compiled = compileBundle({ schemaVersion: 1, env: "prod", policies: [] });
 * assert.equal(compiled.policyCount, 0);
 * assert.equal(compiled.targetCount, 0);
 * assert.deepEqual(compiled.scope, { env: "prod" });
 * ```
 */
export function compileBundle(document: unknown, options: CompileOptions = {}): CompiledBundle {
  checkOptions(options, COMPILE_FIELDS, "compileBundle");
  const builder = new BundleBuilder();
  validateAndBuild(document, DEFAULT_MAX_ISSUES, builder);
  return finish(builder, scopeOf(document as Record<string, unknown>));
}

/**
 * {@link compileBundle} for the load pipeline (`loadBundle`), in two steps:
 * the walk that validates the document (with the load's issue cap) and
 * collects its rules, now, returning the warnings and whether every rule and
 * default lists its keys in canonical order (for
 * `canonicalPayloadBytesOfParsed`); then `finish()`, which makes the
 * targets' programs and needs the document no more (the pipeline runs it
 * while the checksum and signature are computed). Not exported by `mod.ts`.
 *
 * @throws {PolicyError} `BUNDLE_INVALID`, carrying every error in `issues`.
 */
export function compileForLoad(
  document: unknown,
): { warnings: Issue[]; keysInOrder: boolean; finish: () => CompiledBundle } {
  const builder = new BundleBuilder();
  const { warnings, keysInOrder } = validateAndBuild(document, LOAD_MAX_ISSUES, builder);
  const scope = scopeOf(document as Record<string, unknown>);
  return { warnings, keysInOrder, finish: () => finish(builder, scope) };
}

/** The scope of a valid bundle. */
function scopeOf(bundle: Record<string, unknown>): BundleScope {
  const scope: { env: Env; orgId?: string; projectId?: string } = { env: bundle.env as Env };
  if (typeof bundle.orgId === "string") scope.orgId = bundle.orgId;
  if (typeof bundle.projectId === "string") scope.projectId = bundle.projectId;
  return Object.freeze(scope);
}

/** The compiled bundle of a builder that walked a valid document. */
function finish(builder: BundleBuilder, scope: BundleScope): CompiledBundle {
  const { code, programs, paths, rules, targetCount } = builder.finish();
  const compiled: CompiledBundle = Object.freeze({
    compilerVersion: COMPILER_VERSION,
    scope,
    policyCount: rules.policyKeys.length,
    ruleCount: rules.ids.length,
    targetCount,
  });
  registerCompiledCode(compiled, {
    code,
    programs,
    paths,
    rules,
    tracePlans: null,
    explainers: null,
  });
  return compiled;
}

/**
 * The policies of a compiled bundle, as compiled: each policy's key,
 * `activeVersion` and `defaults`, and every rule with what decides (`id`,
 * `status`, `priority`, `target`, `when`, `effect`, `thenEffect`,
 * `elseEffect`), in bundle order. A rule's `description` is not kept, and
 * fields the runtime does not know may not be. Made anew on each call;
 * identical conditions and effects may be one shared object (frozen or
 * not): do not modify them.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` for an object `compileBundle` did not make.
 *
 * @example
 * ```ts
 * import { compileBundle, policiesOf } from "./compile_bundle.ts";
 * import assert from "node:assert/strict";
 *
 * const target = { service: "s", resource: "r", action: "a" };
 * const compiled = compileBundle({
 *   schemaVersion: 1,
 *   env: "dev",
 *   policies: [{
 *     policyKey: "p",
 *     activeVersion: 3,
 *     rules: [{ id: "r", status: "active", priority: 1, target, effect: { type: "allow" }, description: "for people" }],
 *   }],
 * });
 * assert.deepEqual(policiesOf(compiled), [{
 *   policyKey: "p",
 *   activeVersion: 3,
 *   rules: [{ id: "r", status: "active", priority: 1, target, effect: { type: "allow" } }],
 * }]);
 * ```
 */
export function policiesOf(compiled: CompiledBundle): Policy[] {
  return allPolicies(compiledCodeOf(compiled).rules);
}
