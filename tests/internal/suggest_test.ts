import assert from "node:assert/strict";
import { editDistance, suggest } from "../../src/_internal/suggest.ts";

Deno.test("editDistance() counts a swap of neighbouring characters as one edit", () => {
  assert.equal(editDistance("bulid", "build"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("same", "same"), 0);
});

Deno.test("suggest() proposes only close candidates", () => {
  const commands = ["build", "validate", "simulate", "sign", "inspect"];
  assert.equal(suggest("bulid", commands), "build");
  assert.equal(suggest("valdiate", commands), "validate");
  assert.equal(suggest("SIGN", commands), "sign");
  assert.equal(suggest("deploy", commands), undefined);
  assert.equal(suggest("x", commands), undefined);
});
