// The browser of the playground's tests: Debian's /usr/bin/chromium driven by playwright-core
// (installed in the scratch project by run.mjs at the version deno.json pins), headless, with a
// fresh profile, and a guard that records every request a page makes and aborts those that
// leave the allowed addresses.
//
// Why Node and not Deno: playwright-core reads /proc/sys/fs/binfmt_misc/WSLInterop when it
// loads (to detect WSL), and Deno grants /proc/sys only with --allow-all, which the test task
// never gives (tests run with minimal permissions); Deno's existsSync then throws instead of
// returning false. Under Node it runs as written.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importDependency } from "./_package.mjs";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or false. */
export const skipBrowser = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

/**
 * The flags the browser runs with: nothing starts a connection of its own, and the pages of a
 * test file share one renderer process (each new tab would otherwise start one, about a third of
 * a page's CPU here; the pages are all the test's own, so site isolation guards nothing).
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--disable-site-isolation-trials",
  "--renderer-process-limit=1",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--no-default-browser-check",
];

/**
 * A fresh Chromium (its own profile folder, removed by `close`), with a
 * laptop-sized window unless told otherwise.
 */
export async function launchBrowser(viewport = { width: 1366, height: 768 }) {
  const { chromium } = await importDependency("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "policy-playground-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    acceptDownloads: false,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Records every request of the context's pages; requests to anything but
 * `allowed(url)` are aborted and listed in `refused`.
 */
export async function guardNetwork(context, allowed) {
  const requests = [];
  const refused = [];
  context.on("request", (request) => requests.push(request.url()));
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    refused.push(url);
    return route.abort("blockedbyclient");
  });
  return {
    requests,
    refused,
    /** The requests that were not allowed (none, when nothing left the page). */
    outside: () => requests.filter((url) => !allowed(url)),
  };
}
