// The clients' options (docs/local-client.md "Options", docs/remote.md
// "Options"): the fields both clients take, key material included, checked
// with the library's one option checker (`_internal/check_options.ts`).
import { isPolicyError } from "../_internal/policy_error.ts";
import {
  booleanField,
  bytesField,
  describeValue,
  type Field,
  type Fields,
  functionField,
  objectField,
  required,
  stringListField,
} from "../_internal/check_options.ts";
import { importVerifyKey } from "../verify/import_key.ts";
import { verifyKeyList, type VerifyKeyOptions } from "../verify/verify_keys.ts";

/** The most context keys `decisionLog.maskContextKeys` may list. */
export const MAX_MASKED_KEYS = 256;

/** The trusted key or keys: `{ algorithm, publicKey, keyId? }` or a list of them. */
export const verifyField: Field = {
  check: (value, name) => {
    try {
      verifyKeyList(value, name);
      return undefined;
    } catch (error) {
      if (!isPolicyError(error, "INVALID_OPTIONS")) throw error;
      return error.message.startsWith(name) ? error.message : `${name}: ${error.message}`;
    }
  },
};

/** The options every client accepts (see `ClientOptions`). */
export const COMMON_FIELDS: Fields = {
  verify: verifyField,
  onError: functionField,
  parseCustomEffect: booleanField,
  contextPolicy: objectField(
    { allowedKeys: required(stringListField(Number.MAX_SAFE_INTEGER)) },
    "{ allowedKeys: string[] }",
  ),
  maxFileBytes: bytesField,
  allowRollback: booleanField,
  onDecision: functionField,
  decisionLog: objectField({
    sampleRate: {
      check: (value) =>
        typeof value === "number" && value >= 0 && value <= 1
          ? undefined
          : `must be a number from 0 to 1; got ${describeValue(value)}`,
    },
    maskContextKeys: stringListField(MAX_MASKED_KEYS),
  }, "{ sampleRate?, maskContextKeys? }"),
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
