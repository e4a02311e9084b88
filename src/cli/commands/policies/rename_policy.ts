/**
 * `policy policies rename`: gives a policy of the draft another key.
 *
 * What a rename means (`docs/cli.md`, "policies rename"): the key is the
 * policy's name in decisions, not its place in the code. The
 * `discoveredTarget` stays (it is where `analyze` found the policy's
 * target, and analyze matches policies to the code by target), as do the
 * rules, the default and the active version; a `friendlyName` that was the
 * old key (what `update-policy --create` writes) follows the key.
 *
 * @module
 */
import type { Target } from "../../../engine/types.ts";
import { type DraftDocument, isTarget } from "../../../authoring/draft.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { CliError, usageError } from "../../kit/errors.ts";
import { findPolicy, LIST_HINT, requirePolicy } from "../../kit/draft.ts";
import { describeTarget } from "../../kit/describe.ts";
import type { Output } from "../../kit/output.ts";
import type { Session } from "../../kit/session.ts";
import { describeValue } from "../../../_internal/check_options.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";

/** What `policies rename` takes. */
export interface RenamePolicyParameters {
  policyKey: string;
  to: string;
}

/** What `policies rename` did (`followed`: the friendly name was the old key, and follows it). */
export type RenamePolicyPlan =
  & EditPlan<{
    policyKey: string;
    previousPolicyKey: string;
    friendlyName: string | null;
    discoveredTarget: Target | null;
    ruleCount: number;
  }>
  & { followed: boolean };

/** The declaration of `policies rename`. */
export const RENAME_POLICY_SPEC: CommandSpec = {
  name: "policies rename",
  usage: "policies rename --policy-key <key> --to <new key>",
  summary: [
    "Gives the policy <key> the key <new key>; a key the draft already has is refused",
    "(POLICY_EXISTS), an unknown <key> is POLICY_NOT_FOUND. Rules, default, active version",
    "and discoveredTarget stay: analyze matches policies to the code by target, not by key.",
    "Decisions name the new key from the next build, so decision logs, RateLimit headers",
    "and throttle counters (which start again) follow it. A friendlyName that was the old",
    "key becomes the new one.",
  ].join("\n"),
  flags: {
    "policy-key": { type: "string", value: "<key>", description: "the policy to rename" },
    to: { type: "string", value: "<new key>", description: "its new key" },
  },
  examples: [
    "policy policies rename --policy-key billing.invoice.create --to invoices.create",
    "policy policies rename --policy-key search.index.query --to search --format json",
  ],
};

function parameters(session: Session): RenamePolicyParameters {
  const policyKey = session.requireString("policy-key");
  const to = session.requireString("to");
  if (to === policyKey) {
    throw usageError(`--to ${describeValue(to)} is the policy's key already`);
  }
  return { policyKey, to };
}

/**
 * Gives policy `policyKey` of `draft` the key `to`.
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, `POLICY_EXISTS`.
 */
export function planRenamePolicy(
  draft: DraftDocument,
  { policyKey, to }: RenamePolicyParameters,
): RenamePolicyPlan {
  const policy = requirePolicy(draft, policyKey, LIST_HINT);
  if (findPolicy(draft, to) !== undefined) {
    throw new CliError(
      "POLICY_EXISTS",
      `the draft already has a policy ${describeValue(to)}; ${policyKey} was not renamed`,
      {
        hint:
          `choose another key, or remove that policy first with 'policy policies remove --policy-key ${to}'`,
      },
    );
  }
  policy.policyKey = to;
  const followed = policy.friendlyName === policyKey;
  if (followed) policy.friendlyName = to;
  return {
    document: {
      policyKey: to,
      previousPolicyKey: policyKey,
      friendlyName: typeof policy.friendlyName === "string" ? policy.friendlyName : null,
      discoveredTarget: isTarget(policy.discoveredTarget) ? policy.discoveredTarget : null,
      ruleCount: Array.isArray(policy.rules) ? policy.rules.length : 0,
    },
    changed: true,
    followed,
  };
}

function render(out: Output, { document: d, followed }: RenamePolicyPlan, file: string): void {
  const { previousPolicyKey: policyKey, policyKey: to } = d;
  out.info(`renamed policy ${policyKey} to ${to} in ${file}`);
  if (followed) out.info(`  friendly name: ${to} (it was the old key)`);
  if (d.discoveredTarget !== null) {
    out.info(
      `  discovered target: ${
        describeTarget(d.discoveredTarget)
      } (kept: analyze matches policies to the code by target)`,
    );
  }
  out.info(
    `  decisions name ${to} once the bundle is rebuilt; throttle counters of ${policyKey} start again`,
  );
}

/** Renames a policy of the draft. */
export const runRenamePolicy = defineDraftEdit(RENAME_POLICY_SPEC, {
  parameters,
  plan: (draft, parameters, _inputs: undefined) => planRenamePolicy(draft, parameters),
  render,
});
