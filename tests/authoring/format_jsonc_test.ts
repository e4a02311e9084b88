/**
 * The one check that formatting keeps what a JSONC document means
 * (`formattingChange`), which `policy fmt` and the playground's Format
 * button (`formatKeepingMeaning`) share.
 */
import assert from "node:assert/strict";
import { formatKeepingMeaning, formattingChange } from "../../src/authoring/format_jsonc.ts";
import { parseJson } from "../../src/engine/parse_json.ts";

const valueOf = (text: string) => parseJson(text, { comments: true });

Deno.test("formattingChange: the same value in any key order and the same comments, or what differs", () => {
  const before = '// top\n{"b": [1, {"c": null}], /* a */ "a": "x"}';
  const after = '// top\n{\n  /* a */\n  "a": "x",\n  "b": [1, {"c": null}]\n}\n';
  assert.equal(formattingChange(before, after, valueOf(before)), null);
  // Number for number: -0 is not 0, and a number that is not finite is not null.
  assert.equal(formattingChange('{"n": -0}', '{"n": 0}', valueOf('{"n": -0}')), "value");
  assert.equal(formattingChange('{"n": 1e400}', '{"n": null}', valueOf('{"n": 1e400}')), "value");
  assert.equal(formattingChange('{"n": 1e400}', '{"n": 1e400}', valueOf('{"n": 1e400}')), null);
  // A member more or less, an element in another place, an array for an object.
  assert.equal(formattingChange("{}", '{"a": 1}', {}), "value");
  assert.equal(formattingChange("[1, 2]", "[2, 1]", [1, 2]), "value");
  assert.equal(formattingChange('{"0": 1}', "[1]", { 0: 1 }), "value");
  // The expected value may be what the caller writes instead (a draft with its $schema).
  const withSchema = { $schema: "s", policies: [] };
  assert.equal(
    formattingChange('{"policies": []}', '{"$schema": "s", "policies": []}', withSchema),
    null,
  );
  // Comments: each one kept, in order (trailing white space aside).
  assert.equal(formattingChange("// a  \n// b\n1", "// a\n// b\n1\n", 1), null);
  assert.equal(formattingChange("// a\n// b\n1", "// b\n// a\n1\n", 1), "comments");
  assert.equal(formattingChange("// a\n1", "1\n", 1), "comments");
  // The value is checked first.
  assert.equal(formattingChange("// a\n1", "2\n", 1), "value");
});

Deno.test("formattingChange compares values of any depth without running out of stack", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.equal(formattingChange(deep, deep, valueOf(deep)), null);
});

Deno.test("formatKeepingMeaning: the formatted text, or the payload's refusal of what it cannot hold", () => {
  assert.equal(
    formatKeepingMeaning('{"b":-0, // kept\n"a":1}'),
    '{\n  "b": -0, // kept\n  "a": 1\n}\n',
  );
  assert.throws(() => formatKeepingMeaning('{"b": 1e400, "a": 1}'), {
    name: "PolicyError",
    code: "BUNDLE_INVALID",
    message:
      "the document holds a number that is not finite (Infinity); JSON cannot represent it (a literal such as 1e400 overflows)",
  });
  assert.throws(() => formatKeepingMeaning("[".repeat(600) + "]".repeat(600)), {
    name: "PolicyError",
    message: "the document nests deeper than 512 levels; flatten it",
  });
  assert.throws(() => formatKeepingMeaning('{"a": }'), { name: "JsonParseError" });
});
