import assert from "node:assert/strict";
import { describeThrown } from "../../src/_internal/describe_thrown.ts";

Deno.test("describeThrown: an Error's message, anything else as a string, never a throw", () => {
  assert.equal(describeThrown(new TypeError("bad")), "bad");
  assert.equal(describeThrown("plain"), "plain");
  assert.equal(describeThrown(undefined), "undefined");
  assert.equal(describeThrown(42), "42");
  const hostile = {
    toString() {
      throw new Error("no");
    },
  };
  assert.equal(describeThrown(hostile), "an undescribable value");
  assert.equal(describeThrown(Object.create(null)), "an undescribable value");
});
