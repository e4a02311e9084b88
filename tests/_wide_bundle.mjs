// A bundle whose `policy inspect` text (and `simulate --trace full`) is far
// larger than a pipe's buffer: for the tests of a reader that goes away
// (`policy inspect | head -1`), under Deno (tests/cli/cli_e2e_test.ts)
// and under Node (tests/node/cli.test.mjs).

/** 200 policies of 50 rules, all on billing/invoice/create. */
export function wideBundle() {
  return {
    schemaVersion: 1,
    env: "prod",
    policies: Array.from({ length: 200 }, (_, p) => ({
      policyKey: `p${p}`,
      activeVersion: 1,
      rules: Array.from({ length: 50 }, (_, r) => ({
        id: `rule-${r}`,
        status: "active",
        priority: r,
        target: { service: "billing", resource: "invoice", action: "create" },
        effect: { type: "allow" },
      })),
    })),
  };
}

/** The commands whose long output the tests cut short: `inspect` and a full trace of `simulate`. */
export const LONG_OUTPUT_COMMANDS = [
  ["inspect"],
  [
    "simulate",
    "--service",
    "billing",
    "--resource",
    "invoice",
    "--action",
    "create",
    "--trace",
    "full",
  ],
];
