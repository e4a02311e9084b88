/**
 * A JSON-lines writer for the clients' `onDecision` (docs/operations.md
 * "Decision logs"): each record is one line, buffered in memory and written
 * in the background to a file or a stream. Recording a decision never
 * blocks and never throws; a failing write (a full disk, a broken pipe)
 * loses the lines of that write, is counted and reported, and the writer
 * goes on.
 *
 * A file is opened without blocking and only when it is a regular file (a
 * named pipe with no reader fails at once instead of hanging the process),
 * and every write is bounded by `writeTimeoutMs`, so `flush()` and
 * `close()` settle even when the sink stalls.
 *
 * Uses `node:fs/promises` (loaded on first use, for `path` only) and web
 * standards, so it runs on Deno and Node 20+.
 *
 * @module
 */
import { openAppendFile } from "../io/open_append_file.ts";
import { systemErrorCode } from "../io/system_error.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";
import { clockField } from "../_internal/check_options.ts";
import { PolicyError } from "../public/policy_error.ts";
import type { DecisionRecord } from "../clients/types.ts";
import {
  bytesField,
  checkOptions,
  durationField,
  type Field,
  functionField,
  stringField,
} from "../_internal/check_options.ts";
import { callSafely } from "../_internal/call_safely.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { telemetryField } from "../telemetry/telemetry_field.ts";
import type { DecisionLogDropReason, Telemetry } from "../telemetry/types.ts";

/** Default `flushBytes`: a write starts once 64 KiB are buffered. */
export const DEFAULT_FLUSH_BYTES = 64 * 1024;
/** Default `flushIntervalMs`: no line waits in the buffer longer than 1 s. */
export const DEFAULT_FLUSH_INTERVAL_MS = 1_000;
/** Default `maxBufferBytes`: 8 MiB wait at most; beyond, lines are dropped. */
export const DEFAULT_MAX_BUFFER_BYTES = 8 * 1024 * 1024;
/** Default `writeTimeoutMs`: a write (or the release at `close()`) not done in 5 s has failed. */
export const DEFAULT_WRITE_TIMEOUT_MS = 5_000;

/** Options of {@link createDecisionLogWriter}: `path` or `stream`. */
export interface DecisionLogWriterOptions {
  /** A file the lines are appended to; created if missing (its folder must exist). */
  path?: string;
  /**
   * A stream the lines are written to (on Node, `Writable.toWeb(stream)`).
   * The writer holds its lock until `close()`, then releases it without
   * closing the stream.
   */
  stream?: WritableStream<Uint8Array>;
  /** Buffered bytes that start a write at once. Default 64 KiB. */
  flushBytes?: number;
  /** The longest a line waits before a write starts, in ms. Default 1000. */
  flushIntervalMs?: number;
  /**
   * The most bytes kept while writes are slow or failing; a line that would
   * go over is dropped (and counted). Default 8 MiB.
   */
  maxBufferBytes?: number;
  /**
   * The longest one write may take, in ms: a write the file or stream has
   * not accepted by then has failed (its lines are dropped and reported),
   * so `flush()` and `close()` settle even when the sink stalls (a full
   * pipe, a stuck stream). Releasing the sink at `close()` is bounded the
   * same way. Default 5000.
   */
  writeTimeoutMs?: number;
  /** Called with each failed write (`DECISION_LOG_WRITE_ERROR`); what it throws is ignored. */
  onError?: (error: PolicyError) => void;
  /**
   * The clock whose timers run the flush interval and the write timeout.
   * Default: the system clock.
   */
  clock?: Clock;
  /**
   * Where the lines written and lost are counted
   * (`policy.decision_log.records`, `policy.decision_log.dropped` by
   * reason: docs/observability.md); `createTelemetry()` of
   * `@policy/runtime/otel`. Default: none.
   */
  telemetry?: Telemetry;
}

/** What {@link DecisionLogWriter.stats} reports. */
export interface DecisionLogStats {
  /** Lines written. */
  written: number;
  /** Lines lost: buffer full, a failed write, or a record that cannot be serialised. */
  dropped: number;
  /** Writes that failed. */
  failedWrites: number;
  /** Bytes waiting to be written. */
  bufferedBytes: number;
}

