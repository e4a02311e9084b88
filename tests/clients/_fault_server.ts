/**
 * A fault-injecting HTTP server on 127.0.0.1 for the remote client tests.
 * Set {@link FaultServer.fault} to choose what every following request gets;
 * every request is recorded. Needs `--allow-net=127.0.0.1`.
 *
 * @module
 */

/** What the server answers. */
export type Fault =
  /** 200 with the body and an ETag; 304 when `If-None-Match` equals the ETag. */
  | { kind: "bundle"; body: string | Uint8Array; etag?: string | null }
  /** Any status, with optional headers and body. */
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string }
  /** Never answers (until the server closes). */
  | { kind: "hang" }
  /** 200 with the full `Content-Length`, sends `sendBytes` of the body, then breaks the connection. */
  | { kind: "drop"; body: string | Uint8Array; sendBytes: number }
  /** 200 without `Content-Length` (chunked): spaces, 1 KiB a chunk, up to `totalBytes`. */
  | { kind: "stream"; totalBytes: number };

/** A request as the server saw it. */
export interface RecordedRequest {
  method: string;
  /** The path, still percent-encoded as sent. */
  path: string;
  headers: Headers;
}

const encoder = new TextEncoder();
const bytesOf = (body: string | Uint8Array): Uint8Array<ArrayBuffer> =>
  typeof body === "string" ? encoder.encode(body) : new Uint8Array(body);

/** A running fault server. Close it with {@link FaultServer.close} (or `await using`). */
export class FaultServer implements AsyncDisposable {
  /** What the following requests get. */
  fault: Fault = { kind: "status", status: 404 };
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Bytes of `stream` bodies handed to the connection so far. */
  streamedBytes = 0;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #hanging = new Set<() => void>();
  readonly #waiters: { count: number; resolve: () => void }[] = [];

  private constructor() {
    this.#server = Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen() {},
      // A dropped body ends up here; without a handler Deno would log it.
      onError: () => new Response(null, { status: 500 }),
    }, (request) => this.#handle(request));
  }

  /** Starts a server on a free loopback port. */
  static start(fault?: Fault): FaultServer {
    const server = new FaultServer();
    if (fault !== undefined) server.fault = fault;
    return server;
  }

  /** The port the server listens on. */
  get port(): number {
    return this.#server.addr.port;
  }

  /** `http://127.0.0.1:<port>`, the client's `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The last request received. */
  get lastRequest(): RecordedRequest {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error("the fault server has received no request");
    return last;
  }

  /**
   * Resolves once `count` requests in all have arrived (at once if they
   * have): the test awaits the request itself, never a delay.
   */
  untilRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #handle(request: Request): Response | Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({
      method: request.method,
      path: request.url.slice(url.origin.length),
      headers: new Headers(request.headers),
    });
    for (const waiter of [...this.#waiters]) {
      if (this.requests.length < waiter.count) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const fault = this.fault;
    switch (fault.kind) {
      case "bundle": {
        const etag = fault.etag === undefined ? '"v1"' : fault.etag;
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (etag !== null) headers.etag = etag;
        if (etag !== null && request.headers.get("if-none-match") === etag) {
          return new Response(null, { status: 304, headers: { etag } });
        }
        return new Response(bytesOf(fault.body), { status: 200, headers });
      }
      case "status":
        return new Response(fault.body ?? null, {
          status: fault.status,
          headers: fault.headers ?? {},
        });
      case "hang":
        return new Promise<Response>((resolve) => {
          const release = () => {
            this.#hanging.delete(release);
            resolve(new Response(null, { status: 503 }));
          };
          // Released by close(); the client gives up on its own (timeout, abort).
          this.#hanging.add(release);
        });
      case "drop": {
        const body = bytesOf(fault.body);
        let pulls = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulls++ === 0) controller.enqueue(body.slice(0, fault.sendBytes));
            else controller.error(new Error("connection dropped by the fault server"));
          },
        });
        return new Response(stream, {
          status: 200,
          headers: { "content-length": String(body.byteLength), etag: '"dropped"' },
        });
      }
      case "stream": {
        const chunk = encoder.encode(" ".repeat(1024));
        let sent = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull: (controller) => {
            if (sent >= fault.totalBytes) return controller.close();
            sent += chunk.byteLength;
            this.streamedBytes += chunk.byteLength;
            controller.enqueue(chunk);
          },
        });
        return new Response(stream, { status: 200, headers: { etag: '"stream"' } });
      }
    }
  }

  /** Releases hanging requests and stops the server, waiting for its connections. */
  async close(): Promise<void> {
    for (const release of [...this.#hanging]) release();
    await this.#server.shutdown();
    await this.#server.finished;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
