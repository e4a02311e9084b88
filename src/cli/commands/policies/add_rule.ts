/**
 * `policy policies add-rule`: adds a rule, read from a Rule document, to a
 * policy of the draft after checking it with the engine's rules.
 *
 * @module
 */
import type { EffectType, Rule, Target } from "../../../engine/types.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { CliError } from "../../kit/errors.ts";
import { LIST_HINT, requirePolicy, requireRule } from "../../kit/draft.ts";
import { type DraftDocument, type DraftPolicy, validateDraft } from "../../../authoring/draft.ts";
import { describeValue } from "../../../_internal/check_options.ts";
import { isRecord } from "../../../_internal/guards.ts";
import { describeEffect, describeTarget } from "../../kit/describe.ts";
import { withoutSchema } from "../../kit/schema.ts";
import type { Output, Warning } from "../../kit/output.ts";
import type { Session } from "../../kit/session.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";
import { refuseUnknownOperators, UNKNOWN_OPERATORS_FLAG } from "./_unknown_operators.ts";

/** What `policies add-rule` takes. */
export interface AddRuleParameters {
  policyKey: string;
  /** The Rule document's file, absolute (named in messages). */
  ruleFile: string;
  /** Replace the policy's rule of the same id. */
  replace: boolean;
  /** `--strict`: validation warnings refuse the rule too. */
  strict: boolean;
  /** `--allow-unknown-operators`: a condition operator this version does not know is written. */
  allowUnknownOperators?: boolean;
}

/** What `policies add-rule` did (`rule`: the rule added). */
export type AddRulePlan =
  & EditPlan<{
    policyKey: string;
    ruleId: string;
    status: string;
    priority: number;
    target: Target;
    effect: EffectType;
    thenEffect: string | null;
    elseEffect: string | null;
    ruleCount: number;
    replaced: boolean;
  }>
  & { rule: Rule };

/** The declaration of `policies add-rule`. */
export const ADD_RULE_SPEC: CommandSpec = {
  name: "policies add-rule",
  usage: "policies add-rule --policy-key <key> --rule-file <path> [--replace]",
  summary: [
    "Adds the rule in <path> (a Rule document: id, status, priority, target, effect, and",
    "optionally when, thenEffect, elseEffect, description) to a policy of the draft.",
    "The rule is checked with the same rules as validate; a rule id already used in the",
    "policy is refused (DUPLICATE_RULE_ID) unless --replace is given, which puts the new",
    "rule in the place of the rule with its id (one must exist: RULE_NOT_FOUND otherwise).",
    "With --strict, validation warnings (an unknown field, a target no evaluation point",
    "uses) refuse the rule too. A condition operator this version does not know is refused",
    "(it would evaluate to false) unless --allow-unknown-operators. The rule file may have",
    "comments.",
  ].join("\n"),
  flags: {
    "policy-key": {
      type: "string",
      value: "<key>",
      description: "the policy to add the rule to",
    },
    "rule-file": {
      type: "string",
      value: "<path>",
      description: "the Rule document (JSON), relative to the working folder",
    },
    replace: {
      type: "boolean",
      description: "replace the policy's rule that has the same id",
    },
    ...UNKNOWN_OPERATORS_FLAG,
  },
  examples: [
    "policy policies add-rule --policy-key billing.invoice.create --rule-file rules/paid-plans.rule.json",
    "policy policies add-rule --policy-key billing.invoice.create --rule-file rules/paid-plans.rule.json --replace",
  ],
};

async function parameters(session: Session): Promise<AddRuleParameters> {
  return {
    policyKey: session.requireString("policy-key"),
    ruleFile: await session.fromWorkingFolder(session.requireString("rule-file")),
    replace: session.has("replace"),
    strict: session.global.strict,
    allowUnknownOperators: session.has("allow-unknown-operators"),
  };
}

/**
 * Adds `rule` (a parsed Rule document) to policy `policyKey` of `draft`, or
 * puts it in the place of the rule of its id with `replace`, after checking
 * it as validate does (an unknown condition operator refuses it unless
 * `allowUnknownOperators`); its warnings go to `warnings`.
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, `RULE_NOT_FOUND`, `DUPLICATE_RULE_ID`, `RULE_INVALID`.
 */
