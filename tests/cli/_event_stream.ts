/**
 * Reading the Server-Sent Events of `policy playground` in tests: one
 * `state` event at a time, parsed.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { LiveState } from "../../src/authoring/live_state.ts";

/** The `state` events of a response body. */
export function stateEvents(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    /** The next event's state (waits for it). */
    async next(): Promise<LiveState> {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          assert.match(block, /^event: state\ndata: /);
          return JSON.parse(block.slice(block.indexOf("data: ") + 6));
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("the event stream ended");
        buffered += value;
      }
    },
    /** What arrived and was not read yet. */
    pending: () => buffered,
    cancel: () => reader.cancel(),
  };
}
