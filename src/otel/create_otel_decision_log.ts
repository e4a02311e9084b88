/**
 * A decision-log sink that emits each record as an OpenTelemetry log record
 * (docs/observability.md "Decision logs over OTLP"), so that the
 * OpenTelemetry Collector routes them (Kafka, object storage, a SIEM).
 *
 * @module
 */
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import {
  checkOptions,
  clockField,
  durationField,
  type Fields,
  invalidOption,
  recordsField,
  required,
} from "../_internal/check_options.ts";
import type { DecisionRecord } from "../clients/types.ts";
import { telemetryField } from "../telemetry/telemetry_field.ts";
import type { OtelLogRecord, OtelTelemetry } from "./create_telemetry.ts";
import { ATTRIBUTES, EVENTS } from "./_names.ts";

/** Default `maxBufferRecords`: records waiting to be emitted; beyond, records are dropped. */
export const DEFAULT_MAX_BUFFER_RECORDS = 10_000;
/** Default `flushRecords`: this many waiting records are emitted at once. */
export const DEFAULT_FLUSH_RECORDS = 256;
/** Default `flushIntervalMs`: no record waits longer than 1 s. */
export const DEFAULT_OTEL_FLUSH_INTERVAL_MS = 1_000;

/** Options of {@link createOtelDecisionLog}. */
export interface OtelDecisionLogOptions {
  /** The telemetry whose logger emits the records, and whose counters count them. */
  telemetry: OtelTelemetry;
  /** The most records kept waiting; a record that would go over is dropped (and counted). Default 10,000. */
  maxBufferRecords?: number;
  /** Waiting records that start emitting at once. Default 256. */
  flushRecords?: number;
  /** The longest a record waits, in ms. Default 1000. */
  flushIntervalMs?: number;
  /** The clock whose timers run the flushes. Default: the system clock. */
  clock?: Clock;
}

/** What {@link OtelDecisionLog.stats} reports. */
export interface OtelDecisionLogStats {
  /** Records emitted as log records. */
  emitted: number;
  /** Records lost: buffer full, not serialisable, thrown on by the logger, or after `close()`. */
  dropped: number;
  /** Records waiting. */
  buffered: number;
}

/** A decision log that emits OpenTelemetry log records. */
export interface OtelDecisionLog extends AsyncDisposable {
  /** Pass as a client's `onDecision`. Never blocks, never throws. */
  readonly onDecision: (record: DecisionRecord) => void;
  /** Counters since creation. */
  stats(): OtelDecisionLogStats;
  /** Emits what is waiting. */
  flush(): Promise<void>;
  /** Emits what is waiting; later records are dropped. Idempotent. */
  close(): Promise<void>;
}

const FIELDS: Fields = {
  telemetry: required(telemetryField),
  maxBufferRecords: recordsField,
  flushRecords: recordsField,
  flushIntervalMs: durationField,
  clock: clockField,
};

/**
 * Creates a decision-log sink for a client's `onDecision` that emits each
 * record as an OpenTelemetry log record on `telemetry`'s logger: event name
 * `policy.decision`, the record's JSON (the line the JSON-lines writer
 * writes) as body, its timestamp, and the decision, policy, rule, target
 * and bundle as attributes. Records are serialised when they arrive (so a
 * context changed later is logged as it was) and emitted off the
 * `evaluate` path, in batches; records lost (a full buffer, a record that
 * cannot be serialised, one the SDK's logger throws on, after `close()`)
 * are counted in
 * `policy.decision_log.dropped`, sampled-out ones by the client.
 *
 * @throws {PolicyError} `INVALID_OPTIONS`: an unknown or malformed option,
 * or a telemetry without a logger (`@opentelemetry/api` 1.9 and no
 * `loggerProvider`).
 *
 * @example Records as OpenTelemetry log records
 * ```ts
 * import { createOtelDecisionLog, createTelemetry } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const emitted: { eventName?: string; body?: string }[] = [];
 * const loggerProvider = { getLogger: () => ({ emit: (record: object) => void emitted.push(record) }) };
 * const log = createOtelDecisionLog({ telemetry: createTelemetry({ loggerProvider }) });
 * log.onDecision({
 *   timestamp: "2026-01-01T00:00:00.000Z",
 *   request: { target: { service: "s", resource: "r", action: "a" } },
 *   decision: { decision: "deny", reason: "default" },
 *   bundle: { checksum: "sha256:00", bundleVersion: 1 },
 *   sampleRate: 1,
 * });
 * await log.close();
 * assert.equal(emitted[0]!.eventName, "policy.decision");
 * assert.equal(JSON.parse(emitted[0]!.body!).decision.decision, "deny");
 * ```
 */
