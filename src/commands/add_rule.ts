/**
 * `policy policies add-rule`: adds a rule, read from a Rule document, to a
 * policy of the draft after checking it with the engine's rules.
 *
 * @module
 */
import type { Rule } from "../engine/types.ts";
import { CliError } from "./_errors.ts";
import { defineCommand } from "./_session.ts";
import { readDraftForEdit, requirePolicy, saveDraft } from "./_draft.ts";
import { validateDraft } from "../_authoring/draft.ts";
import { describeValue } from "../_internal/check_options.ts";
import { isRecord } from "../_internal/guards.ts";
import { describeEffect, describeTarget } from "./_describe.ts";
import { withoutSchema } from "./_schema.ts";

/** Adds a rule to a policy of the draft. */
export const runAddRule = defineCommand(
  {
    name: "policies add-rule",
    usage: "policies add-rule --policy-key <key> --rule-file <path>",
    summary: [
      "Adds the rule in <path> (a Rule document: id, status, priority, target, effect, and",
      "optionally when, thenEffect, elseEffect, description) to a policy of the draft.",
      "The rule is checked with the same rules as validate; a rule id already used in the",
      "policy is refused. With --strict, validation warnings (an unknown field, a target no",
      "evaluation point uses) refuse the rule too. The rule file may have comments.",
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
    },
  },
  async (session) => {
    const out = session.out;
    const policyKey = session.requireString("policy-key");
    const ruleFile = await session.fromWorkingFolder(session.requireString("rule-file"));
    return await session.exclusive(async () => {
      const edit = await readDraftForEdit(session);
      const { file, draft } = edit;
      // A rule file's $schema is for editors, not part of the rule.
      const rule = withoutSchema(await session.readJson(ruleFile, "rule"));

      const policy = requirePolicy(
        draft,
        policyKey,
        `add-rule does not create policies; create it with 'policy policies update-policy --create --policy-key ${
          describeValue(policyKey)
        } --defaults-effect <effect>'`,
      );
      const existing = Array.isArray(policy.rules) ? policy.rules : [];
      // Validate the policy with the new rule after the existing ones, as a draft, so that a
      // reused id and a target no evaluation point uses are reported; keep the new rule's issues.
      const at = `/policies/0/rules/${existing.length}`;
      const result = validateDraft({
        schemaVersion: "1.0",
        policies: [{ ...policy, rules: [...existing, rule] }],
      });
      const mine = (p: string) => p === at || p.startsWith(`${at}/`);
      const errors = result.errors.filter((e) => mine(e.path));
      const warnings = result.warnings.filter((w) => mine(w.path));
      const duplicate = errors.find((e) => e.code === "DUPLICATE_RULE_ID");
      if (duplicate !== undefined) {
        throw new CliError("DUPLICATE_RULE_ID", duplicate.message, {
          hint: "give the rule another id, or edit the existing rule in the draft",
        });
      }
      const local = (p: string) => p.slice(at.length) || "/";
      if (errors.length > 0) {
        // A mistyped field (priorty) is often why a required one is missing: validate's
        // UNKNOWN_FIELD warnings, with their "did you mean", go with the errors.
        const typos = warnings.filter((w) => w.code === "UNKNOWN_FIELD");
        throw new CliError(
          "RULE_INVALID",
          `${ruleFile} is not a valid rule: ${
            [...errors, ...typos].map((e) => `${e.message} (${e.code} at ${local(e.path)})`)
              .join("; ")
          }`,
        );
      }
      for (const w of warnings) out.warn(w.code, `${w.message} (at ${local(w.path)})`);
      if (session.global.strict && warnings.length > 0) {
        throw new CliError(
          "RULE_INVALID",
          `${ruleFile} has ${warnings.length} warning(s), which --strict treats as failures`,
        );
      }

      const added = rule as Rule;
      if (!Array.isArray(policy.rules)) policy.rules = [];
      policy.rules.push(added);
      await saveDraft(session, edit);

      const branch = (key: "thenEffect" | "elseEffect") => {
        const effect = (added as unknown as Record<string, unknown>)[key];
        return isRecord(effect) && typeof effect.type === "string" ? effect.type : null;
      };
      out.result(
        {
          draftPath: file,
          policyKey,
          ruleId: added.id,
          status: added.status,
          priority: added.priority,
          target: added.target,
          effect: added.effect.type,
          thenEffect: branch("thenEffect"),
          elseEffect: branch("elseEffect"),
          ruleCount: policy.rules.length,
          warnings: out.warnings,
        },
        () => {
          const disabled = added.status === "disabled";
          out.info(
            `added ${
              disabled ? "disabled " : ""
            }rule ${added.id} to policy ${policyKey} in ${file}`,
          );
          out.info(`  key:      ${policyKey}`);
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
        },
      );
      return 0;
    });
  },
);
