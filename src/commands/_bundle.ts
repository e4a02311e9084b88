/**
 * Loading a bundle the way the runtime does, minus the signature: read
 * (size limit first), parse, structure (`BUNDLE_INVALID`), checksum.
 *
 * @module
 */
import type { RuntimeBundleV1 } from "../engine/types.ts";
import { PolicyError } from "../engine/policy_error.ts";
import { validateBundle } from "../engine/validate_bundle.ts";
import { computeDigest } from "../engine/canonical_payload.ts";
import type { Session } from "./_session.ts";

/**
 * The bundle file a command works on: `--bundle <path>` (from the working
 * folder) when the command has that flag and it is given, else the
 * configured bundle.
 */
export async function bundleFile(session: Session): Promise<string> {
  const flag = session.string("bundle");
  return flag === undefined
    ? (await session.config()).bundlePath
    : await session.fromWorkingFolder(flag);
}

/**
 * Reads and checks a bundle. Validation warnings are printed as warnings.
 * `checksum: false` leaves the checksum to the caller.
 *
 * @throws {PolicyError} `BUNDLE_READ_ERROR`, `BUNDLE_TOO_LARGE`,
 * `BUNDLE_PARSE_ERROR`, `BUNDLE_INVALID` (with the issues), `CHECKSUM_MISMATCH`.
 */
export async function loadBundle(
  session: Session,
  file: string,
  options: { checksum?: boolean } = {},
): Promise<RuntimeBundleV1> {
  const document = await session.readJson(file, "bundle");
  const result = validateBundle(document);
  if (!result.valid) {
    const first = result.errors[0]!;
    throw new PolicyError(
      "BUNDLE_INVALID",
      `${file} is not a valid bundle: ${first.message} (${first.code} at ${first.path || "/"})` +
        (result.errors.length > 1 ? ` and ${result.errors.length - 1} more error(s)` : "") +
        `; run 'policy validate ${file}' for the list`,
      { issues: result.errors },
    );
  }
  for (const w of result.warnings) {
    session.out.warn(w.code, `${w.message} (at ${w.path || "/"})`);
  }
  const bundle = document as RuntimeBundleV1;
  if (options.checksum !== false) await checkChecksum(bundle, file);
  return bundle;
}

/**
 * Checks the embedded checksum, when there is one.
 *
 * @throws {PolicyError} `CHECKSUM_MISMATCH`.
 */
export async function checkChecksum(bundle: RuntimeBundleV1, file: string): Promise<void> {
  if (bundle.checksum === undefined) return;
  const { checksum } = await computeDigest(bundle);
  if (checksum !== bundle.checksum) {
    throw new PolicyError(
      "CHECKSUM_MISMATCH",
      `${file}: the checksum does not match the contents; the bundle was altered or truncated after it was built`,
    );
  }
}
