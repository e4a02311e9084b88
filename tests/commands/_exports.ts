// What the command tests import from the source, in one place.
export * from "../../src/commands/mod.ts";
export { ERROR_CODES } from "../../src/engine/policy_error.ts";
