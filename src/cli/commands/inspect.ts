/**
 * `policy inspect`: shows a bundle's contents, or verifies its signature.
 *
 * @module
 */
import type { Effect, RuntimeBundleV1, SignatureAlgorithm } from "../../engine/types.ts";
import type { CommandSpec } from "../kit/command_spec.ts";
import type { VerifyKey } from "../kit/key_text.ts";
import type { PolicyError } from "../../public/policy_error.ts";
import type { Output } from "../kit/output.ts";
import { CliError, exitCodeFor } from "../kit/errors.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import { describeStatement, timeLeftMs } from "../kit/freshness.ts";
import { describeDuration } from "../kit/duration.ts";
import { inCliWords, inspectBundleFile } from "../kit/bundle.ts";
import { bundleDocument, explainUnbuilt } from "../kit/documents.ts";
import { countRules } from "../../authoring/draft.ts";
import { describeEffect, describeTarget } from "../kit/describe.ts";
import { mergeSigningBlocks } from "../kit/signing.ts";
import { resolveVerifyKey, VERIFY_ALGORITHM_FLAG, verifyAlgorithm } from "../kit/verify_key.ts";
import { formatCondition } from "../../engine/format_condition.ts";
import { operatorsUsed } from "../../engine/operators/visit_conditions.ts";
import { ADDED_OPERATORS } from "../../public/vocabulary.ts";

/** The declaration of `inspect`. */
export const INSPECT_SPEC: CommandSpec = {
  name: "inspect",
  usage:
    "inspect [--policies] [--signature [--public-key <path>] [--algorithm <alg>]] [--bundle <path>]",
  summary: [
    "--policies (the default) shows the bundle's metadata, the condition operators it uses,",
    "its policies and rules.",
    "--signature verifies the checksum and signature and prints status (valid or invalid),",
    "algorithm and key id; invalid exits 1. The key is, in order: --public-key (resolved",
    "from the current folder), POLICY_PUBLIC_KEY (inline), POLICY_PUBLIC_KEY_PATH,",
    "signature.publicKeyPath, then the signing blocks (sign.signing over build.signing):",
    "the HMAC secret variable, or the public half of the ECDSA private key; last,",
    "POLICY_HMAC_SECRET. A key text is PEM (SPKI blocks, text around them ignored) verifying",
    "ECDSA_SHA_256, or bare 64-hex secrets verifying HMAC_SHA256, which a public-key file or",
    "POLICY_PUBLIC_KEY may hold only with --algorithm HMAC_SHA256; anything else is",
    "INVALID_KEY. A key text may hold several keys (up to 16, during a key rotation): any of",
    "them verifies. A signed freshness statement is verified with the same keys: its status",
    "(valid, expired or invalid) and the time left are printed; expired or invalid exits 1.",
  ].join("\n"),
  flags: {
    policies: { type: "boolean", description: "show metadata, policies and rules" },
    signature: { type: "boolean", description: "verify the checksum and signature" },
    "public-key": {
      type: "string",
      value: "<path>",
      description: "verification key file, relative to the current folder",
    },
    ...VERIFY_ALGORITHM_FLAG,
    bundle: {
      type: "string",
      value: "<path>",
      description:
        "bundle to inspect, relative to the working folder (default: the configured one)",
    },
  },
  examples: [
    "policy inspect",
    "policy inspect --signature --public-key keys/public-key.pem",
    "policy inspect --bundle dist/policy-bundle.json --format json",
  ],
};

/**
 * The key `--signature` verifies with.
 *
 * @throws {CliError} `PUBLIC_KEY_MISSING` and what resolving a key throws.
 */
async function verificationKey(
  session: Session,
  algorithm: SignatureAlgorithm | undefined,
): Promise<VerifyKey> {
  const config = await session.config();
  const key = await resolveVerifyKey(session, {
    publicKeyFlag: session.string("public-key"),
    signing: mergeSigningBlocks(config.build.signing, config.sign.signing),
    conventionalHmacSecret: true,
    algorithm,
  });
  if (key === null) {
    throw new CliError("PUBLIC_KEY_MISSING", "no key to verify the signature with", {
      hint:
        "pass --public-key <path>, set POLICY_PUBLIC_KEY or POLICY_PUBLIC_KEY_PATH, or set signature.publicKeyPath",
    });
  }
  return key;
}

/**
 * The verdict of `--signature` on `bundle` from the load pipeline's outcome
 * (`failure`: what makes it untrusted, or null) and the time left on its
 * freshness statement (`leftMs`, null without one).
 */
