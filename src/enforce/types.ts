// This module is browser compatible.
/**
 * Types of the enforcement layer: stores, verdicts and the options of the
 * enforcer and the guards. See `docs/enforcement.md`.
 *
 * @module
 */
import type { Decision, EvaluationRequest, Target } from "../engine/types.ts";
import type { PolicyError } from "../public/policy_error.ts";
import type { Clock } from "../public/clock.ts";
import type { Telemetry } from "../telemetry/types.ts";

/**
 * What a store answers for one request in one bucket. Times are in
 * microseconds of the store's clock (for Redis, the server's `TIME`).
 */
export interface ThrottleCount {
  /** True when the request was admitted, and counted. Refused requests are not counted. */
  admitted: boolean;
  /** Requests the bucket still admits now, after this one. */
  remaining: number;
  /** µs until the bucket's count next falls (its oldest counted slot leaves the window); -1 when nothing is counted. */
  resetMicros: number;
  /** For a refused request, µs until a request would be admitted; -1 when none ever will (limit 0); 0 when admitted. */
  retryMicros: number;
  /** The store's clock when it counted, in µs (for the Redis store, the server's `TIME`). */
  nowMicros: number;
}

/**
 * Where throttle buckets are counted. One call checks and counts one
 * request atomically: concurrent calls for one bucket never admit more
 * than the algorithm allows (docs/enforcement.md "The guarantee").
 */
export interface ThrottleStore {
  /**
   * Checks one request against `bucket` and counts it when admitted.
   * `limit` is a whole number of requests (0 admits none) and `windowMicros`
   * a whole number of µs, at least 1. Rejects when the store cannot answer;
   * the enforcer then applies `whenStoreFails`.
   */
  hit(bucket: string, limit: number, windowMicros: number): Promise<ThrottleCount>;
  /**
   * What the store is, reported as `db.system.name` with the duration of
   * its calls (docs/observability.md): `"redis"` for the Redis store,
   * `"memory"` for the memory store. Optional.
   */
  readonly system?: string;
}

/** An RFC 9457 problem details object, the body of every refusal. */
export interface ProblemDetails {
  /** A URI naming the problem type; `about:blank` when the status says it all. */
  type: string;
  /** A short summary of the problem type, the same for every occurrence. */
  title: string;
  /** The HTTP status code. */
  status: number;
  /** For people: this occurrence, and what to do. Never holds context values. */
  detail: string;
  /** Extension member of the `quota-exceeded` type: the names of the exceeded policies. */
  "violated-policies"?: string[];
}

/** The request may go on: hand it to the handler with its decision. */
export interface Proceed {
  /** Always true. */
  proceed: true;
  /** The decision, so a handler reads `custom` values (`value`, `parsedValue`). */
  decision: Decision;
  /**
   * Response header fields to add to the handler's response, lower-case
   * names: `ratelimit-policy` and `ratelimit` on throttled routes, none
   * otherwise.
   */
  headers: Record<string, string>;
}

/** Why a request is refused. */
export type RefusalReason = "deny" | "kill_switch" | "throttle" | "store_unavailable";

/** The request is refused: answer `status` with `headers` and `problem` as the body. */
export interface Refusal {
  /** Always false. */
  proceed: false;
  /** The decision that led to the refusal. */
  decision: Decision;
  /** Why: the decision, or a throttle that could not be checked (`store_unavailable`). */
  reason: RefusalReason;
  /** 403 (deny and unknown decisions), 429 (throttle exceeded) or 503 (kill switch, store unavailable). */
  status: 403 | 429 | 503;
  /**
   * Response header fields, lower-case names: `content-type`
   * (`application/problem+json`), and on throttled routes `retry-after`,
   * `ratelimit-policy` and `ratelimit`.
   */
  headers: Record<string, string>;
  /** The body, RFC 9457 problem details. */
  problem: ProblemDetails;
}

/** What {@link Enforcer.enforce} returns: go on, or refuse. */
export type Verdict = Proceed | Refusal;

/** Options of `createEnforcer`. */
export interface EnforcerOptions {
  /** Where throttle buckets are counted. Default: a new `createMemoryStore()` (one process). */
  store?: ThrottleStore;
  /**
   * What a throttled request gets when the store cannot answer (unreachable,
   * timed out, failed): `"closed"` refuses it with 503, `"open"` lets it
   * through uncounted. Default `"closed"`. Either way `onError` is called with
   * `THROTTLE_STORE_UNAVAILABLE`.
   */
  whenStoreFails?: "closed" | "open";
  /** Called with every store failure. A throw or a rejection here is ignored. */
  onError?: (error: PolicyError) => void;
  /**
   * Where the enforcer reports (docs/observability.md): a `policy.enforce`
   * span per verdict, throttles by result, the store's call durations;
   * `createTelemetry()` of `@policy/runtime/otel`. Default: none.
   */
  telemetry?: Telemetry;
  /**
   * The clock the spans and store calls are timed on, and the default
   * memory store counts on. Default: the system clock.
   */
  clock?: Clock;
}

/** Turns decisions into verdicts. */
export interface Enforcer {
  /**
   * The verdict for `decision`, evaluated with `context`: the context
   * passed to `evaluate`, where a throttle's `key` is read.
   */
  enforce(decision: Decision, context?: Record<string, unknown>): Promise<Verdict>;
}

/** Anything that evaluates: a `PolicyClient`, or `{ evaluate }` around an `Evaluator`. */
export interface EvaluatesRequests {
  /** Evaluates one request. */
  evaluate(request: EvaluationRequest): Decision;
}

/** Options of the guards (`createGuard`, `honoGuard`, `expressGuard`). */
export interface GuardOptions<Req> extends EnforcerOptions {
  /** The policy client (or `{ evaluate }`) whose decisions the guard enforces. */
  client: EvaluatesRequests;
  /** The target of a request. */
  target: (request: Req) => Target | Promise<Target>;
  /** The context of a request: what the conditions and a throttle's `key` read. Default: none. */
  context?: (
    request: Req,
  ) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
}
