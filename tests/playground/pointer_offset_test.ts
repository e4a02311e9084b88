import assert from "node:assert/strict";
import { locatePointer, pointerSegments } from "../../playground/pointer_offset.ts";
import { validateBundle } from "../../src/engine/mod.ts";

/** The text a pointer selects. */
function at(text: string, pointer: string): string | null {
  const range = locatePointer(text, pointer);
  return range === null ? null : text.slice(range.start, range.end);
}

Deno.test("pointerSegments unescapes ~1 and ~0 and refuses a pointer without a leading slash", () => {
  assert.deepEqual(pointerSegments(""), []);
  assert.deepEqual(pointerSegments("/a~1b/~01/0"), ["a/b", "~1", "0"]);
  assert.equal(pointerSegments("a"), null);
});

Deno.test("locatePointer selects the value a pointer names, through objects and arrays", () => {
  const text = '{ "a": [1, {"b": "x,}]"}, [2, 3]], "c": {"d": null}, "e/f": true }';
  assert.equal(at(text, ""), text);
  assert.equal(at(text, "/a"), '[1, {"b": "x,}]"}, [2, 3]]');
  assert.equal(at(text, "/a/0"), "1");
  assert.equal(at(text, "/a/1/b"), '"x,}]"');
  assert.equal(at(text, "/a/2/1"), "3");
  assert.equal(at(text, "/c/d"), "null");
  assert.equal(at(text, "/e~1f"), "true");
});

Deno.test("locatePointer falls back to the nearest existing ancestor, saying it is not exact", () => {
  const text = '{"policies": [{"policyKey": "p", "rules": []}]}';
  const range = locatePointer(text, "/policies/0/activeVersion")!;
  assert.equal(range.exact, false);
  assert.equal(text.slice(range.start, range.end), '{"policyKey": "p", "rules": []}');
  assert.equal(locatePointer(text, "/policies/3")!.exact, false);
  assert.equal(locatePointer(text, "/policies/x")!.exact, false);
  assert.equal(locatePointer(text, "/policies/0/policyKey")!.exact, true);
});

Deno.test("locatePointer reads JSON with comments, trailing commas, escaped and duplicate keys", () => {
  const text = `{
  // a comment with "quotes" and a } brace
  "a": 1, /* block, ] */
  "b\\u002fc": [1, 2,],
  "a": 2,
}`;
  assert.equal(at(text, "/b~1c"), "[1, 2,]");
  assert.equal(at(text, "/b~1c/1"), "2");
  // The last of duplicate keys counts, as JSON.parse reads it.
  assert.equal(at(text, "/a"), "2");
});

Deno.test("locatePointer finds every issue validateBundle reports in a formatted bundle", () => {
  const document = {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "p",
      activeVersion: 1,
      rules: [
        {
          id: "r",
          status: "active",
          priority: 1,
          target: { service: "s" },
          effect: { type: "no" },
        },
        { id: "r", status: "on", priority: "1", target: 7, effect: {}, when: { op: "eq" } },
      ],
    }],
  };
  const text = JSON.stringify(document, null, 2);
  const { errors } = validateBundle(document);
  assert.ok(errors.length >= 5);
  for (const issue of errors) {
    const range = locatePointer(text, issue.path);
    assert.ok(range !== null, issue.path);
    if (range.exact) {
      // The selected text is the value at the pointer, formatted as the document is.
      let value: unknown = document;
      for (const segment of pointerSegments(issue.path)!) {
        value = (value as Record<string, unknown>)[segment];
      }
      assert.deepEqual(JSON.parse(text.slice(range.start, range.end)), value, issue.path);
    }
  }
});

Deno.test("locatePointer reads nesting of any depth without recursion", () => {
  const depth = 50_000;
  const text = "[".repeat(depth) + "]".repeat(depth);
  const range = locatePointer(text, "/0/0/0")!;
  assert.equal(range.start, 3);
  assert.equal(range.end, text.length - 3);
  assert.equal(locatePointer("", "/a"), null);
  assert.equal(locatePointer("   ", ""), null);
});
