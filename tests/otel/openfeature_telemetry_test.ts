// Both OpenFeature providers emit the `feature_flag.evaluation` event of the
// OpenTelemetry feature-flag semantic conventions for each resolution, as a
// log record through the real logs SDK (docs/observability.md "OpenFeature").
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { OpenFeature } from "@openfeature/server-sdk";
import { createLocalClient } from "../../mod.ts";
import { createOpenFeatureProvider } from "../../src/openfeature/mod.ts";
import { createWebOpenFeatureProvider } from "../../src/openfeature/create_web_open_feature_provider.ts";
import { FakeClock } from "../_fake_clock.ts";
import { withTempDir } from "../temp_dir.ts";
import { Sdk } from "./_sdk.ts";
import { bundle } from "./_bundle.ts";

Deno.test("the server provider: a feature_flag.evaluation event per resolution, with the conventions' attributes", async () => {
  await withTempDir(async (dir) => {
    const sdk = new Sdk();
    const bundlePath = `${dir}/bundle.json`;
    await writeFile(bundlePath, JSON.stringify(bundle(2)));
    const client = await createLocalClient({
      bundlePath,
      allowUnsigned: true,
      clock: new FakeClock(),
    });
    const checksum = client.status().checksum;
    await OpenFeature.setProviderAndWait(
      "otel-test",
      createOpenFeatureProvider(client, {
        flags: { "admin-page": { service: "app", resource: "admin", action: "open" } },
        ownsClient: true,
        telemetry: sdk.telemetry(),
      }),
    );
    try {
      const flags = OpenFeature.getClient("otel-test");
      assert.equal(
        await flags.getBooleanValue("admin-page", false, { targetingKey: "u-1", role: "admin" }),
        true,
      );
      assert.equal(await flags.getBooleanValue("admin-page", true, { role: "user" }), false);
      assert.equal(await flags.getBooleanValue("no-such-flag", true), true);
      await sdk.loggerProvider.forceFlush();
      const events = sdk.logs("feature_flag.evaluation").map((r) => ({ ...r.attributes }));
      assert.deepEqual(events, [{
        "feature_flag.key": "admin-page",
        "feature_flag.provider.name": "@policy/runtime",
        "feature_flag.result.reason": "targeting_match",
        "feature_flag.result.variant": "admins",
        "feature_flag.result.value": true,
        "feature_flag.version": checksum,
        "feature_flag.context.id": "u-1",
        "policy.decision": "allow",
        "policy.key": "admin",
      }, {
        "feature_flag.key": "admin-page",
        "feature_flag.provider.name": "@policy/runtime",
        "feature_flag.result.reason": "default",
        "feature_flag.result.variant": "__default__",
        "feature_flag.result.value": false,
        "feature_flag.version": checksum,
        "policy.decision": "deny",
        "policy.key": "admin",
      }, {
        "feature_flag.key": "no-such-flag",
        "feature_flag.provider.name": "@policy/runtime",
        "feature_flag.result.reason": "error",
        "feature_flag.result.value": true,
        "feature_flag.version": checksum,
        "error.type": "flag_not_found",
        "error.message":
          'flag "no-such-flag" is not in the provider\'s flags and is not of the form service/resource/action',
      }]);
      assert.equal(sdk.logs("feature_flag.evaluation")[0]!.severityText, "INFO");
    } finally {
      await OpenFeature.close();
      await sdk.shutdown();
    }
  });
});

Deno.test("the web provider emits the same event", async () => {
  const sdk = new Sdk();
  const provider = createWebOpenFeatureProvider({
    bundle: JSON.stringify(bundle(4)),
    allowUnsigned: true,
    telemetry: sdk.telemetry(),
  });
  try {
    await provider.initialize!({});
    const logger = { error() {}, warn() {}, info() {}, debug() {} };
    const details = provider.resolveBooleanEvaluation(
      "app/admin/open",
      false,
      { role: "admin" },
      logger,
    );
    assert.equal(details.value, true);
    await sdk.loggerProvider.forceFlush();
    const [event] = sdk.logs("feature_flag.evaluation");
    assert.equal(event!.attributes["feature_flag.key"], "app/admin/open");
    assert.equal(event!.attributes["feature_flag.result.variant"], "admins");
    assert.equal(event!.attributes["feature_flag.result.reason"], "targeting_match");
    assert.match(String(event!.attributes["feature_flag.version"]), /^sha256:/);
  } finally {
    await sdk.shutdown();
  }
});