export function planVerification(
  key: VerifyKey,
  bundle: RuntimeBundleV1,
  failure: PolicyError | null,
  leftMs: number | null,
): Verification {
  return {
    status: failure === null ? "valid" : "invalid",
    algorithm: bundle.signature?.algorithm ?? null,
    keyId: bundle.signature?.keyId ?? null,
    keySource: key.source,
    code: failure?.code ?? null,
    message: failure === null ? null : inCliWords(failure).message,
    freshness: freshnessVerification(bundle, failure, leftMs),
  };
}

/** The JSON document of `inspect` (docs/cli.md, "inspect"). */
export function inspectDocument(
  file: string,
  bundle: RuntimeBundleV1,
  showPolicies: boolean,
  verification: Verification | null,
): Record<string, unknown> {
  return {
    path: file,
    schemaVersion: 1,
    env: bundle.env,
    orgId: bundle.orgId ?? null,
    projectId: bundle.projectId ?? null,
    bundleVersion: bundle.bundleVersion ?? null,
    generatedAt: bundle.generatedAt ?? null,
    checksum: bundle.checksum ?? null,
    policyCount: bundle.policies.length,
    ruleCount: countRules(bundle.policies),
    operators: bundleOperators(bundle),
    signature: bundle.signature === undefined
      ? null
      : { algorithm: bundle.signature.algorithm, keyId: bundle.signature.keyId },
    freshness: describeStatement(bundle.freshness),
    policies: showPolicies ? describePolicies(bundle) : null,
    verification,
  };
}

function renderVerification(out: Output, verification: Verification): void {
  out.line(`signature: ${verification.status}`);
  out.line(`  algorithm: ${verification.algorithm ?? "(none)"}`);
  out.line(`  key id:    ${verification.keyId ?? "(none)"}`);
  out.info(`  key from:  ${verification.keySource}`);
  if (verification.code !== null) {
    out.line(`  reason:    ${verification.message} (${verification.code})`);
  }
  const fresh = verification.freshness;
  if (fresh !== null) {
    const left = fresh.expiresInSeconds * 1000;
    out.line(
      `freshness: ${fresh.status}, expires ${fresh.expiresAt} (${
        left >= 0 ? `in ${describeDuration(left)}` : `${describeDuration(-left)} ago`
      })`,
    );
  }
}

/** Shows a bundle or verifies its signature. */
export const runInspect = defineCommand(INSPECT_SPEC, async (session) => {
  const out = session.out;
  const showSignature = session.has("signature");
  const showPolicies = session.has("policies") || !showSignature;
  const algorithm = verifyAlgorithm(session);
  for (const flag of ["public-key", "algorithm"]) {
    if (session.has(flag) && !showSignature) {
      out.warn("PUBLIC_KEY_UNUSED", `--${flag} is only used with --signature`);
    }
  }
  await session.config();
  const document = await bundleDocument(session);
  const { file } = document;
  const key = showSignature ? await verificationKey(session, algorithm) : null;
  if (key !== null) out.note(`verifying with ${key.algorithm} key from ${key.source}`);
  // The library's load pipeline, reporting (not throwing) what makes the bundle untrusted.
  const loaded = await inspectBundleFile(session, file, key).catch(async (error) => {
    throw await explainUnbuilt(session, error, document);
  });
  const bundle = loaded.document;
  const failure = loaded.integrity;
  const verification = key === null
    ? null
    : planVerification(key, bundle, failure, timeLeftMs(session, bundle));
  if (key === null && failure?.code === "CHECKSUM_MISMATCH") {
    out.warn(failure.code, `${file}: ${failure.message}`);
  }
  const result = inspectDocument(file, bundle, showPolicies, verification);
  out.result(
    { ...result, warnings: out.warnings },
    () => {
      if (showPolicies) printPolicies(out, file, bundle, result.operators as string[]);
      if (verification !== null) renderVerification(out, verification);
    },
  );
  return verification === null || verification.code === null ? 0 : exitCodeFor(verification.code);
});

/** The result of `--signature`. */
export interface Verification {
  status: "valid" | "invalid";
  algorithm: string | null;
  keyId: string | null;
  keySource: string;
  code: string | null;
  message: string | null;
  /** The freshness statement's verdict; null when the bundle carries none. */
  freshness: FreshnessVerification | null;
}

