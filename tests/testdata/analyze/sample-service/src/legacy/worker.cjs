"use strict";
const { createLocalClient } = require("@acme/policy");

const TARGET = Object.freeze({ service: "reports", resource: "queue", action: "drain" });

async function drain() {
  const client = await createLocalClient({ bundlePath: "policy-bundle.json" });
  return client.evaluate({ target: TARGET, context: {} });
}

module.exports = { drain };
