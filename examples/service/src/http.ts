/** Turning a policy decision into an HTTP refusal, or nothing when the request may go on. */
import type { Decision } from "../../../mod.ts";

/** The response that refuses the request, or null when the decision lets it through. */
export function refusal(decision: Decision, overLimit: () => boolean): Response | null {
  switch (decision.decision) {
    case "allow":
    case "custom":
      return null;
    case "throttle":
      // The engine only signals the limit; counting requests is the service's job.
      return overLimit()
        ? new Response("too many requests", {
          status: 429,
          headers: { "retry-after": String(decision.throttle?.windowSeconds ?? 60) },
        })
        : null;
    case "kill_switch":
      return new Response(decision.killSwitch?.reason ?? "temporarily disabled", { status: 503 });
    default:
      return new Response("forbidden", { status: 403 });
  }
}
