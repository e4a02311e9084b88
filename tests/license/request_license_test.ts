import assert from "node:assert/strict";
import { activationUrl, requestLicense } from "../../src/license/mod.ts";
import { activationServer, issueLicense, json } from "../_license.ts";
import { FakeClock } from "../_fake_clock.ts";

const KEY = "ACT-1234-SECRET";

Deno.test("requestLicense POSTs the activation key as JSON to <url>/v1/licenses/activate", async () => {
  const license = await issueLicense();
  await using server = activationServer(() => json(license));
  const answer = await requestLicense({ apiUrl: `${server.url}/base`, activationKey: KEY });
  assert.deepEqual(answer, license);
  const [request] = server.requests;
  assert.equal(request!.method, "POST");
  assert.equal(request!.path, "/base/v1/licenses/activate");
  assert.equal(request!.headers.get("content-type"), "application/json");
  assert.equal(request!.headers.get("accept"), "application/json");
  assert.match(
    request!.headers.get("user-agent")!,
    /^policy-runtime\/\d+\.\d+\.\d+ \(@policy\/runtime\)/,
  );
  assert.deepEqual(JSON.parse(request!.body), { activationKey: KEY });
});

Deno.test("requestLicense: a 4xx answer is ACTIVATION_REFUSED with the server's message, the key redacted", async () => {
  for (const status of [400, 401, 403, 404, 409, 410, 422]) {
    await using server = activationServer(() =>
      json({ error: { code: "KEY_REVOKED", message: `key ${KEY} was revoked\u0007` } }, status)
    );
    await assert.rejects(
      requestLicense({ apiUrl: server.url, activationKey: KEY }),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "ACTIVATION_REFUSED");
        assert.match(
          error.message,
          new RegExp(`HTTP ${status}: key <activation key> was revoked, KEY_REVOKED`),
        );
        assert.ok(!error.message.includes(KEY));
        return true;
      },
    );
  }
});

Deno.test("requestLicense: 408, 429, 5xx and other statuses are ACTIVATION_UNAVAILABLE", async () => {
  for (const status of [408, 429, 500, 502, 503, 204, 302]) {
    await using server = activationServer(() =>
      new Response(status === 204 ? null : "busy", {
        status,
        headers: status === 302 ? { location: "http://127.0.0.1:1/" } : {},
      })
    );
    await assert.rejects(requestLicense({ apiUrl: server.url, activationKey: KEY }), {
      code: "ACTIVATION_UNAVAILABLE",
    });
  }
});

Deno.test("requestLicense: a 200 that is not JSON, or too large, is ACTIVATION_UNAVAILABLE", async () => {
  {
    await using server = activationServer(() => new Response("<html>welcome</html>"));
    await assert.rejects(requestLicense({ apiUrl: server.url, activationKey: KEY }), {
      code: "ACTIVATION_UNAVAILABLE",
      message: /answered 200 but not with a JSON licence document/,
    });
  }
  {
    await using server = activationServer(() => new Response("x".repeat(70_000)));
    await assert.rejects(requestLicense({ apiUrl: server.url, activationKey: KEY }), {
      code: "ACTIVATION_UNAVAILABLE",
      message: /larger than 65536 bytes/,
    });
  }
});

Deno.test("requestLicense: no server, or no answer in time, is ACTIVATION_UNAVAILABLE", async () => {
  // A port that was just free: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await assert.rejects(
    requestLicense({ apiUrl: `http://127.0.0.1:${port}`, activationKey: KEY }),
    { code: "ACTIVATION_UNAVAILABLE", message: /cannot reach http:\/\/127\.0\.0\.1/ },
  );
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => arrived = resolve);
  await using server = activationServer(async () => {
    arrived();
    await held;
    return json({});
  });
  try {
    const clock = new FakeClock();
    const request = requestLicense({
      apiUrl: server.url,
      activationKey: KEY,
      timeoutMs: 50,
      clock,
    });
    // The request reached the server (which holds it): then the time limit passes.
    await reached;
    clock.tick(50);
    await assert.rejects(request, {
      code: "ACTIVATION_UNAVAILABLE",
      message: /did not answer within 50 ms/,
    });
  } finally {
    release();
  }
});

Deno.test("activationUrl accepts http(s) base URLs only", () => {
  assert.equal(
    activationUrl("https://licensing.example.com").href,
    "https://licensing.example.com/v1/licenses/activate",
  );
  assert.equal(
    activationUrl("https://example.com/api/").href,
    "https://example.com/api/v1/licenses/activate",
  );
  assert.throws(() => activationUrl("ftp://example.com"), { code: "INVALID_OPTIONS" });
  assert.throws(() => activationUrl("not a url"), { code: "INVALID_OPTIONS" });
  assert.throws(() => activationUrl("https://user:pw@example.com"), { code: "INVALID_OPTIONS" });
});

Deno.test("requestLicense: a key that looks like a status code does not garble the message", async () => {
  await using server = activationServer(() => new Response("busy", { status: 500 }));
  await assert.rejects(
    requestLicense({ apiUrl: server.url, activationKey: "500" }),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "ACTIVATION_UNAVAILABLE");
      assert.match(error.message, /answered HTTP 500;/);
      assert.doesNotMatch(error.message, /<activation key>/);
      return true;
    },
  );
});
