// A passing file for tests/tools/test_report_test.ts.
Deno.test("one", () => {});
Deno.test("two", () => {});