/** A JSON-lines decision log. */
export interface DecisionLogWriter extends AsyncDisposable {
  /** Pass as a client's `onDecision`. Never blocks, never throws. */
  readonly onDecision: (record: DecisionRecord) => void;
  /** Counters since creation. */
  stats(): DecisionLogStats;
  /** Writes what is buffered; resolves once the buffer is empty (written, or dropped on failure). Never rejects. */
  flush(): Promise<void>;
  /** Flushes, then releases the file or stream. Later records are dropped. Idempotent. */
  close(): Promise<void>;
}

const FIELDS: Record<string, Field> = {
  path: stringField,
  stream: {
    check: (value) =>
      value instanceof WritableStream ? undefined : "must be a WritableStream<Uint8Array>",
  },
  flushBytes: bytesField,
  flushIntervalMs: durationField,
  maxBufferBytes: bytesField,
  writeTimeoutMs: durationField,
  onError: functionField,
  clock: clockField,
  telemetry: telemetryField,
};

/**
 * Creates a decision log writer. One line per record:
 * `{"timestamp":…,"request":…,"decision":…,"bundle":…,"sampleRate":…}`.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` (neither or both of `path` and
 * `stream`, an unknown option, a wrong value).
 *
 * @example To a stream
 * ```ts
 * import { createDecisionLogWriter } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const chunks: Uint8Array[] = [];
 * const stream = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) });
 * const log = createDecisionLogWriter({ stream });
 * log.onDecision({
 *   timestamp: "2026-01-01T00:00:00.000Z",
 *   request: { target: { service: "s", resource: "r", action: "a" } },
 *   decision: { decision: "deny", reason: "default" },
 *   bundle: { checksum: "sha256:00", bundleVersion: 1 },
 *   sampleRate: 1,
 * });
 * await log.close();
 * const text = new TextDecoder().decode(chunks[0]);
 * assert.equal(JSON.parse(text).decision.decision, "deny");
 * assert.deepEqual(log.stats(), { written: 1, dropped: 0, failedWrites: 0, bufferedBytes: 0 });
 * ```
 */
export function createDecisionLogWriter(options: DecisionLogWriterOptions): DecisionLogWriter {
  checkOptions(options, FIELDS, "createDecisionLogWriter");
  if ((options.path === undefined) === (options.stream === undefined)) {
    throw new PolicyError(
      "INVALID_OPTIONS",
      "createDecisionLogWriter: give exactly one of path (a file) and stream (a WritableStream)",
    );
  }
  return new JsonLinesWriter(options);
}

/** Where the bytes go. */
interface Sink {
  write(bytes: Uint8Array): Promise<void>;
  release(): Promise<void>;
}

function fileSink(path: string): Sink {
  let handle: Promise<import("node:fs/promises").FileHandle> | null = null;
  return {
    async write(bytes) {
      // Opened on the first write; after a failed open, the next write tries again.
      handle ??= openAppendFile(path);
      const file = await handle.catch((error) => {
        handle = null;
        throw openError(path, error);
      });
      let offset = 0;
      while (offset < bytes.byteLength) {
        const { bytesWritten } = await file.write(bytes, offset, bytes.byteLength - offset);
        offset += bytesWritten;
      }
    },
    async release() {
      const opened = handle;
      handle = null;
      await (await opened?.catch(() => null))?.close().catch(() => {});
    },
  };
}

/** A failure to open the log file, naming it, with the file system's code. */
function openError(path: string, error: unknown): Error {
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  return Object.assign(new Error(`cannot open ${path}: ${describeThrown(error)}`, { cause }), {
    code: systemErrorCode(cause),
  });
}

function streamSink(stream: WritableStream<Uint8Array>): Sink {
  const writer = stream.getWriter();
  // A stream that errors rejects `closed` too; nobody else may be waiting on it.
  writer.closed.catch(() => {});
  return {
    write: (bytes) => writer.write(bytes),
    release: () => Promise.resolve(writer.releaseLock()),
  };
}

class JsonLinesWriter implements DecisionLogWriter {
  readonly #sink: Sink;
  readonly #flushBytes: number;
  readonly #flushIntervalMs: number;
  readonly #maxBufferBytes: number;
  readonly #writeTimeoutMs: number;
  readonly #onError: ((error: PolicyError) => void) | null;
  readonly #clock: Clock;
  readonly #telemetry: Telemetry | null;
  readonly #encoder = new TextEncoder();
  #chunks: Uint8Array[] = [];
  #bufferedBytes = 0;
  #timer: unknown;
  /** The writes in progress, if any: one at a time, so lines stay in order. */
  #draining: Promise<void> | null = null;
  #written = 0;
  #dropped = 0;
  #failedWrites = 0;
  #closed = false;
  #closing: Promise<void> | null = null;

