/**
 * The CLI's POSIX path rules give what `node:path`'s `posix` functions give,
 * on generated paths (dots, doubled and trailing slashes, absolute and
 * relative), with the same current folder.
 */
import assert from "node:assert/strict";
import { posix } from "node:path";
import fc from "../_fast_check.ts";
import { posixPathRules } from "../../src/io/posix_path.ts";

const CWD = "/work/here";
const rules = posixPathRules(() => CWD);

const PATH = fc.array(fc.constantFrom("a", "b", "..", ".", "", "c.json", "/", "//"), {
  maxLength: 7,
}).map((parts) => parts.join("/").replace(/^\/\/\/+/, "/"));

/** `node:path` resolves from the process's folder; run it from CWD's stand-in. */
function referenceResolve(...paths: string[]): string {
  return posix.resolve(CWD, ...paths);
}

Deno.test("posixPathRules match node:path posix", () => {
  fc.assert(
    fc.property(PATH, PATH, PATH, (a, b, c) => {
      assert.equal(rules.resolve(a, b, c), referenceResolve(a, b, c), `resolve ${a} ${b} ${c}`);
      assert.equal(rules.resolve(a), referenceResolve(a), `resolve ${a}`);
      assert.equal(rules.join(a, b, c), posix.join(a, b, c), `join ${a} ${b} ${c}`);
      assert.equal(rules.join(a), posix.join(a), `join ${a}`);
      assert.equal(rules.dirname(a), posix.dirname(a), `dirname ${a}`);
      assert.equal(rules.basename(a), posix.basename(a), `basename ${a}`);
      assert.equal(rules.isAbsolute(a), posix.isAbsolute(a), `isAbsolute ${a}`);
      assert.equal(
        rules.relative(a, b),
        posix.relative(referenceResolve(a), referenceResolve(b)),
        `relative ${a} ${b}`,
      );
    }),
    { numRuns: 5000 },
  );
  assert.equal(rules.resolve(), CWD);
  assert.equal(rules.join(), ".");
  assert.equal(rules.sep, posix.sep);
});
