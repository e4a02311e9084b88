// This module is browser compatible.
/**
 * What every guard (web, Hono, Express) does with a request: its target and
 * context from the user's functions, `evaluate`, then the enforcer.
 *
 * @module
 */
import { PolicyError } from "../engine/policy_error.ts";
import { createEnforcer } from "./create_enforcer.ts";
import type { GuardOptions, Verdict } from "./types.ts";

/** The verdict function of a guard; checks the options once. */
export function guardVerdict<Req>(options: GuardOptions<Req>): (request: Req) => Promise<Verdict> {
  if (typeof options !== "object" || options === null) {
    throw new PolicyError("INVALID_OPTIONS", "a guard needs { client, target, context? }");
  }
  const { client, target, context } = options;
  if (typeof client?.evaluate !== "function") {
    throw new PolicyError("INVALID_OPTIONS", "client must be a policy client (or { evaluate })");
  }
  if (typeof target !== "function") {
    throw new PolicyError("INVALID_OPTIONS", "target must be a function: request → target");
  }
  if (context !== undefined && typeof context !== "function") {
    throw new PolicyError("INVALID_OPTIONS", "context must be a function: request → context");
  }
  const enforcer = createEnforcer(options);
  return async (request) => {
    const requestTarget = await target(request);
    const requestContext = context === undefined ? undefined : await context(request);
    const decision = client.evaluate(
      requestContext === undefined
        ? { target: requestTarget }
        : { target: requestTarget, context: requestContext },
    );
    return await enforcer.enforce(decision, requestContext);
  };
}
