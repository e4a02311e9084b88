// This module is browser compatible.
// The compiled form of a bundle, kept out of the public CompiledBundle object:
// evaluate and traceEvaluation find it here.
import { PolicyError } from "../public/policy_error.ts";
import type { Code } from "./_program_layout.ts";
import type { TargetIndex } from "./_target_index.ts";
import type { PathTable } from "./_path_table.ts";
import type { TracePlan } from "./_trace_plan.ts";
import type { ProgramIndex } from "./_program_index.ts";
import type { RuleTable } from "./_rule_table.ts";
import type { ExplainerCache } from "./_explain_condition.ts";

/** Every target's program, where each starts, the paths their tests read, and the rules. */
export interface CompiledCode {
  readonly code: Code;
  readonly programs: ProgramIndex;
  /** Opened around every run of the programs' tests. */
  readonly paths: PathTable;
  /** The rules, for traces and `policiesOf`. */
  readonly rules: RuleTable;
  /**
   * Made on the first trace: where each target's rules are (`policyIndex,
   * ruleIndex` pairs), replaced by the target's trace plan on its first trace.
   */
  tracePlans: TargetIndex<number[] | TracePlan> | null;
  /** Made on the first trace: the explainers of the conditions traced so far, shared. */
  explainers: ExplainerCache | null;
}

const compiledCode = new WeakMap<object, CompiledCode>();

export function registerCompiledCode(compiled: object, code: CompiledCode): void {
  compiledCode.set(compiled, code);
}

/**
 * The compiled code of a bundle compiled by `compileBundle`.
 * @throws {PolicyError} `INVALID_OPTIONS` for any other object.
 */
export function compiledCodeOf(compiled: object): CompiledCode {
  const code = compiledCode.get(compiled);
  if (code === undefined) {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "this is not a compiled bundle; compile it with compileBundle or load it with loadBundle",
    );
  }
  return code;
}
