/**
 * True under `deno task test:long`, which sets `POLICY_TEST_LONG=1` and grants
 * reading it; the default test task grants no environment access, so this is
 * false there without a permission prompt. Long runs repeat fault loops and
 * property tests many more times.
 */
export const LONG = Deno.permissions.querySync({ name: "env", variable: "POLICY_TEST_LONG" })
      .state === "granted" && Deno.env.get("POLICY_TEST_LONG") === "1";
