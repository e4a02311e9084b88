/** Turning a policy decision into the answer a request gets: the enforcement layer does it all. */
import type { Decision } from "../../../mod.ts";
import { type Enforcer, refusalResponse, withHeaders } from "../../../src/enforce/mod.ts";

/**
 * The refusal the decision calls for (403, 503, or 429 once the tenant's throttle bucket is
 * spent), or the handler's response with the throttle's RateLimit fields.
 */
export async function answer(
  enforcer: Enforcer,
  decision: Decision,
  context: Record<string, unknown>,
  handle: () => Response,
): Promise<Response> {
  const verdict = await enforcer.enforce(decision, context);
  return verdict.proceed ? withHeaders(handle(), verdict.headers) : refusalResponse(verdict);
}
