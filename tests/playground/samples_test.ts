// The samples the playground offers are the documents of examples/: the billing draft is the one
// docs/walkthrough.md builds from examples/service (the same rules, in the same policies), and
// the service's suite passes against it, so the page's samples work together.
import assert from "node:assert/strict";
import { type DraftDocument, draftToBundle, validateDraft } from "../../src/authoring/draft.ts";
import { checkSuite, runSuite } from "../../src/authoring/suite.ts";
import { compileBundle } from "../../src/engine/mod.ts";
import { parseJson } from "../../src/engine/mod.ts";

const read = async (path: string) =>
  parseJson(await Deno.readTextFile(new URL(`../../examples/${path}`, import.meta.url)), {
    comments: true,
  });

Deno.test("the billing draft holds exactly the rules of examples/service/policy/rules", async () => {
  const draft = await read("playground/billing-draft.json") as DraftDocument;
  assert.deepEqual(validateDraft(draft).errors, []);
  const rules = [];
  for await (
    const entry of Deno.readDir(new URL("../../examples/service/policy/rules/", import.meta.url))
  ) {
    rules.push(await read(`service/policy/rules/${entry.name}`) as { id: string });
  }
  const inDraft = draft.policies.flatMap((p) => p.rules);
  const byId = (list: { id: string }[]) => [...list].sort((a, b) => a.id < b.id ? -1 : 1);
  assert.deepEqual(byId(inDraft), byId(rules));
});

Deno.test("the service's suite passes against the billing draft and reaches every active rule", async () => {
  const draft = await read("playground/billing-draft.json") as DraftDocument;
  const compiled = compileBundle(draftToBundle(draft, { env: "dev" }));
  const suite = checkSuite(await read("service/policy/suite.json"));
  assert.deepEqual(suite.problems, []);
  const run = runSuite(compiled, suite.scenarios);
  assert.deepEqual(run.results.filter((r) => !r.passed).map((r) => r.name), []);
  assert.deepEqual(run.coverage.unexercised, []);
});
