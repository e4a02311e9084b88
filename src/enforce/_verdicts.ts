// This module is browser compatible.
/**
 * The verdicts of the enforcer, with their RFC 9457 bodies
 * (docs/enforcement.md "Answers"). Details hold numbers and texts of the
 * bundle only, never a context value.
 *
 * @module
 */
import type { Decision } from "../engine/types.ts";
import type { ProblemDetails, Proceed, Refusal, RefusalReason } from "./types.ts";

/** The media type of every refusal body (RFC 9457). */
export const PROBLEM_JSON = "application/problem+json";

/** The problem type of an exceeded throttle (draft-ietf-httpapi-ratelimit-headers, section 5.1). */
export const QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

const TITLES = { 403: "Forbidden", 429: "Quota Exceeded", 503: "Service Unavailable" } as const;

/** A verdict that lets the request go on, with `headers` for its response. */
export function proceed(decision: Decision, headers: Record<string, string> = {}): Proceed {
  return { proceed: true, decision, headers };
}

/** A refusal with a problem body; `extra` adds to the problem and `headers` to the fields. */
export function refuse(
  decision: Decision,
  reason: RefusalReason,
  status: 403 | 429 | 503,
  detail: string,
  headers: Record<string, string> = {},
  extra: Partial<ProblemDetails> = {},
): Refusal {
  return {
    proceed: false,
    decision,
    reason,
    status,
    headers: { "content-type": PROBLEM_JSON, ...headers },
    problem: { type: "about:blank", title: TITLES[status], status, detail, ...extra },
  };
}

/** `deny`, and any decision this version does not know: 403. */
export function refuseDeny(decision: Decision): Refusal {
  return refuse(decision, "deny", 403, "The policy in force does not allow this request.");
}

/** `kill_switch`: 503, naming the service and the reason the bundle gives. */
export function refuseKillSwitch(decision: Decision): Refusal {
  const service = decision.killSwitch?.service;
  const reason = decision.killSwitch?.reason;
  const what = service === undefined || service === "" ? "This service" : service;
  return refuse(
    decision,
    "kill_switch",
    503,
    `${what} is switched off by policy${reason ? `: ${reason}` : ""}.`,
  );
}

/** A throttle whose store could not answer, with `whenStoreFails: "closed"`: 503. */
export function refuseStoreUnavailable(decision: Decision): Refusal {
  return refuse(
    decision,
    "store_unavailable",
    503,
    "The request rate cannot be checked right now. Retry shortly.",
  );
}
