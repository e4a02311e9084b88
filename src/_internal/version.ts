// This module is browser compatible.
/**
 * The package's name and version, in one place: the remote client's
 * `User-Agent` reads them, and a test checks them against `deno.json`.
 *
 * @module
 */

/** The package name, as published (`deno.json` `name`). */
export const PACKAGE_NAME = "@policy/runtime";

/** The package version (`deno.json` `version`). */
export const PACKAGE_VERSION = "0.1.0";
