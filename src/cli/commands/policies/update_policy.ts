/**
 * `policy policies update-policy`: sets a policy's default (and optionally
 * its active version or friendly name) in the draft; with `--create`, it
 * creates the policy when the draft does not have it yet (without it, an
 * unknown key is `POLICY_NOT_FOUND` naming the closest one: a typo must not
 * create a policy).
 *
 * @module
 */
import type { EffectType, PolicyDefault } from "../../../engine/types.ts";
import { EFFECT_TYPES } from "../../../public/vocabulary.ts";
import { validateBundle } from "../../../engine/validate_bundle.ts";
import { CliError, usageError } from "../../kit/errors.ts";
import type { Session } from "../../kit/session.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import type { Output } from "../../kit/output.ts";
import { findPolicy, requirePolicy } from "../../kit/draft.ts";
import { type DraftDocument, type DraftPolicy, projectPolicies } from "../../../authoring/draft.ts";
import { describeEffect } from "../../kit/describe.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";

/** `--defaults-effect none`: the policy has no default. */
const NO_DEFAULT = "none";

/** Descriptor flags and the effect each belongs to. */
const DESCRIPTOR_FLAGS: Readonly<Record<string, EffectType>> = {
  "kill-switch-service": "kill_switch",
  "kill-switch-reason": "kill_switch",
  "throttle-limit": "throttle",
  "throttle-window-seconds": "throttle",
  "throttle-key": "throttle",
  "custom-effect": "custom",
};

/** What `policies update-policy` takes. */
export interface UpdatePolicyParameters {
  policyKey: string;
  /** Create the policy when the draft does not have it. */
  create: boolean;
  /** The new default; null: remove it; undefined: leave it. */
  defaults: PolicyDefault | null | undefined;
  activeVersion: number | undefined;
  friendlyName: string | undefined;
}

/** What `policies update-policy` did (`previous`: the default before). */
export type UpdatePolicyPlan =
  & EditPlan<{
    policyKey: string;
    created: boolean;
    activeVersion: number;
    defaultsEffect: EffectType | null;
    defaults: PolicyDefault | null;
    ruleCount: number;
  }>
  & { previous: PolicyDefault | null; removed: boolean };

/** The declaration of `policies update-policy`. */
export const UPDATE_POLICY_SPEC: CommandSpec = {
  name: "policies update-policy",
  usage:
    "policies update-policy --policy-key <key> --defaults-effect <effect>|none [descriptor flags] [--create]",
  summary: [
    "Sets the default of a policy in the draft: the effect that applies when none of its",
    "rules fires; --defaults-effect none removes it. A key the draft does not have is",
    "POLICY_NOT_FOUND (naming the closest key it has) unless --create is given, which",
    "creates the policy (active version 1). kill_switch needs --kill-switch-service;",
    "throttle needs --throttle-limit, --throttle-window-seconds and --throttle-key; custom",
    "needs --custom-effect. A default applies at the targets the policy's rules name.",
  ].join("\n"),
  flags: {
    "policy-key": { type: "string", value: "<key>", description: "the policy to change" },
    create: {
      type: "boolean",
      description: "create the policy when the draft does not have it",
    },
    "defaults-effect": {
      type: "string",
      value: "<effect>",
      choices: [...EFFECT_TYPES, "none"],
      description: "allow, deny, throttle, kill_switch, custom, or none (remove the default)",
    },
    "kill-switch-service": {
      type: "string",
      value: "<service>",
      description: "kill_switch: the service switched off",
    },
    "kill-switch-reason": {
      type: "string",
      value: "<text>",
      description: "kill_switch: why (optional)",
    },
    "throttle-limit": {
      type: "string",
      value: "<n>",
      description: "throttle: requests allowed per window",
    },
    "throttle-window-seconds": {
      type: "string",
      value: "<n>",
      description: "throttle: window length in seconds",
    },
    "throttle-key": {
      type: "string",
      value: "<key>",
      description: "throttle: bucketing dimension (tenant, user, ip, ...)",
    },
    "custom-effect": {
      type: "string",
      value: "<value>",
      description: "custom: the value (a string, often JSON)",
    },
    "active-version": {
      type: "string",
      value: "<n>",
      description: "also set the policy's active version",
    },
    "friendly-name": {
      type: "string",
      value: "<name>",
      description: "also set the policy's friendly name",
    },
  },
  examples: [
    "policy policies update-policy --policy-key billing.invoice.create --defaults-effect deny",
    "policy policies update-policy --create --policy-key search.query --defaults-effect throttle --throttle-limit 100 --throttle-window-seconds 60 --throttle-key tenant",
    "policy policies update-policy --policy-key billing.invoice.create --defaults-effect none",
  ],
};

/** The parameters from the command line. */
function parameters(session: Session): UpdatePolicyParameters {
  const policyKey = session.requireString("policy-key");
  const effect = session.choice("defaults-effect", [...EFFECT_TYPES, NO_DEFAULT]);
  const activeVersion = session.number("active-version");
  const friendlyName = session.string("friendly-name");
  if (effect === undefined && activeVersion === undefined && friendlyName === undefined) {
    throw usageError(
      "'policy policies update-policy' needs --defaults-effect (or --active-version / --friendly-name)",
      "run 'policy policies update-policy --help' for its flags",
    );
  }
  // null: remove the default.
  const defaults = effect === undefined
    ? undefined
    : effect === NO_DEFAULT
    ? null
    : defaultsFromFlags(session, effect);
  if (effect === NO_DEFAULT) {
    const given = Object.keys(DESCRIPTOR_FLAGS).find((flag) => session.has(flag));
    if (given !== undefined) {
      throw usageError(
        `--${given} applies to --defaults-effect ${DESCRIPTOR_FLAGS[given]}, not none`,
      );
    }
  }
  return { policyKey, create: session.has("create"), defaults, activeVersion, friendlyName };
}