  constructor(options: DecisionLogWriterOptions) {
    this.#sink = options.path !== undefined ? fileSink(options.path) : streamSink(options.stream!);
    this.#flushBytes = options.flushBytes ?? DEFAULT_FLUSH_BYTES;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#maxBufferBytes = options.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES;
    this.#writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
    this.#onError = options.onError ?? null;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#telemetry = options.telemetry ?? null;
  }

  /** Counts lost lines, in `stats()` and in the telemetry. */
  #drop(reason: DecisionLogDropReason, count: number): void {
    this.#dropped += count;
    this.#telemetry?.recordDecisionLogDropped(reason, count);
  }

  readonly onDecision = (record: DecisionRecord): void => {
    if (this.#closed) {
      this.#drop("closed", 1);
      return;
    }
    let line: Uint8Array;
    try {
      line = this.#encoder.encode(`${JSON.stringify(record)}\n`);
    } catch {
      // A context that cannot be serialised (a cycle, a BigInt): that line only.
      this.#drop("unserialisable", 1);
      return;
    }
    if (this.#bufferedBytes + line.byteLength > this.#maxBufferBytes) {
      this.#drop("buffer_full", 1);
      return;
    }
    this.#chunks.push(line);
    this.#bufferedBytes += line.byteLength;
    if (this.#bufferedBytes >= this.#flushBytes) void this.flush();
    else this.#armTimer();
  };

  #armTimer(): void {
    this.#timer ??= this.#clock.setTimeout(() => void this.flush(), this.#flushIntervalMs);
  }

  stats(): DecisionLogStats {
    return {
      written: this.#written,
      dropped: this.#dropped,
      failedWrites: this.#failedWrites,
      bufferedBytes: this.#bufferedBytes,
    };
  }

  flush(): Promise<void> {
    this.#draining ??= (async () => {
      while (this.#chunks.length > 0) await this.#writeBuffered();
    })().finally(() => {
      this.#draining = null;
      // A line that came in as the last write ended waits for the timer.
      if (this.#chunks.length > 0) this.#armTimer();
    });
    return this.#draining;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      await this.flush();
      await this.#bounded(this.#sink.release(), "release").catch(() => {});
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Writes the whole buffer as one write. Never rejects. */
  async #writeBuffered(): Promise<void> {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const chunks = this.#chunks;
    if (chunks.length === 0) return;
    const bytes = new Uint8Array(this.#bufferedBytes);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    this.#chunks = [];
    this.#bufferedBytes = 0;
    try {
      await this.#bounded(this.#sink.write(bytes), "write");
      this.#written += chunks.length;
      this.#telemetry?.recordDecisionLogRecords(chunks.length);
    } catch (error) {
      this.#failedWrites++;
      this.#drop("write_failed", chunks.length);
      const code = systemErrorCode(error);
      const detail = describeThrown(error);
      callSafely(
        this.#onError,
        new PolicyError(
          "DECISION_LOG_WRITE_ERROR",
          `the decision log could not write ${chunks.length} lines${
            code !== undefined ? ` (${code})` : ""
          }: ${detail}; they are dropped and the log goes on`,
          { cause: error },
        ),
      );
    }
  }

  /** `operation`, or a rejection once it has taken longer than `writeTimeoutMs`. */
  #bounded(operation: Promise<void>, what: string): Promise<void> {
    // A stalled operation may still settle later: nobody waits for it then.
    operation.catch(() => {});
    const clock = this.#clock;
    const ms = this.#writeTimeoutMs;
    let handle: unknown;
    const timeout = new Promise<never>((_, reject) => {
      handle = clock.setTimeout(
        () =>
          reject(
            new Error(
              `the ${what} did not finish within writeTimeoutMs (${ms} ms): the file or stream is stalled`,
            ),
          ),
        ms,
      );
    });
    return Promise.race([operation, timeout]).finally(() => clock.clearTimeout(handle));
  }
}
