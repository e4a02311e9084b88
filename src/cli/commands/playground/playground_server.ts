/**
 * The HTTP server of `policy playground` (docs/playground.md, "A live view
 * while authoring"): the page on `/`, and on `/events` a Server-Sent Events
 * stream that sends the working folder's state when a page connects and
 * again each time it changes. It listens on 127.0.0.1 only, answers only
 * requests whose `Host` is `127.0.0.1:<port>` or `localhost:<port>` (a page
 * of another site that rebinds its name to 127.0.0.1 gets nothing), only
 * `GET` and `HEAD`, and never writes anything. `node:http`, so that it runs
 * under Deno and Node alike.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Clock } from "../../../public/clock.ts";
import type { LiveState } from "../../../authoring/live_state.ts";

/** Options of {@link startPlaygroundServer}. */
export interface PlaygroundServerOptions {
  /** The page as built (`dist/playground/page.js`: `html`, and the `csp` its meta tag holds). */
  page: { html: string; csp: string };
  /** The port on 127.0.0.1; 0 for any free one. */
  port: number;
  /** Reads the working folder's state; called at start and on every poll. */
  readState: () => Promise<LiveState>;
  /** Time between two reads of the working folder. */
  intervalMs: number;
  /** The timers of the polling. */
  clock: Clock;
  /** Told when a read fails (the previous state stays). */
  onReadError?: (error: unknown) => void;
  /** Told when a page's event stream has ended and its place is free again. */
  onStreamEnd?: () => void;
}

/** A running server. */
export interface PlaygroundServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** Reads the working folder now and pushes the state when it changed. */
  pollOnce(): Promise<void>;
  /** Stops polling, ends the event streams and closes the server. */
  close(): Promise<void>;
}

/** The path of the event stream. */
export const EVENTS_PATH = "/events";

/** The most event streams open at once (a page holds one; more is a loop somewhere). */
export const MAX_EVENT_STREAMS = 16;

/** The meta element that tells the page it is served live, and where its events are. */
const LIVE_META = `<meta name="policy-playground-live" content="${EVENTS_PATH}">`;

/**
 * The page as the server sends it: its Content-Security-Policy allows
 * connections to the server itself (`connect-src 'self'`, for the event
 * stream; the page opened as a file allows none), and it is marked live.
 *
 * @throws {Error} When the page does not hold its CSP as built (a page from another build).
 */
export function servedPage(page: { html: string; csp: string }): { html: string; csp: string } {
  const csp = servedCsp(page.csp);
  const meta = `<meta http-equiv="Content-Security-Policy" content="${page.csp}">`;
  const at = page.html.indexOf(meta);
  if (at < 0 || !page.csp.includes("connect-src 'none'")) {
    throw new Error(
      "the playground page does not hold the Content-Security-Policy it was built with",
    );
  }
  const html = page.html.slice(0, at) +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">${LIVE_META}` +
    page.html.slice(at + meta.length);
  return { html, csp };
}

function servedCsp(csp: string): string {
  return csp.replace("connect-src 'none'", "connect-src 'self'");
}

/** What the request handler and the poller of one server share. */
interface Live {
  /** The state last read, as the event stream sends it. */
  json: string;
  /** The pages following the server. */
  streams: Set<ServerResponse>;
  /** The port listened on (for the Host check). */
  port: number;
  closed: boolean;
}

/** The response headers of every answer: the page's policy, plus what only a header can say. */
function headers(csp: string, type: string): Record<string, string> {
  return {
    "content-type": type,
    "cache-control": "no-store",
    // The same policy as the page's meta tag, plus what only a header can say.
    "content-security-policy": `${csp}; frame-ancestors 'none'`,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
  };
}

/** Answers one request: the page, the event stream, or a refusal. */
function respond(
  page: { html: string; csp: string },
  live: Live,
  onStreamEnd: (() => void) | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const { port } = live;
  const text = headers(page.csp, "text/plain; charset=utf-8");
  const host = req.headers.host ?? "";
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    // DNS rebinding: another site's name resolving to 127.0.0.1 reaches the port, with its
    // own name in Host. Only the names this server was opened with are answered.
    res.writeHead(421, text);
    res.end(`policy playground answers only http://127.0.0.1:${port}/\n`);
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { ...text, allow: "GET, HEAD" });
    res.end("policy playground only reads: GET and HEAD\n");
    return;
  }
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/" || path === "/index.html") {
    res.writeHead(200, headers(page.csp, "text/html; charset=utf-8"));
    res.end(req.method === "HEAD" ? undefined : page.html);
    return;
  }
  if (path !== EVENTS_PATH) {
    res.writeHead(404, text);
    res.end("not found\n");
    return;
  }
  if (live.streams.size >= MAX_EVENT_STREAMS) {
    res.writeHead(503, text);
    res.end(`at most ${MAX_EVENT_STREAMS} pages follow one policy playground at a time\n`);
    return;
  }
  res.writeHead(200, headers(page.csp, "text/event-stream; charset=utf-8"));
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  live.streams.add(res);
  res.on("close", () => {
    live.streams.delete(res);
    onStreamEnd?.();
  });
  res.write(event(live.json));
}

/** Polls the working folder on the clock, pushing each new state to every stream. */
function startPolling(
  live: Live,
  options: PlaygroundServerOptions,
): { pollOnce(): Promise<void>; stop(): Promise<void> } {
  const { clock, intervalMs } = options;
  let timer: { handle: unknown } | null = null;
  let polling: Promise<void> | null = null;
  const poll = async () => {
    try {
      const next = JSON.stringify(await options.readState());
      if (next !== live.json && !live.closed) {
        live.json = next;
        for (const stream of live.streams) stream.write(event(live.json));
      }
    } catch (error) {
      options.onReadError?.(error);
    }
  };
  const pollOnce = (): Promise<void> => {
    polling ??= poll().finally(() => {
      polling = null;
    });
    return polling;
  };
  const schedule = () => {
    if (live.closed) return;
    const mine = {
      handle: clock.setTimeout(() => {
        if (timer !== mine) return;
        timer = null;
        void pollOnce().then(schedule);
      }, intervalMs),
    };
    timer = mine;
  };
  schedule();
  return {
    pollOnce,
    async stop() {
      if (timer !== null) clock.clearTimeout(timer.handle);
      timer = null;
      await polling;
    },
  };
}

/** Starts the server on 127.0.0.1 after a first read of the working folder. */
export async function startPlaygroundServer(
  options: PlaygroundServerOptions,
): Promise<PlaygroundServer> {
  const page = servedPage(options.page);
  const live: Live = {
    json: JSON.stringify(await options.readState()),
    streams: new Set(),
    port: 0,
    closed: false,
  };
  // Imported here: a static import would load with the CLI's bundle (tools/cli_bundle.ts) and,
  // under Deno, Node's compatibility layer at every start (docs/performance.md, "Start-up").
  const { createServer } = await import("node:http");
  const server: Server = createServer((req, res) =>
    respond(page, live, options.onStreamEnd, req, res)
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  live.port = typeof address === "object" && address !== null ? address.port : options.port;
  const polling = startPolling(live, options);
  return {
    url: `http://127.0.0.1:${live.port}/`,
    port: live.port,
    pollOnce: polling.pollOnce,
    async close() {
      if (live.closed) return;
      live.closed = true;
      await polling.stop();
      for (const stream of live.streams) stream.end();
      live.streams.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}

/** One Server-Sent Event carrying a state (JSON has no raw line breaks: one data line). */
function event(json: string): string {
  return `event: state\ndata: ${json}\n\n`;
}
