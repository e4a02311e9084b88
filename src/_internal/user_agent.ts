// This module is browser compatible.
// The User-Agent of the remote client: package, version and runtime.
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";

/**
 * `policy-runtime/0.1.0 (@policy/runtime) Deno/2.9.6`: a product token made
 * from the package name (an HTTP token cannot hold `@` or `/`), the exact
 * package name as a comment, then the runtime's own product token when it
 * can be told without the `Deno` namespace.
 */
export function userAgent(): string {
  const product = PACKAGE_NAME.replace(/^@/, "").replace(/[^A-Za-z0-9.-]/g, "-");
  const runtime = runtimeProduct();
  return `${product}/${PACKAGE_VERSION} (${PACKAGE_NAME})${runtime === null ? "" : ` ${runtime}`}`;
}

/** `Deno/2.9.6`, `Node.js/20.20.2`, `Bun/1.1.0`, or null when unknown (browsers). */
function runtimeProduct(): string | null {
  // Deno, Bun and Node 21+ set navigator.userAgent to "<Runtime>/<version>".
  const navigatorUserAgent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator
    ?.userAgent;
  if (typeof navigatorUserAgent === "string" && /^[A-Za-z.]+\/[\w.+-]+$/.test(navigatorUserAgent)) {
    return navigatorUserAgent;
  }
  // Node 20 has no navigator.
  const node = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions
    ?.node;
  return typeof node === "string" ? `Node.js/${node}` : null;
}
