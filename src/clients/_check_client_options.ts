// The clients' options (docs/local-client.md "Options", docs/remote.md
// "Options"): the fields both clients take, key material included, checked
// with the library's one option checker (`_internal/check_options.ts`).
import { EVALUATE_FIELDS } from "../engine/evaluate.ts";
import {
  booleanField,
  bytesField,
  type Fields,
  functionField,
  objectField,
  rateField,
  stringListField,
} from "../_internal/check_options.ts";
import { importVerifyKey } from "../verify/import_key.ts";
import { verifyField, verifyKeyList, type VerifyKeyOptions } from "../verify/verify_keys.ts";
import { FRESHNESS_FIELDS } from "../verify/verify_freshness.ts";
import { telemetryField } from "../telemetry/telemetry_field.ts";

/** The most context keys `decisionLog.maskContextKeys` may list. */
export const MAX_MASKED_KEYS = 256;

/** The options every client accepts (see `ClientOptions`). */
export const COMMON_FIELDS: Fields = {
  verify: verifyField,
  onError: functionField,
  // parseCustomEffect and contextPolicy, as the engine's evaluator takes them.
  ...EVALUATE_FIELDS,
  maxFileBytes: bytesField,
  allowRollback: booleanField,
  ...FRESHNESS_FIELDS,
  onDecision: functionField,
  decisionLog: objectField({
    sampleRate: rateField,
    maskContextKeys: stringListField(MAX_MASKED_KEYS),
  }, "{ sampleRate?, maskContextKeys? }"),
  telemetry: telemetryField,
};

/**
 * Imports every trusted key of a checked `verify` option, so that a bad key
 * fails creation (`INVALID_KEY`) even when no bundle needs it, and every
 * later load reuses the imported keys. Undefined stays undefined.
 *
 * @throws {PolicyError} `INVALID_KEY`.
 */
export async function importTrustedKeys(
  verify: unknown,
): Promise<readonly VerifyKeyOptions[] | undefined> {
  if (verify === undefined) return undefined;
  return await Promise.all(
    verifyKeyList(verify).map(async (key) => ({
      algorithm: key.algorithm,
      publicKey: await importVerifyKey(key.algorithm, key.publicKey),
      ...(key.keyId !== undefined && { keyId: key.keyId }),
    })),
  );
}
