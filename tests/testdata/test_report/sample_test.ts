// A test file for tests/tools/test_report_test.ts: passing, failing, ignored
// tests and steps, with output. Run only by that test (tests/testdata/ is not
// part of the test run).
console.log("sample_test.ts: the ignored test needs a thing this machine lacks");
Deno.test("passes quietly", () => {});
Deno.test("passes with output", () => console.log("output of a passing test"));
Deno.test("fails with output", () => {
  console.log("output of the failing test");
  throw new Error("the failure's own message");
});
Deno.test({ name: "ignored", ignore: true, fn: () => {} });
Deno.test("steps", async (t) => {
  await t.step("a step that passes", () => {});
  await t.step("a step ... that fails", () => {
    throw new Error("the failing step's message");
  });
});
Deno.test("passes but skips a part", () => {
  console.log("sample_test.ts: the second half not run: no thing here");
});
