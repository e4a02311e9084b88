// A gradual rollout and an A/B split through OpenFeature (docs/openfeature.md "Gradual rollouts
// and fractional flags"): both providers pass the evaluation context's targetingKey into the
// context, so a `rollout` on targetingKey (or on the key options.targetingKey names) buckets each
// user as docs/bundle-format.md "Rollout buckets" says, computed here independently.
import assert from "node:assert/strict";
import { OpenFeature } from "@openfeature/server-sdk";
import { OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import { compileBundle, createEvaluator, createLocalClient, validateBundle } from "../../mod.ts";
import { createOpenFeatureProvider } from "../../src/openfeature/mod.ts";
import { createWebOpenFeatureProvider } from "../../src/openfeature/create_web_open_feature_provider.ts";
import { withTempDir } from "../temp_dir.ts";
import { referenceBucket } from "../properties/_reference_evaluator.ts";
import { compileCondition } from "../../src/engine/compile_condition.ts";
import murmurhash3js from "murmurhash3js";

const NEW_FLOW = { service: "checkout", resource: "page", action: "new-flow" };
const BUTTON = { service: "checkout", resource: "page", action: "button-colour" };
const FLAGS = { "new-checkout": NEW_FLOW, "button-colour": BUTTON };

/** 30 % get the new checkout; the button is "green" for half the users, "blue" for the rest. */
function bundle(path: string) {
  const rule = (id: string, target: unknown, when: unknown, effect: unknown) => ({
    id,
    status: "active",
    priority: 1,
    target,
    when,
    effect,
  });
  return {
    schemaVersion: 1,
    env: "prod",
    policies: [{
      policyKey: "new-checkout",
      activeVersion: 1,
      defaults: { effect: "deny" },
      rules: [
        rule("thirty-percent", NEW_FLOW, { op: "rollout", path, salt: "new-checkout", to: 30 }, {
          type: "allow",
        }),
      ],
    }, {
      policyKey: "button-colour",
      activeVersion: 1,
      rules: [
        rule("green", BUTTON, { op: "rollout", path, salt: "button", to: 50 }, {
          type: "custom",
          value: "green",
        }),
        rule("blue", BUTTON, { op: "rollout", path, salt: "button", from: 50, to: 100 }, {
          type: "custom",
          value: "blue",
        }),
      ],
    }],
  };
}

const USERS = Array.from({ length: 200 }, (_, i) => `cus-${i}`);
const inRange = (salt: string, user: string, from: number, to: number) => {
  const bucket = referenceBucket({ salt }, user)!;
  return bucket >= from && bucket < to;
};

Deno.test("server provider: a rollout on targetingKey, and one on the key options.targetingKey names", async () => {
  for (
    const [path, options] of [["targetingKey", {}], ["userId", { targetingKey: "userId" }]] as const
  ) {
    await withTempDir(async (dir) => {
      const bundlePath = `${dir}/flags.json`;
      await Deno.writeTextFile(bundlePath, JSON.stringify(bundle(path)));
      const client = await createLocalClient({ bundlePath, allowUnsigned: true });
      const domain = `rollout-${path}`;
      await OpenFeature.setProviderAndWait(
        domain,
        createOpenFeatureProvider(client, { flags: FLAGS, ownsClient: true, ...options }),
      );
      try {
        const flags = OpenFeature.getClient(domain);
        let enabled = 0;
        for (const user of USERS) {
          const context = { targetingKey: user };
          const on = await flags.getBooleanValue("new-checkout", false, context);
          assert.equal(on, inRange("new-checkout", user, 0, 30), `${path}: ${user}`);
          if (on) enabled++;
          const colour = await flags.getStringValue("button-colour", "none", context);
          assert.equal(colour, inRange("button", user, 0, 50) ? "green" : "blue", user);
        }
        assert.ok(enabled > 30 && enabled < 90, `about 30 % enabled: ${enabled}`);
        // Without a targetingKey nobody is in the rollout: the caller's default.
        assert.equal(await flags.getBooleanValue("new-checkout", true, {}), false);
      } finally {
        await OpenFeature.close();
      }
    });
  }
});

Deno.test("web provider: the same rollout on the static context's targetingKey", async () => {
  const domain = "rollout-web";
  await WebOpenFeature.setProviderAndWait(
    domain,
    createWebOpenFeatureProvider({
      bundle: JSON.stringify(bundle("targetingKey")),
      allowUnsigned: true,
      flags: FLAGS,
    }),
  );
  try {
    const flags = WebOpenFeature.getClient(domain);
    for (const user of USERS.slice(0, 50)) {
      await WebOpenFeature.setContext(domain, { targetingKey: user });
      assert.equal(
        flags.getBooleanValue("new-checkout", false),
        inRange("new-checkout", user, 0, 30),
      );
      assert.equal(
        flags.getStringValue("button-colour", "none"),
        inRange("button", user, 0, 50) ? "green" : "blue",
      );
    }
  } finally {
    await WebOpenFeature.close();
  }
});

Deno.test("mod100 buckets as Unleash's gradual rollout does: murmurhash3js (its Node SDK's hash) of groupId:userId, mod 100", () => {
  // Unleash enables a user when murmur3("groupId:userId") % 100 + 1 <= percentage; its Node
  // SDK hashes with murmurhash3js, which reads the low byte of each UTF-16 code unit: the same
  // bytes as UTF-8 for ASCII ids, which is what docs/bundle-format.md promises.
  for (const groupId of ["new-checkout", "release-2", "a:b"]) {
    for (const user of [...USERS, "alice@example.com", "42", "user:7"]) {
      const unleash = murmurhash3js.x86.hash32(`${groupId}:${user}`) % 100 + 1;
      const bucket = referenceBucket({ salt: groupId, bucketing: "mod100" }, user)!;
      const engine = compileCondition({
        op: "rollout",
        path: "userId",
        salt: groupId,
        to: 30,
        bucketing: "mod100",
      });
      assert.equal(bucket, unleash - 1, `${groupId}:${user}`);
      assert.equal(engine({ userId: user }), unleash <= 30, `${groupId}:${user}`);
    }
  }
});

Deno.test("the policies of docs/openfeature.md are valid and decide as the flagd and Unleash flags they rewrite", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/openfeature.md", import.meta.url));
  const section = doc.slice(doc.indexOf("## Gradual rollouts and fractional flags"));
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
  const policies = blocks.filter((b) => typeof b.policyKey === "string");
  assert.equal(policies.length, 3);
  const [flagd, button, unleash] = policies;
  const evaluator = (policy: unknown) => {
    const compiled = compileBundle({ schemaVersion: 1, env: "prod", policies: [policy] });
    return createEvaluator(compiled);
  };
  for (const policy of policies) {
    assert.deepEqual(
      validateBundle({ schemaVersion: 1, env: "prod", policies: [policy] }).errors,
      [],
    );
  }
  const checkout = evaluator(flagd);
  const colour = evaluator(button);
  const gradual = evaluator(unleash);
  for (const user of USERS) {
    const on = checkout({ target: NEW_FLOW, context: { targetingKey: user } }).decision;
    assert.equal(on, inRange("new-checkout", user, 0, 30) ? "allow" : "deny");
    const value =
      (colour({ target: BUTTON, context: { targetingKey: user } }) as { value?: string })
        .value;
    assert.equal(value, inRange("button-colour", user, 0, 50) ? "green" : "blue");
    const enabled = murmurhash3js.x86.hash32(`new-checkout:${user}`) % 100 + 1 <= 30;
    assert.equal(
      gradual({ target: NEW_FLOW, context: { userId: user } }).decision,
      enabled ? "allow" : "deny",
    );
  }
});
