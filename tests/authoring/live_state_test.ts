import assert from "node:assert/strict";
import { type LiveState, parseLiveState } from "../../src/authoring/live_state.ts";

Deno.test("parseLiveState reads back what the server sends, and refuses anything else", () => {
  const state: LiveState = {
    version: 1,
    workingFolder: "/w",
    document: { path: "/w/d.json", relativePath: "d.json", text: "{}", error: null },
    suites: [{
      path: "/w/s.json",
      relativePath: "s.json",
      text: null,
      error: { code: "DOCUMENT_READ_ERROR", message: "cannot read suite /w/s.json" },
    }],
  };
  assert.deepEqual(parseLiveState(JSON.stringify(state)), state);
  assert.deepEqual(parseLiveState(JSON.stringify({ ...state, document: null })).document, null);
  for (const bad of ["[]", "{}", '{"version": 2, "workingFolder": "/w"}', "not json"]) {
    assert.throws(() => parseLiveState(bad), bad);
  }
  assert.throws(
    () => parseLiveState(JSON.stringify({ ...state, suites: [{ text: "x" }] })),
    /no path/,
  );
});
