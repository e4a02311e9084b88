/**
 * `policy policies list`: the draft's policies, each with its target, rules,
 * default and how many rules are active or disabled. Reads the draft only.
 *
 * @module
 */
import type { Target } from "../../../engine/types.ts";
import { isRecord } from "../../../_internal/guards.ts";
import { defineCommand } from "../../kit/session.ts";
import { draftDocument } from "../../kit/documents.ts";
import { asEditableDraft, readDraftDocument } from "../../kit/draft.ts";
import {
  countRules,
  type DraftDocument,
  type DraftPolicy,
  isTarget,
} from "../../../authoring/draft.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import type { Output } from "../../kit/output.ts";
import {
  describeEffect,
  describeRuleBriefly,
  describeTarget,
  type EffectLike,
  plural,
} from "../../kit/describe.ts";

/** One policy of `policies list --format json` (docs/cli.md, "policies list"). */
export interface ListedPolicy {
  policyKey: string;
  friendlyName: string | null;
  activeVersion: number | null;
  discoveredTarget: Target | null;
  targets: Target[];
  defaults: unknown;
  defaultsEffect: string | null;
  ruleCount: number;
  statusCounts: { active: number; disabled: number };
  rules: {
    id: string | null;
    status: string | null;
    priority: number | null;
    effect: string | null;
    target: Target | null;
  }[];
}

/** What `policies list` found (`records`: the draft's policies, as written). */
export interface ListPoliciesPlan {
  policies: ListedPolicy[];
  ruleCount: number;
  records: DraftPolicy[];
}

/** The declaration of `policies list`. */
export const LIST_POLICIES_SPEC: CommandSpec = {
  name: "policies list",
  usage: "policies list",
  summary: [
    "Lists the policies of the draft (draft.path) in their order: key, the target analyze",
    "found in the code (discoveredTarget) and the targets the rules name, the default, and",
    "each rule (id, status, priority, effect) with the count of active and disabled rules.",
    "It reads the draft and writes nothing; 'policy validate' checks it.",
  ].join("\n"),
  flags: {},
  examples: ["policy policies list", "policy policies list --format json"],
};

/** The policies of `draft` as `policies list` shows them. */
export function planListPolicies(draft: DraftDocument): ListPoliciesPlan {
  const records = draft.policies.filter((p): p is DraftPolicy => isRecord(p));
  return { policies: records.map(listed), ruleCount: countRules(draft.policies), records };
}

function render(out: Output, { policies, ruleCount, records }: ListPoliciesPlan, file: string) {
  out.info(
    `the draft ${file}: ${plural(policies.length, "policy", "policies")}, ${
      plural(ruleCount, "rule")
    }`,
  );
  if (policies.length === 0) {
    out.info(
      "add policies with 'policy analyze' (from the code) or 'policy policies update-policy --create'",
    );
  }
  records.forEach((policy, i) => {
    const p = policies[i]!;
    const targets = p.discoveredTarget !== null ? [p.discoveredTarget] : p.targets;
    const defaults = isRecord(policy.defaults) ? policy.defaults : undefined;
    out.line(
      [
        p.policyKey,
        targets.length === 0 ? "(no target)" : targets.map(describeTarget).join(", "),
        `default ${
          defaults === undefined
            ? "(none)"
            : describeEffect(String(defaults.effect), defaults as EffectLike)
        }`,
        `${
          plural(p.ruleCount, "rule")
        }: ${p.statusCounts.active} active, ${p.statusCounts.disabled} disabled`,
      ].join("  "),
    );
    const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
    const width = Math.max(0, ...p.rules.map((r) => String(r.id).length));
    rules.forEach((rule, j) => {
      out.line(`  ${String(p.rules[j]!.id).padEnd(width)}  ${describeRuleBriefly(rule)}`);
    });
  });
}

/** Lists the draft's policies. */
export const runListPolicies = defineCommand(LIST_POLICIES_SPEC, async (session) => {
  const out = session.out;
  const { file } = await draftDocument(session);
  const plan = planListPolicies(
    asEditableDraft((await readDraftDocument(session, file)).value, file),
  );
  out.result(
    {
      draftPath: file,
      policyCount: plan.policies.length,
      ruleCount: plan.ruleCount,
      policies: plan.policies,
      warnings: out.warnings,
    },
    () => render(out, plan, file),
  );
  return 0;
});

/** The JSON entry of one policy; fields written by hand that are not what they should be read null. */
function listed(policy: DraftPolicy): ListedPolicy {
  const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
  const targets: Target[] = [];
  const seen = new Set<string>();
  const entries = rules.map((rule) => {
    const r = isRecord(rule) ? rule : {};
    const target = isTarget(r.target) ? r.target : null;
    if (target !== null && !seen.has(describeTarget(target))) {
      seen.add(describeTarget(target));
      targets.push({ service: target.service, resource: target.resource, action: target.action });
    }
    const effect = isRecord(r.effect) && typeof r.effect.type === "string" ? r.effect.type : null;
    return {
      id: typeof r.id === "string" ? r.id : null,
      status: typeof r.status === "string" ? r.status : null,
      priority: typeof r.priority === "number" ? r.priority : null,
      effect,
      target,
    };
  });
  const discovered = policy.discoveredTarget;
  const defaults = isRecord(policy.defaults) ? policy.defaults : null;
  return {
    policyKey: String(policy.policyKey),
    friendlyName: typeof policy.friendlyName === "string" ? policy.friendlyName : null,
    activeVersion: typeof policy.activeVersion === "number" ? policy.activeVersion : null,
    discoveredTarget: isTarget(discovered)
      ? { service: discovered.service, resource: discovered.resource, action: discovered.action }
      : null,
    targets,
    defaults,
    defaultsEffect: defaults !== null && typeof defaults.effect === "string"
      ? defaults.effect
      : null,
    ruleCount: rules.length,
    statusCounts: {
      active: entries.filter((r) => r.status === "active").length,
      disabled: entries.filter((r) => r.status === "disabled").length,
    },
    rules: entries,
  };
}
