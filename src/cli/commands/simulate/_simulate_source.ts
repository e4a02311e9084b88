/**
 * What `policy simulate` evaluates (`docs/cli.md`, "simulate"): the bundle,
 * loaded by the library's pipeline and verified when a key is configured, or
 * with `--draft` the bundle the draft builds to, made by the same code as
 * `build` and loaded by the same pipeline, without writing anything.
 *
 * @module
 */
import type { CompiledBundle } from "../../../engine/compile_bundle.ts";
import { PolicyError } from "../../../public/policy_error.ts";
import type { LoadedBundle } from "../../../verify/load_bundle.ts";
import type { Session } from "../../kit/session.ts";
import {
  bundleText,
  inFile,
  inspectBundleFile,
  loadBundleFile,
  loadBundleText,
  readBundleFileUnverified,
} from "../../kit/bundle.ts";
import { bundleDocument, draftDocument, explainUnbuilt } from "../../kit/documents.ts";
import { bundleFromDraft, readValidDraft } from "../../kit/build_bundle.ts";
import { withHint } from "../../kit/errors.ts";
import { mergeSigningBlocks } from "../../kit/signing.ts";
import { DEFAULT_HMAC_SECRET_ENV } from "../../kit/key_text.ts";
import { resolveVerifyKey, verifyAlgorithm } from "../../kit/verify_key.ts";

/** How the signature of what was evaluated was treated. */
export interface Verification {
  /**
   * `verified` with the configured key; `unverified`: signed, but no key is
   * configured (a warning says how to configure one); `unsigned`: no key is
   * configured and the bundle has no signature; `skipped`: `--skip-verify`;
   * `draft`: `--draft`, which has no signature.
   */
  status: "verified" | "unverified" | "unsigned" | "skipped" | "draft";
  /** The signature's algorithm, when it has one and it was looked at. */
  algorithm: string | null;
  /** The signature's key id, when it has one and it was looked at. */
  keyId: string | null;
  /** Where the verifying key came from (a path or a variable name, never the key). */
  keySource: string | null;
}

/** What `simulate` evaluates. */
export interface SimulationSource {
  /** The bundle, or with `--draft` the draft, absolute. */
  file: string;
  source: "bundle" | "draft";
  compiled: CompiledBundle;
  verification: Verification;
}

/** The bundle (or with `--draft` the draft's bundle) that `simulate` evaluates. */
export async function simulationSource(session: Session): Promise<SimulationSource> {
  if (session.has("draft")) return await fromDraft(session);
  const document = await bundleDocument(session);
  try {
    return await fromBundle(session, document.file);
  } catch (error) {
    // A bundle never built: build it, or evaluate the draft as it stands.
    throw await explainUnbuilt(
      session,
      error,
      document,
      "add --draft to evaluate the draft as it stands",
    );
  }
}

/**
 * The draft as the bundle `build` would make of it (same checks, same
 * projection, same load pipeline; no version, licence or signature, and
 * nothing written).
 */
async function fromDraft(session: Session): Promise<SimulationSource> {
  const config = await session.config();
  const { file } = await draftDocument(session);
  const draft = await readValidDraft(session, file);
  const { env, orgId, projectId } = config.build;
  const { bundle } = await bundleFromDraft(draft, {
    env,
    ...(orgId !== null && { orgId }),
    ...(projectId !== null && { projectId }),
  });
  const loaded = await loadBundleText(session, file, bundleText(bundle));
  session.out.note(`evaluating the draft ${file} as the bundle built from it would decide`);
  return {
    file,
    source: "draft",
    compiled: loaded.compiled,
    verification: { status: "draft", algorithm: null, keyId: null, keySource: null },
  };
}

/**
 * The bundle through the library's load pipeline. With a configured key
 * (found as `inspect` finds it) it must verify, as in a client given that
 * key. Without one, an unsigned bundle loads as with `allowUnsigned`, and a
 * signed one is evaluated unverified with a warning (`--strict`: refused).
 * `--skip-verify` evaluates a bundle whose signature is not to be checked;
 * its checksum must still match.
 */
