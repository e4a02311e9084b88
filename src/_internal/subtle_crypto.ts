// This module is browser compatible.
// The one way the library reaches WebCrypto's SubtleCrypto (docs/errors.md
// WEBCRYPTO_UNAVAILABLE): where the runtime does not offer it, a coded error
// that says why, instead of "cannot read properties of undefined".
import { PolicyError } from "../public/policy_error.ts";

/**
 * `globalThis.crypto.subtle`, or a `WEBCRYPTO_UNAVAILABLE` error. Browsers
 * define `crypto.subtle` only in secure contexts (HTTPS, `localhost`,
 * `127.0.0.1`, `file:`); server runtimes (Node 20+ among them) and the
 * workers of edge platforms always have it.
 *
 * @throws {PolicyError} `WEBCRYPTO_UNAVAILABLE`.
 */
export function subtleCrypto(): SubtleCrypto {
  const subtle = (globalThis.crypto as Crypto | undefined)?.subtle;
  if (subtle !== undefined) return subtle;
  const insecure = (globalThis as { isSecureContext?: boolean }).isSecureContext === false;
  throw new PolicyError(
    "WEBCRYPTO_UNAVAILABLE",
    insecure
      ? "WebCrypto (crypto.subtle) is not available because this page is not a secure context: browsers offer it only to pages served over HTTPS or from localhost; serve the page over HTTPS (or from localhost while developing)"
      : "WebCrypto (crypto.subtle) is not available in this runtime: checksums and signatures need it; use a runtime that provides globalThis.crypto.subtle (Node 20 or later, a browser page served over HTTPS or from localhost, an edge worker)",
  );
}
