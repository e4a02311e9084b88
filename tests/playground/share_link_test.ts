import assert from "node:assert/strict";
import {
  decodeShareFragment,
  encodeShareFragment,
  MAX_LINK_CHARS,
  MAX_SAVED_CONTEXTS,
  MAX_SHARED_BYTES,
  SHARE_PREFIX,
  type SharedState,
} from "../../playground/share_link.ts";
import { encodeBase64 } from "../../src/_internal/encoding.ts";

const state: SharedState = {
  document: await Deno.readTextFile(new URL("../../examples/bundle.json", import.meta.url)),
  target: { service: "search", resource: "catalog", action: "query" },
  context: '{"region": "eu", "note": "ünïcødé ✓ \\u0000"}',
  contexts: [{ name: "eu", context: '{"region":"eu"}' }],
  suite: '{"name": "s", "scenarios": []}',
  baseline: "",
};

/** A fragment carrying `bytes` compressed, as a page would make it. */
async function fragmentOf(bytes: Uint8Array): Promise<string> {
  const compressed = new Uint8Array(
    await new Response(
      new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
        new CompressionStream("deflate-raw"),
      ),
    ).arrayBuffer(),
  );
  return SHARE_PREFIX +
    encodeBase64(compressed).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

Deno.test("a share link restores the state it was made from, and is much shorter than it", async () => {
  const fragment = await encodeShareFragment(state);
  assert.match(fragment, /^s=[A-Za-z0-9_-]+$/);
  assert.ok(fragment.length < JSON.stringify(state).length / 2, `${fragment.length} characters`);
  assert.deepEqual(await decodeShareFragment(`#${fragment}`), state);
  assert.deepEqual(await decodeShareFragment(fragment), state);
});

Deno.test("missing fields of a link are empty, unknown fields are ignored", async () => {
  assert.deepEqual(await decodeShareFragment(await fragmentOf(json({ v: 1, extra: 1 }))), {
    document: "",
    target: { service: "", resource: "", action: "" },
    context: "",
    contexts: [],
    suite: "",
    baseline: "",
  });
});

Deno.test("a fragment that is not a playground state is refused with a reason", async () => {
  const refusals: [string, RegExp][] = [
    ["#other", /not a playground state/],
    ["#s=a", /not base64url/],
    ["#s=ab$c", /not base64url/],
    ["#s=____", /does not decompress/],
    [await fragmentOf(new Uint8Array([0xff, 0xfe])), /not JSON/],
    [await fragmentOf(json([1])), /no playground state of this version/],
    [await fragmentOf(json({ v: 2 })), /no playground state of this version/],
    [await fragmentOf(json({ v: 1, document: 7 })), /document is not text/],
    [await fragmentOf(json({ v: 1, target: { service: "s" } })), /target is not/],
    [await fragmentOf(json({ v: 1, contexts: [{ name: "a" }] })), /not \{name, context\}/],
    [
      await fragmentOf(json({ v: 1, contexts: new Array(MAX_SAVED_CONTEXTS + 1).fill(null) })),
      /at most 100/,
    ],
  ];
  for (const [fragment, reason] of refusals) {
    await assert.rejects(decodeShareFragment(fragment), {
      name: "ShareLinkError",
      message: reason,
    });
  }
});

Deno.test("a link is bounded: too long, or decompressing past the cap, it is refused", async () => {
  await assert.rejects(decodeShareFragment(SHARE_PREFIX + "A".repeat(MAX_LINK_CHARS + 1)), {
    message: /over the limit of 2000000/,
  });
  // A zip bomb: 17 MiB of spaces compress to about 17 KB. Reading stops at the cap.
  const bomb = new Uint8Array(MAX_SHARED_BYTES + 1024 * 1024).fill(0x20);
  const fragment = await fragmentOf(bomb);
  assert.ok(fragment.length < 40_000);
  await assert.rejects(decodeShareFragment(fragment), {
    message: /larger than 16777216 bytes once decompressed/,
  });
});
