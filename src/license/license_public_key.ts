/**
 * The issuer's public key that checks toolkit licences, built into the CLI.
 * Only its private half can issue licences, and it is not in this
 * repository. `POLICY_LICENSE_PUBLIC_KEY` replaces it, for development
 * against a stub issuer only (`docs/license.md`).
 *
 * @module
 */

/** The key id licences signed with {@link BUILT_IN_LICENSE_PUBLIC_KEY} carry (informational). */
export const BUILT_IN_LICENSE_KEY_ID = "policy-license-2026-1";

/** ECDSA P-256 public key (SPKI PEM) of the licence issuer. */
export const BUILT_IN_LICENSE_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEt/3ST+c4X4szCN0+Wc9iGM93W2NO
/8XW8iARpdlfkLqYfjoFQ6tuzK5+ZI4v69Dw2nDAQ7jfbr6Uk2f2UccJoA==
-----END PUBLIC KEY-----
`;
