// This module is browser compatible.
/**
 * What every guard (web, Hono, Express) does with a request: its target and
 * context from the user's functions, `evaluate`, then the enforcer.
 *
 * @module
 */
import {
  checkOptions,
  describeValue,
  type Fields,
  functionField,
  required,
} from "../_internal/check_options.ts";
import { ENFORCER_FIELDS, enforcerOf } from "./_enforcer.ts";
import type { GuardOptions, Verdict } from "./types.ts";

/** The options of every guard: the enforcer's, and where a request's target and context come from. */
const GUARD_FIELDS: Fields = {
  ...ENFORCER_FIELDS,
  client: required({
    check: (value) =>
      typeof (value as { evaluate?: unknown } | null)?.evaluate === "function"
        ? undefined
        : `must be a policy client (or { evaluate }); got ${describeValue(value)}`,
  }),
  target: required(functionField),
  context: functionField,
};

/**
 * The verdict function of a guard; checks the options once (`caller` names
 * the guard in messages).
 */
export function guardVerdict<Req>(
  options: GuardOptions<Req>,
  caller: string,
): (request: Req) => Promise<Verdict> {
  checkOptions(options, GUARD_FIELDS, caller);
  const { client, target, context } = options;
  const enforcer = enforcerOf(options);
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
