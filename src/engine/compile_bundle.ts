// This module is browser compatible.
import type { RuntimeBundleV1 } from "./types.ts";
import { assertValidBundle } from "./validate_bundle.ts";
import { sharedConditionCompiler, type Test } from "./compile_condition.ts";
import { collectTargets, rankTarget } from "./rank_target.ts";
import { emitProgram } from "./_target_program.ts";
import { registerCompiledCode } from "./_compiled_code.ts";
import { ProgramLinker } from "./_program_dispatch.ts";
import { booleanField, checkOptions, type Fields } from "../_internal/check_options.ts";

/** Version of the compiled form; changes when its shape does. */
export const COMPILER_VERSION = 3;

/**
 * A validated bundle compiled into an immutable exact-target index. The
 * compiled form itself is internal: {@link createEvaluator} and
 * {@link traceEvaluation} use it.
 */
export interface CompiledBundle {
  /** Version of the compiled form ({@link COMPILER_VERSION} when it was made). */
  readonly compilerVersion: number;
  /**
   * The source document, as given (it is not copied: do not modify it after
   * compiling; traces read it to explain decisions).
   */
  readonly bundle: RuntimeBundleV1;
  /** Number of policies. */
  readonly policyCount: number;
  /** Number of rules, active or disabled. */
  readonly ruleCount: number;
  /** Number of distinct targets the rules name. */
  readonly targetCount: number;
}

/** Options of {@link compileBundle}. */
export interface CompileOptions {
  /** Skip validation because the caller has just validated the same document. */
  skipValidation?: boolean;
}

/** The options of {@link compileBundle}, for the library's one option checker. */
const COMPILE_FIELDS: Fields = { skipValidation: booleanField };

/**
 * Validates a bundle and compiles it into an immutable index: an exact
 * target lookup (nested maps, no scanning), conditions compiled once into
 * closures (identical conditions share one; every context path gets a slot,
 * read at most once per evaluation, see `_path_table.ts`), and for each
 * target a small program that tests its candidate decisions in the order
 * they win (all programs in one array, see `_target_program.ts`).
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
 * ```
 */
export function compileBundle(document: unknown, options: CompileOptions = {}): CompiledBundle {
  checkOptions(options, COMPILE_FIELDS, "compileBundle");
  if (!options.skipValidation) assertValidBundle(document);
  const bundle = document as RuntimeBundleV1;
  const policies = bundle.policies;
  const conditions = sharedConditionCompiler();
  // Where each policy's rules start in ruleTests, which traces read the rules' tests from.
  const ruleStarts = new Int32Array(policies.length);
  let ruleCount = 0;
  for (let p = 0; p < policies.length; p++) {
    ruleStarts[p] = ruleCount;
    ruleCount += policies[p]!.rules.length;
  }
  const ruleTests: (Test | null)[] = new Array(ruleCount).fill(null);
  const testFor = (when: unknown, p: number, r: number) =>
    ruleTests[ruleStarts[p]! + r] = conditions.compile(when);
  const code: unknown[] = [];
  let targetCount = 0;
  const linker = new ProgramLinker(conditions.paths);
  const programs = collectTargets(policies).transform((refs) => {
    targetCount++;
    const start = emitProgram(code, rankTarget(policies, refs, testFor));
    linker.link(code, start);
    return start;
  });
  const compiled: CompiledBundle = Object.freeze({
    compilerVersion: COMPILER_VERSION,
    bundle,
    policyCount: policies.length,
    ruleCount,
    targetCount,
  });
  registerCompiledCode(compiled, {
    code,
    programs,
    paths: conditions.paths,
    ruleTests,
    ruleStarts,
    tracePlans: null,
    explainers: null,
  });
  return compiled;
}
