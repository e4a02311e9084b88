/**
 * The local and remote clients: load a verified bundle, keep it current,
 * evaluate in-process.
 *
 * @module
 */
export * from "./types.ts";
