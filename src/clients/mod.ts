/**
 * The local and remote clients: load a verified bundle, keep it current,
 * evaluate in-process.
 *
 * @module
 */
export * from "./types.ts";
export * from "./create_local_client.ts";
export * from "./create_remote_client.ts";
export * from "./remote_defaults.ts";
