// The server of `policy playground` (src/cli/commands/playground/playground_server.ts), on a real port of
// 127.0.0.1, with the fake clock: what it answers, to whom, and what it pushes when.
import assert from "node:assert/strict";
import {
  MAX_EVENT_STREAMS,
  servedPage,
  startPlaygroundServer,
} from "../../../../src/cli/commands/playground/playground_server.ts";
import type { LiveState } from "../../../../src/authoring/live_state.ts";
import { FakeClock } from "../../../_fake_clock.ts";
import { stateEvents } from "../../_event_stream.ts";

const CSP = "default-src 'none'; script-src 'sha256-x'; connect-src 'none'; base-uri 'none'";
const PAGE = {
  html:
    `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${CSP}"><title>t</title></head><body></body></html>`,
  csp: CSP,
};

function state(text: string | null): LiveState {
  return {
    version: 1,
    workingFolder: "/w",
    document: text === null
      ? null
      : { path: "/w/policy-drafts.json", relativePath: "policy-drafts.json", text, error: null },
    suites: [],
  };
}

/** A server whose working folder holds `current.text`, polled every second on a fake clock. */
async function serve(initial = "one", onStreamEnd?: () => void) {
  const clock = new FakeClock();
  const current = { text: initial as string | null, reads: 0, fail: false };
  const server = await startPlaygroundServer({
    page: PAGE,
    port: 0,
    clock,
    intervalMs: 1000,
    ...(onStreamEnd === undefined ? {} : { onStreamEnd }),
    readState: () => {
      current.reads++;
      if (current.fail) return Promise.reject(new Error("unreadable"));
      return Promise.resolve(state(current.text));
    },
  });
  return { server, clock, current };
}

/** Sends raw HTTP (any Host header) and returns the status line and body. */
async function raw(port: number, request: string): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(request));
    let text = "";
    const buffer = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text };
  } finally {
    conn.close();
  }
}

Deno.test("the served page allows connections to its own server and is marked live", () => {
  const served = servedPage(PAGE);
  assert.equal(served.csp, CSP.replace("connect-src 'none'", "connect-src 'self'"));
  assert.ok(served.html.includes(`content="${served.csp}"`));
  assert.ok(!served.html.includes(`content="${CSP}"`));
  assert.ok(served.html.includes('<meta name="policy-playground-live" content="/events">'));
  assert.throws(() => servedPage({ html: "<html></html>", csp: CSP }), /Content-Security-Policy/);
});

Deno.test("the server sends the page with its security headers, on 127.0.0.1 only", async () => {
  const { server } = await serve();
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetch(server.url);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), servedPage(PAGE).html);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(
      response.headers.get("content-security-policy"),
      `${servedPage(PAGE).csp}; frame-ancestors 'none'`,
    );
    assert.equal(response.headers.get("x-frame-options"), "DENY");
    assert.equal(response.headers.get("cross-origin-resource-policy"), "same-origin");
    assert.equal(response.headers.get("cache-control"), "no-store");
    const head = await fetch(server.url, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const missing = await fetch(new URL("/bundle.json", server.url));
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("the server refuses other Host names (DNS rebinding) and every method but GET and HEAD", async () => {
  const { server } = await serve();
  try {
    const get = (host: string) =>
      raw(server.port, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assert.equal((await get(`127.0.0.1:${server.port}`)).status, 200);
    assert.equal((await get(`localhost:${server.port}`)).status, 200);
    for (const host of [`attacker.example:${server.port}`, "127.0.0.1", `127.0.0.1:1`, ""]) {
      const refused = await get(host);
      assert.equal(refused.status, 421, host);
      assert.ok(!refused.text.includes("<html"), "nothing of the page");
    }
    const stream = await raw(
      server.port,
      `GET /events HTTP/1.1\r\nHost: rebound.example:${server.port}\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(stream.status, 421);
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const refused = await raw(
        server.port,
        `${method} / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(refused.status, 405, method);
      assert.match(refused.text, /allow: GET, HEAD/i);
    }
  } finally {
    await server.close();
  }
});

Deno.test("the event stream sends the state at once, then only when a poll finds a change", async () => {
  const { server, clock, current } = await serve("one");
  const response = await fetch(new URL("/events", server.url));
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const stream = stateEvents(response.body!);
  try {
    assert.equal((await stream.next()).document?.text, "one");
    assert.deepEqual(clock.pendingDelays(), [1000]);
    // Unchanged: nothing is sent.
    const reads = current.reads;
    clock.tick(1000);
    await server.pollOnce();
    assert.equal(current.reads, reads + 1);
    // A change is pushed on the next poll, which the clock schedules again.
    current.text = "two";
    clock.tick(999);
    assert.equal(current.reads, reads + 1, "no read before the interval is over");
    clock.tick(1);
    await server.pollOnce();
    assert.equal((await stream.next()).document?.text, "two");
    // A failed read keeps the state (and sends nothing); a missing document is sent as null.
    current.fail = true;
    clock.tick(1000);
    await server.pollOnce();
    current.fail = false;
    current.text = null;
    clock.tick(1000);
    await server.pollOnce();
    assert.equal((await stream.next()).document, null);
    assert.equal(stream.pending(), "");
  } finally {
    await server.close();
    await stream.cancel().catch(() => {});
  }
  assert.deepEqual(clock.pendingDelays(), [], "close() leaves no timer");
});

Deno.test("at most MAX_EVENT_STREAMS pages follow the server at once", async () => {
  let ended = Promise.withResolvers<void>();
  const { server } = await serve("one", () => ended.resolve());
  const streams = [];
  try {
    for (let i = 0; i < MAX_EVENT_STREAMS; i++) {
      const response = await fetch(new URL("/events", server.url));
      assert.equal(response.status, 200);
      const stream = stateEvents(response.body!);
      await stream.next();
      streams.push(stream);
    }
    const refused = await fetch(new URL("/events", server.url));
    assert.equal(refused.status, 503);
    await refused.body?.cancel();
    // A page that leaves frees its place, once the server has seen its stream end.
    ended = Promise.withResolvers<void>();
    await streams.pop()!.cancel();
    await ended.promise;
    const again = await fetch(new URL("/events", server.url));
    assert.equal(again.status, 200);
    const stream = stateEvents(again.body!);
    await stream.next();
    streams.push(stream);
  } finally {
    await server.close();
    for (const stream of streams) await stream.cancel().catch(() => {});
  }
});
