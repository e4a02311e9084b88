import type { EvaluationRequest, Target } from "@acme/policy";
import { policy } from "../policy.ts";

// The request comes from the caller: cannot be resolved statically.
export function authorize(req: EvaluationRequest) {
  return policy.evaluate(req);
}

// The target comes from the caller.
export function authorizeTarget(target: Target, tenant: string) {
  return policy.evaluate({ target, context: { tenant } });
}

// The action is computed at run time.
export function authorizeAction(action: string) {
  return policy.evaluate({ target: { service: "billing", resource: "invoice", action } });
}