/**
 * Sets the default, active version or friendly name of policy `policyKey`
 * of `draft` (created first with `create` when the draft lacks it); the
 * default is checked with the engine's rules.
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, `DEFAULTS_INVALID`.
 */
export function planUpdatePolicy(
  draft: DraftDocument,
  { policyKey, create, defaults, activeVersion, friendlyName }: UpdatePolicyParameters,
): UpdatePolicyPlan {
  const created = create && findPolicy(draft, policyKey) === undefined;
  if (created) {
    draft.policies.push({ policyKey, activeVersion: 1, friendlyName: policyKey, rules: [] });
  }
  const policy = requirePolicy(
    draft,
    policyKey,
    "pass --create to create a new policy, or correct --policy-key",
  );
  if (activeVersion !== undefined) policy.activeVersion = activeVersion;
  if (friendlyName !== undefined) policy.friendlyName = friendlyName;
  const previous = policy.defaults ?? null;
  if (defaults === null) {
    delete policy.defaults;
  } else if (defaults !== undefined) {
    checkDefaults(policy, defaults);
    policy.defaults = defaults;
  }
  // A policy with a default and no rules yet is the usual state between 'analyze' (or
  // --create) and 'add-rule': the text says so, and validate and build warn
  // (DEFAULTS_UNREACHABLE) if it is still so when the bundle is made.
  const shown = policy.defaults;
  return {
    document: {
      policyKey,
      created,
      activeVersion: policy.activeVersion,
      defaultsEffect: shown?.effect ?? null,
      defaults: shown ?? null,
      ruleCount: Array.isArray(policy.rules) ? policy.rules.length : 0,
    },
    changed: true,
    previous,
    removed: defaults === null,
  };
}

function render(out: Output, plan: UpdatePolicyPlan, file: string): void {
  const { document: d, previous } = plan;
  const shown = d.defaults;
  out.info(`${d.created ? "created" : "updated"} policy ${d.policyKey} in ${file}`);
  out.info(`  key:            ${d.policyKey}`);
  out.info(`  active version: ${d.activeVersion}`);
  out.info(
    `  default effect: ${
      shown === null
        ? `(none)${
          plan.removed && previous !== null
            ? `; removed ${describeEffect(previous.effect, previous)}`
            : ""
        }`
        : describeEffect(shown.effect, shown)
    }`,
  );
  out.info(
    `  rules:          ${d.ruleCount}${
      d.ruleCount === 0 && shown !== null
        ? " (the default applies at the targets the policy's rules name: add one with 'policy policies add-rule')"
        : ""
    }`,
  );
}

/** Sets a policy's default effect in the draft. */
export const runUpdatePolicy = defineDraftEdit(UPDATE_POLICY_SPEC, {
  parameters,
  plan: (draft, parameters, _inputs: undefined) => planUpdatePolicy(draft, parameters),
  render,
});

/** The default described by the flags; refuses descriptor flags of another effect. */
function defaultsFromFlags(session: Session, effect: EffectType): PolicyDefault {
  for (const [flag, owner] of Object.entries(DESCRIPTOR_FLAGS)) {
    if (session.has(flag) && owner !== effect) {
      throw usageError(`--${flag} applies to --defaults-effect ${owner}, not ${effect}`);
    }
  }
  const needs = (flag: string) => session.requireString(flag, `with --defaults-effect ${effect}`);
  switch (effect) {
    case "kill_switch": {
      const reason = session.string("kill-switch-reason");
      return {
        effect,
        killSwitch: reason === undefined
          ? { service: needs("kill-switch-service") }
          : { service: needs("kill-switch-service"), reason },
      };
    }
    case "throttle":
      needs("throttle-limit");
      needs("throttle-window-seconds");
      return {
        effect,
        throttle: {
          limit: session.number("throttle-limit")!,
          windowSeconds: session.number("throttle-window-seconds")!,
          key: needs("throttle-key"),
        },
      };
    case "custom":
      return { effect, customEffect: needs("custom-effect") };
    default:
      return { effect };
  }
}

/**
 * Checks the default with the engine's rules (a one-policy bundle), so the
 * CLI never accepts a default the runtime would reject.
 *
 * @throws {CliError} `DEFAULTS_INVALID`.
 */
function checkDefaults(policy: DraftPolicy, defaults: PolicyDefault): void {
  const [projected] = projectPolicies([{ ...policy, defaults, rules: [] }]);
  const result = validateBundle({ schemaVersion: 1, env: "prod", policies: [projected] });
  const errors = result.errors.filter((e) =>
    e.path.startsWith("/policies/0/defaults") || e.path.startsWith("/policies/0/activeVersion")
  );
  if (errors.length > 0) {
    // The engine's messages name the policy: "policy "k": a throttle default needs …".
    throw new CliError(
      "DEFAULTS_INVALID",
      `${errors.map((e) => `${e.message} (${e.code})`).join("; ")}; the draft was not changed`,
      { hint: `run 'policy policies update-policy --help' for the flags of each effect` },
    );
  }
}