export function createOtelDecisionLog(options: OtelDecisionLogOptions): OtelDecisionLog {
  checkOptions(options, FIELDS, "createOtelDecisionLog");
  const logger = (options.telemetry as Partial<OtelTelemetry>).logger;
  if (logger === null || logger === undefined) {
    throw invalidOption(
      "createOtelDecisionLog: the telemetry has no logger; pass createTelemetry a loggerProvider (the global one needs @opentelemetry/api 1.10 or later)",
    );
  }
  return new OtelLog(options, logger);
}

class OtelLog implements OtelDecisionLog {
  readonly #telemetry: OtelTelemetry;
  readonly #logger: { emit(record: OtelLogRecord): void };
  readonly #maxBuffer: number;
  readonly #flushRecords: number;
  readonly #flushIntervalMs: number;
  readonly #clock: Clock;
  #buffer: OtelLogRecord[] = [];
  #timer: unknown = undefined;
  /** The timer is the immediate one (the buffer reached `flushRecords`). */
  #soon = false;
  #emitted = 0;
  #dropped = 0;
  #closed = false;

  constructor(options: OtelDecisionLogOptions, logger: { emit(record: OtelLogRecord): void }) {
    this.#telemetry = options.telemetry;
    this.#logger = logger;
    this.#maxBuffer = options.maxBufferRecords ?? DEFAULT_MAX_BUFFER_RECORDS;
    this.#flushRecords = options.flushRecords ?? DEFAULT_FLUSH_RECORDS;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_OTEL_FLUSH_INTERVAL_MS;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  readonly onDecision = (record: DecisionRecord): void => {
    if (this.#closed) return this.#drop("closed");
    if (this.#buffer.length >= this.#maxBuffer) return this.#drop("buffer_full");
    let body: string;
    try {
      body = JSON.stringify(record);
    } catch {
      // A context that cannot be serialised (a cycle, a BigInt): that record only.
      return this.#drop("unserialisable");
    }
    this.#buffer.push(logRecord(record, body));
    if (this.#buffer.length >= this.#flushRecords) this.#arm(0);
    else this.#arm(this.#flushIntervalMs);
  };

  stats(): OtelDecisionLogStats {
    return { emitted: this.#emitted, dropped: this.#dropped, buffered: this.#buffer.length };
  }

  flush(): Promise<void> {
    this.#emit();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#closed = true;
    return this.flush();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #drop(reason: "closed" | "buffer_full" | "unserialisable" | "write_failed"): void {
    this.#dropped++;
    this.#telemetry.recordDecisionLogDropped(reason, 1);
  }

  /** Arms the flush timer for `ms`, unless one as soon or sooner is armed. */
  #arm(ms: number): void {
    if (this.#timer !== undefined && (this.#soon || ms !== 0)) return;
    this.#clock.clearTimeout(this.#timer);
    this.#soon = ms === 0;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#emit();
    }, ms);
  }

  /** Emits every waiting record. */
  #emit(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const records = this.#buffer;
    if (records.length === 0) return;
    this.#buffer = [];
    let emitted = 0;
    for (const record of records) {
      try {
        this.#logger.emit(record);
        emitted++;
      } catch {
        // The SDK's failure: this record is lost, and counted.
        this.#drop("write_failed");
      }
    }
    this.#emitted += emitted;
    if (emitted > 0) this.#telemetry.recordDecisionLogRecords(emitted);
  }
}

/** The log record of a decision record. */
function logRecord(record: DecisionRecord, body: string): OtelLogRecord {
  const { decision, request, bundle } = record;
  const attributes: Record<string, string | number> = {
    [ATTRIBUTES.decision]: decision.decision,
    [ATTRIBUTES.reason]: decision.reason,
    "policy.target.service": request.target.service,
    "policy.target.resource": request.target.resource,
    "policy.target.action": request.target.action,
    [ATTRIBUTES.bundleChecksum]: bundle.checksum,
    "policy.decision_log.sample_rate": record.sampleRate,
  };
  if (decision.policyKey !== undefined) attributes[ATTRIBUTES.policyKey] = decision.policyKey;
  if (decision.ruleId !== undefined) attributes[ATTRIBUTES.ruleId] = decision.ruleId;
  if (bundle.bundleVersion !== null) attributes[ATTRIBUTES.bundleVersion] = bundle.bundleVersion;
  const time = Date.parse(record.timestamp);
  return {
    eventName: EVENTS.decision,
    ...(Number.isFinite(time) && { timestamp: new Date(time) }),
    severityNumber: 9,
    severityText: "INFO",
    body,
    attributes,
  };
}
