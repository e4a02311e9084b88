/**
 * Policy bundle runtime: load a signed JSON bundle, verify it and evaluate
 * decisions in-process.
 *
 * @module
 */
export * from "./src/engine/mod.ts";
export * from "./src/verify/mod.ts";
export * from "./src/clients/mod.ts";
