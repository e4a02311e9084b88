// The plan steps of the `policies` subcommands, called directly on drafts in memory: what each
// edit does to the draft, what it reports and what it refuses, with no file, lock or output.
import assert from "node:assert/strict";
import type { DraftDocument } from "../../../../src/authoring/draft.ts";
import type { Warning } from "../../../../src/cli/kit/output.ts";
import { planAddRule } from "../../../../src/cli/commands/policies/add_rule.ts";
import { planRemoveRule } from "../../../../src/cli/commands/policies/remove_rule.ts";
import { planSetRuleStatus } from "../../../../src/cli/commands/policies/set_rule_status.ts";
import { planRenamePolicy } from "../../../../src/cli/commands/policies/rename_policy.ts";
import { planRemovePolicy } from "../../../../src/cli/commands/policies/remove_policy.ts";
import { planUpdatePolicy } from "../../../../src/cli/commands/policies/update_policy.ts";
import { planListPolicies } from "../../../../src/cli/commands/policies/list_policies.ts";
import {
  checkImported,
  planImport,
} from "../../../../src/cli/commands/policies/import_policies.ts";
import { importPolicies } from "../../../../src/cli/commands/policies/import_shapes.ts";
import { rule } from "../../_helpers.ts";

function draft(): DraftDocument {
  return {
    schemaVersion: "1.0",
    generatedAt: "2026-11-20T08:00:00Z",
    policies: [
      {
        policyKey: "billing",
        activeVersion: 1,
        friendlyName: "billing",
        defaults: { effect: "deny" },
        rules: [rule("paid") as never, rule("free", { status: "disabled" }) as never],
      },
    ],
  };
}

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

Deno.test("remove-rule, set-status: the plan edits the draft in place and says what it did", () => {
  const d = draft();
  const warnings: Warning[] = [];
  const removed = planRemoveRule(d, { policyKey: "billing", ruleId: "paid" }, warnings);
  assert.equal(removed.document.ruleCount, 1);
  assert.equal(removed.document.removed.id, "paid");
  assert.equal(warnings.length, 0);
  planRemoveRule(d, { policyKey: "billing", ruleId: "free" }, warnings);
  assert.deepEqual(warnings.map((w) => w.code), ["DEFAULTS_UNREACHABLE"]);
  assert.throws(
    () => planRemoveRule(d, { policyKey: "biling", ruleId: "x" }, []),
    code("POLICY_NOT_FOUND"),
  );

  const e = draft();
  const set = planSetRuleStatus(e, { policyKey: "billing", ruleId: "free", status: "active" });
  assert.deepEqual([set.changed, set.document.previousStatus], [true, "disabled"]);
  assert.equal(e.policies[0]!.rules[1]!.status, "active");
  const again = planSetRuleStatus(e, { policyKey: "billing", ruleId: "free", status: "active" });
  assert.equal(again.changed, false, "a rule already in that status is left as it is");
  assert.throws(
    () => planSetRuleStatus(e, { policyKey: "billing", ruleId: "fre", status: "active" }),
    code("RULE_NOT_FOUND"),
  );
});

Deno.test("rename, remove, update-policy: keys, defaults and what is refused", () => {
  const d = draft();
  const renamed = planRenamePolicy(d, { policyKey: "billing", to: "invoices" });
  assert.equal(renamed.followed, true, "a friendly name that was the key follows it");
  assert.equal(d.policies[0]!.friendlyName, "invoices");
  planUpdatePolicy(d, {
    policyKey: "other",
    create: true,
    defaults: { effect: "allow" },
    activeVersion: undefined,
    friendlyName: undefined,
  });
  assert.throws(
    () => planRenamePolicy(d, { policyKey: "invoices", to: "other" }),
    code("POLICY_EXISTS"),
  );
  const updated = planUpdatePolicy(d, {
    policyKey: "invoices",
    create: false,
    defaults: null,
    activeVersion: 7,
    friendlyName: undefined,
  });
  assert.deepEqual(
    [updated.document.defaults, updated.previous?.effect, updated.document.activeVersion],
    [null, "deny", 7],
  );
  assert.throws(
    () =>
      planUpdatePolicy(d, {
        policyKey: "invoices",
        create: false,
        defaults: { effect: "custom" } as never,
        activeVersion: undefined,
        friendlyName: undefined,
      }),
    code("DEFAULTS_INVALID"),
  );
  const removed = planRemovePolicy(d, "other");
  assert.deepEqual([removed.document.policyCount, removed.document.defaultsEffect], [1, "allow"]);
  assert.deepEqual(planListPolicies(d).policies.map((p) => p.policyKey), ["invoices"]);
});

Deno.test("add-rule: appends, replaces, refuses a reused id and an invalid rule", () => {
  const d = draft();
  const options = { policyKey: "billing", ruleFile: "/r.json", replace: false, strict: false };
  const added = planAddRule(d, options, rule("new", { priority: 5 }), []);
  assert.deepEqual([added.document.ruleCount, added.document.replaced], [3, false]);
  assert.throws(() => planAddRule(d, options, rule("new"), []), code("DUPLICATE_RULE_ID"));
  const replaced = planAddRule(d, { ...options, replace: true }, rule("new", { priority: 9 }), []);
  assert.deepEqual([replaced.document.ruleCount, replaced.document.priority], [3, 9]);
  const warnings: Warning[] = [];
  assert.throws(
    () => planAddRule(d, options, { ...rule("typo"), priorty: 1, priority: undefined }, warnings),
    code("RULE_INVALID"),
  );
  // With --strict, a warning refuses the rule, and is still reported.
  assert.throws(
    () => planAddRule(d, { ...options, strict: true }, { ...rule("odd"), extra: 1 }, warnings),
    code("RULE_INVALID"),
  );
  assert.deepEqual(warnings.map((w) => w.code), ["UNKNOWN_FIELD"]);
  assert.equal(d.policies[0]!.rules.length, 3, "a refused rule leaves the draft as it was");
});

Deno.test("import: checks before the draft is read, then merges and validates", () => {
  const wrapper = {
    policyKey: "search",
    env: "staging",
    activeVersion: 2,
    snapshot: { defaults: { effect: "allow" }, rules: [] },
  };
  const imported = importPolicies(wrapper, "/w.json");
  const seen: string[] = [];
  const sink = { warn: (c: string) => void seen.push(c) };
  const options = { source: "/w.json", replace: false, strict: false };
  checkImported(imported, options, "prod", sink);
  assert.deepEqual(seen, ["IMPORT_ENV_DIFFERS"]);
  const d = draft();
  const report = planImport(d, imported, options, sink);
  assert.deepEqual(report.map((p) => [p.policyKey, p.replaced]), [["search", false]]);
  assert.throws(() => planImport(d, imported, options, sink), code("IMPORT_CONFLICT"));
  assert.deepEqual(
    planImport(d, imported, { ...options, replace: true }, sink).map((p) => p.replaced),
    [true],
  );
});