/** The verdict on the freshness statement (`docs/cli.md`, "`inspect`"). */
export interface FreshnessVerification {
  /**
   * `valid`: it verifies and is current; `expired`: it verifies but expired
   * (clients refuse the bundle, `BUNDLE_EXPIRED`); `invalid`: it does not
   * name this bundle or does not verify (`BUNDLE_FRESHNESS_INVALID`), or
   * could not be checked because the bundle's own checks failed.
   */
  status: "valid" | "expired" | "invalid";
  expiresAt: string;
  /** Whole seconds until `expiresAt` on this machine's clock; negative once past. */
  expiresInSeconds: number;
}

/** The statement's verdict from the load pipeline's outcome, or null without a statement. */
function freshnessVerification(
  bundle: RuntimeBundleV1,
  failure: { code: string } | null,
  left: number | null,
): FreshnessVerification | null {
  const summary = describeStatement(bundle.freshness);
  if (summary === null || left === null) return null;
  return {
    status: failure === null ? "valid" : failure.code === "BUNDLE_EXPIRED" ? "expired" : "invalid",
    expiresAt: summary.expiresAt,
    expiresInSeconds: Math.floor(left / 1000),
  };
}

/** Every condition operator the bundle's rules use (docs/cli.md "inspect"). */
function bundleOperators(bundle: RuntimeBundleV1): string[] {
  return operatorsUsed(bundle.policies.flatMap((policy) => policy.rules.map((rule) => rule.when)));
}

/**
 * `  operators eq, in, rollout (rollout added after the specification's: …)`:
 * what a runtime must know to decide as this bundle says.
 */
function operatorsLine(operators: readonly string[]): string {
  if (operators.length === 0) return "  operators (none)";
  const added = operators.filter((op) => (ADDED_OPERATORS as readonly string[]).includes(op));
  const note = added.length === 0
    ? ""
    : ` (${added.join(", ")} added after the specification's: older runtimes read ${
      added.length > 1 ? "them" : "it"
    } as false)`;
  return `  operators ${operators.join(", ")}${note}`;
}

function effectType(effect: Effect | undefined): string | null {
  return effect === undefined ? null : effect.type;
}

function describePolicies(bundle: RuntimeBundleV1) {
  return bundle.policies.map((policy) => ({
    policyKey: policy.policyKey,
    activeVersion: policy.activeVersion,
    defaults: policy.defaults ?? null,
    rules: policy.rules.map((rule) => ({
      id: rule.id,
      status: rule.status,
      priority: rule.priority,
      target: rule.target,
      effect: rule.effect.type,
      hasCondition: rule.when !== undefined,
      when: rule.when ?? null,
      condition: rule.when === undefined ? null : formatCondition(rule.when),
      thenEffect: effectType(rule.thenEffect),
      elseEffect: effectType(rule.elseEffect),
      description: rule.description ?? null,
    })),
  }));
}

function printPolicies(
  out: { line(text?: string): void },
  file: string,
  bundle: RuntimeBundleV1,
  operators: readonly string[],
): void {
  out.line(`bundle ${file}`);
  out.line(
    `  env ${bundle.env}, org ${bundle.orgId ?? "(unset)"}, project ${
      bundle.projectId ?? "(unset)"
    }, version ${bundle.bundleVersion ?? "(none)"}, generated ${bundle.generatedAt ?? "(unknown)"}`,
  );
  out.line(`  checksum ${bundle.checksum ?? "(none)"}`);
  out.line(
    `  signature ${
      bundle.signature === undefined
        ? "(unsigned)"
        : `${bundle.signature.algorithm}, key id ${bundle.signature.keyId}`
    }`,
  );
  out.line(operatorsLine(operators));
  for (const policy of bundle.policies) {
    const d = policy.defaults;
    out.line(
      `policy ${policy.policyKey} (active version ${policy.activeVersion}, default ${
        d === undefined ? "(none)" : describeEffect(d.effect, d)
      })`,
    );
    for (const rule of policy.rules) {
      let effect = describeEffect(rule.effect.type, rule.effect);
      if (rule.when !== undefined) {
        const then = rule.thenEffect ?? rule.effect;
        effect = `when ${formatCondition(rule.when)} then ${describeEffect(then.type, then)}${
          rule.elseEffect === undefined
            ? ""
            : ` else ${describeEffect(rule.elseEffect.type, rule.elseEffect)}`
        }`;
      }
      out.line(
        `  rule ${rule.id} [${rule.status}] priority ${rule.priority} ${
          describeTarget(rule.target)
        }: ${effect}`,
      );
    }
  }
}