export function planAddRule(
  draft: DraftDocument,
  { policyKey, ruleFile, replace, strict, allowUnknownOperators }: AddRuleParameters,
  rule: unknown,
  warnings: Warning[],
): AddRulePlan {
  const policy = requirePolicy(
    draft,
    policyKey,
    `add-rule does not create policies; create it with 'policy policies update-policy --create --policy-key ${
      describeValue(policyKey)
    } --defaults-effect <effect>'`,
  );
  const existing = Array.isArray(policy.rules) ? policy.rules : [];
  const id = isRecord(rule) && typeof rule.id === "string" ? rule.id : undefined;
  // --replace puts the rule where the rule of its id is (a rule without an id is reported
  // by validation below); otherwise it goes after the existing ones.
  const replacing = replace && id !== undefined
    ? requireRule(
      policy,
      id,
      `--replace replaces the rule of the same id; leave it out to add the rule (${LIST_HINT})`,
    )
    : undefined;
  const index = replacing?.index ?? existing.length;
  const rules: unknown[] = [...existing];
  rules[index] = rule;
  checkRule({ ...policy, rules: rules as Rule[] }, index, ruleFile, id, warnings, {
    strict,
    allowUnknownOperators: allowUnknownOperators === true,
  });
  const added = rule as Rule;
  policy.rules = rules as Rule[];
  const branch = (key: "thenEffect" | "elseEffect") => {
    const effect = (added as unknown as Record<string, unknown>)[key];
    return isRecord(effect) && typeof effect.type === "string" ? effect.type : null;
  };
  return {
    document: {
      policyKey,
      ruleId: added.id,
      status: added.status,
      priority: added.priority,
      target: added.target,
      effect: added.effect.type,
      thenEffect: branch("thenEffect"),
      elseEffect: branch("elseEffect"),
      ruleCount: policy.rules.length,
      replaced: replacing !== undefined,
    },
    changed: true,
    rule: added,
  };
}

/**
 * Validates the policy with the new rule at `index`, as a draft, so that a
 * reused id and a target no evaluation point uses are reported; keeps the
 * new rule's issues: errors refuse it, warnings go to `warnings` (and
 * refuse it with `strict`).
 */
function checkRule(
  policy: DraftPolicy,
  index: number,
  ruleFile: string,
  id: string | undefined,
  warnings: Warning[],
  { strict, allowUnknownOperators }: { strict: boolean; allowUnknownOperators: boolean },
): void {
  const at = `/policies/0/rules/${index}`;
  const result = validateDraft({ schemaVersion: "1.0", policies: [policy] });
  const mine = (p: string) => p === at || p.startsWith(`${at}/`);
  const errors = result.errors.filter((e) => mine(e.path));
  const found = result.warnings.filter((w) => mine(w.path));
  const duplicate = errors.find((e) => e.code === "DUPLICATE_RULE_ID");
  if (duplicate !== undefined) {
    throw new CliError("DUPLICATE_RULE_ID", `${duplicate.message}; the draft was not changed`, {
      hint: `pass --replace to replace rule ${
        describeValue(id)
      } with this one, or give the rule another id`,
    });
  }
  const local = (p: string) => p.slice(at.length) || "/";
  if (errors.length > 0) {
    // A mistyped field (priorty) is often why a required one is missing: validate's
    // UNKNOWN_FIELD warnings, with their "did you mean", go with the errors.
    const typos = found.filter((w) => w.code === "UNKNOWN_FIELD");
    throw new CliError(
      "RULE_INVALID",
      `${ruleFile} is not a valid rule: ${
        [...errors, ...typos].map((e) => `${e.message} (${e.code} at ${local(e.path)})`).join("; ")
      }`,
    );
  }
  refuseUnknownOperators(found, {
    allow: allowUnknownOperators,
    code: "RULE_INVALID",
    what: ruleFile,
    where: local,
  });
  for (const w of found) {
    warnings.push({ code: w.code, message: `${w.message} (at ${local(w.path)})` });
  }
  if (strict && found.length > 0) {
    throw new CliError(
      "RULE_INVALID",
      `${ruleFile} has ${found.length} warning(s), which --strict treats as failures`,
    );
  }
}

function render(out: Output, { document: d, rule: added }: AddRulePlan, file: string): void {
  const disabled = added.status === "disabled";
  out.info(
    !d.replaced
      ? `added ${disabled ? "disabled " : ""}rule ${added.id} to policy ${d.policyKey} in ${file}`
      : `replaced rule ${added.id} of policy ${d.policyKey}${
        disabled ? " with a disabled rule" : ""
      } in ${file}`,
  );
  out.info(`  key:      ${d.policyKey}`);
  out.info(`  rule id:  ${added.id}`);
  out.info(`  status:   ${disabled ? "disabled (never fires)" : added.status}`);
  out.info(`  priority: ${added.priority}`);
  out.info(`  effect:   ${describeEffect(added.effect.type, added.effect)}`);
  if (added.when !== undefined) {
    const then = added.thenEffect ?? added.effect;
    const otherwise = added.elseEffect;
    out.info(
      `  when:     true -> ${describeEffect(then.type, then)}, false -> ${
        otherwise === undefined ? "skipped" : describeEffect(otherwise.type, otherwise)
      }`,
    );
  }
  out.info(`  target:   ${describeTarget(added.target)}`);
}

/** Adds a rule to a policy of the draft. */
export const runAddRule = defineDraftEdit(ADD_RULE_SPEC, {
  parameters,
  // A rule file's $schema is for editors, not part of the rule.
  inputs: async (session, { ruleFile }) => withoutSchema(await session.readJson(ruleFile, "rule")),
  plan: planAddRule,
  render,
});
