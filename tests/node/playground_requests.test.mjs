// The playground page (docs/playground.md) opened as a file, in a real browser (see
// playground.test.mjs): the decision it shows for generated requests equals the installed
// package's `evaluate`, and the screenshots of docs/playground.md are taken: into a scratch
// folder, or into POLICY_PLAYGROUND_SCREENSHOTS (`deno task playground:screenshots`).
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import { root } from "./_package.mjs";
import { LONG, longOnly } from "./_long.mjs";
import {
  bundleOfDraft,
  documentRead,
  engine,
  example,
  generateRequests,
  openFile,
  random,
  SEED,
  setRequest,
  setText,
  shownDecision,
  skip,
  tempDir,
  testNoRequestLeft,
  usePlayground,
  verify,
} from "./_playground_page.mjs";

/**
 * Generated requests put into the page per sample document: 100 in the long run, 25 in the
 * quick one (a request costs the page a re-render of every view, about 40 ms of CPU).
 */
const REQUESTS_PER_SAMPLE = LONG ? 100 : 25;

usePlayground();

describe("the page opened as a file", { skip }, () => {
  const generated = 2 * REQUESTS_PER_SAMPLE;
  test(`the decision shown equals evaluate's for ${generated} generated requests (seed ${SEED})`, async () => {
    const { tab, errors } = await openFile();
    const rng = random(SEED);
    try {
      let compared = 0;
      for (const sample of ["bundle.json", "playground/billing-draft.json"]) {
        const count = REQUESTS_PER_SAMPLE;
        await tab.selectOption("#sample", sample);
        await documentRead(tab);
        const document = JSON.parse(example(sample));
        const bundle = document.env === undefined ? bundleOfDraft(document) : document;
        const compiled = engine.compileBundle(bundle);
        for (const request of generateRequests(bundle, count, rng)) {
          await setRequest(tab, request);
          assert.deepEqual(
            await shownDecision(tab),
            engine.evaluate(compiled, request),
            `${sample} ${JSON.stringify(request)} (POLICY_TEST_SEED=${SEED} replays it)`,
          );
          compared++;
        }
      }
      assert.equal(compared, generated);
      assert.deepEqual(errors, []);
    } finally {
      await tab.close();
    }
  });

  // Screenshots are for the docs: `deno task playground:screenshots` and the long run take them.
  const screenshots = process.env.POLICY_PLAYGROUND_SCREENSHOTS ? false : longOnly;
  test("screenshots of docs/playground.md", { skip: screenshots }, async () => {
    const out = process.env.POLICY_PLAYGROUND_SCREENSHOTS
      ? resolve(root, process.env.POLICY_PLAYGROUND_SCREENSHOTS)
      : tempDir("policy-playground-screenshots-");
    mkdirSync(out, { recursive: true });
    const { tab } = await openFile();
    try {
      await tab.setViewportSize({ width: 1366, height: 900 });
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await documentRead(tab);
      await tab.selectOption("#target-pick", { label: "billing/invoice/create" });
      await setText(tab, "#context", '{"plan": "free", "seats": 8}');
      for (
        const [name, context] of [["free, 3 seats", { plan: "free", seats: 3 }], ["pro", {
          plan: "pro",
        }], ["finance", { role: "finance" }]]
      ) {
        await setText(tab, "#context", JSON.stringify(context));
        await setText(tab, "#context-name", name);
        await tab.getByRole("button", { name: "Save context" }).click();
      }
      await setText(tab, "#context", '{"plan": "free", "seats": 8}');
      await tab.locator("#page-status").evaluate((e) => e.textContent = "");
      const shots = [];
      const shoot = async (name) => {
        const file = join(out, `${name}.png`);
        await tab.screenshot({ path: file });
        shots.push(file);
      };
      await tab.getByRole("tab", { name: "Why" }).click();
      await shoot("why");
      await tab.getByRole("tab", { name: "Matrix" }).click();
      await shoot("matrix");
      await tab.getByRole("tab", { name: "Suite" }).click();
      const suite = JSON.parse(example("service/policy/suite.json"));
      suite.scenarios[2].expected = { decision: "allow", ruleId: "free-small-teams" };
      await tab.locator("#suite-editor summary").click();
      await setText(tab, "#suite", JSON.stringify(suite, null, 2));
      await tab.locator("#suite-editor summary").click();
      await shoot("suite");
      await tab.getByRole("tab", { name: "Diff" }).click();
      await tab.getByRole("button", { name: "Use the editor's document as the old one" }).click();
      const draft = JSON.parse(example("playground/billing-draft.json"));
      draft.policies[0].rules[1].when.conditions[1].value = 10;
      await setText(tab, "#document", JSON.stringify(draft, null, 2));
      await tab.waitForSelector("#diff-meaning");
      await shoot("diff");
      await tab.selectOption("#sample", "bundle.json");
      await documentRead(tab);
      const { privateKey, publicKey } = await verify.generateEcdsaKeyPair();
      const signed = await verify.signBundle(JSON.parse(example("bundle.json")), {
        algorithm: "ECDSA_SHA_256",
        key: privateKey,
        keyId: "release-1",
      });
      await setText(tab, "#document", JSON.stringify(signed, null, 2));
      await tab.getByRole("tab", { name: "Signature" }).click();
      await setText(tab, "#sig-key", publicKey);
      await tab.waitForSelector('.states li[aria-current="true"]');
      await shoot("signature");
      for (const file of shots) assert.ok(readFileSync(file).length > 10_000, file);
      console.log(`# playground screenshots: ${out}`);
    } finally {
      await tab.close();
    }
  });
});

testNoRequestLeft();