async function fromBundle(session: Session, file: string): Promise<SimulationSource> {
  const config = await session.config();
  const nothing = { algorithm: null, keyId: null, keySource: null };
  // Every usage error before anything is read.
  const keyAlgorithm = verifyAlgorithm(session);
  if (session.has("skip-verify")) {
    session.out.note("signature verification skipped (--skip-verify)");
    const seen = await readBundleFileUnverified(session, file);
    return {
      file,
      source: "bundle",
      compiled: seen.compiled,
      verification: { status: "skipped", ...nothing },
    };
  }
  const key = await resolveVerifyKey(session, {
    publicKeyFlag: session.string("public-key"),
    signing: mergeSigningBlocks(config.build.signing, config.sign.signing),
    conventionalHmacSecret: true,
    algorithm: keyAlgorithm,
  });
  if (key !== null) {
    session.out.note(`verifying the signature with ${key.algorithm} key from ${key.source}`);
    const loaded: LoadedBundle = await loadBundleFile(session, file, key);
    const signature = loaded.status.signature;
    return {
      file,
      source: "bundle",
      compiled: loaded.compiled,
      verification: signature.status === "verified"
        ? {
          status: "verified",
          algorithm: signature.algorithm,
          // The id the signature records: the CLI's keys carry none of their own.
          keyId: signature.claimedKeyId ?? signature.keyId,
          keySource: key.source,
        }
        : { status: "unsigned", ...nothing },
    };
  }
  session.out.note("no verification key configured");
  // The pipeline, reporting integrity failures: only "signed, no key to check it" is evaluated.
  const seen = await inspectBundleFile(session, file, null);
  const failure = seen.integrity;
  if (failure === null) {
    return {
      file,
      source: "bundle",
      compiled: seen.compiled,
      verification: { status: "unsigned", ...nothing },
    };
  }
  if (failure.code !== "BUNDLE_SIGNATURE_UNVERIFIED") throw inFile(failure, file);
  const { algorithm, keyId } = seen.document.signature!;
  const unverified = `${file} is signed (${algorithm}, key id ${JSON.stringify(keyId)})`;
  const how = howToConfigureKey(algorithm);
  if (session.global.strict) {
    throw withHint(
      new PolicyError(
        "BUNDLE_SIGNATURE_UNVERIFIED",
        `${unverified} but no verification key is configured, which --strict refuses`,
      ),
      `${how}, or pass --skip-verify to evaluate it without checking its signature`,
    );
  }
  session.out.warn(
    "SIGNATURE_NOT_VERIFIED",
    `${unverified}, but no verification key is configured, so its signature was not verified; ${how}`,
  );
  return {
    file,
    source: "bundle",
    compiled: seen.compiled,
    verification: { status: "unverified", algorithm, keyId, keySource: null },
  };
}

/** How to configure a key that verifies `algorithm`, in flags, variables and config fields. */
function howToConfigureKey(algorithm: string): string {
  return algorithm === "HMAC_SHA256"
    ? `to verify it, set ${DEFAULT_HMAC_SECRET_ENV} to the secret, or name the variable holding it in build.signing.hmacSecretEnv`
    : "to verify it, pass --public-key <path>, set POLICY_PUBLIC_KEY_PATH or POLICY_PUBLIC_KEY, or set signature.publicKeyPath in policy.config.json";
}

/** For example `verified (ECDSA_SHA_256, key id release-1)`. */
export function describeVerification(v: Verification): string {
  switch (v.status) {
    case "verified":
      return `verified (${v.algorithm}, key id ${v.keyId})`;
    case "unverified":
      return `unverified (${v.algorithm}, key id ${v.keyId}; no key configured)`;
    case "unsigned":
      return "unsigned (no key configured, and the bundle has no signature)";
    case "skipped":
      return "not verified (--skip-verify)";
    case "draft":
      return "none (the draft, evaluated as the bundle built from it would decide)";
  }
}
