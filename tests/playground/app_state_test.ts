// The playground's state (playground/app_state.ts), without a page: which target a new document
// leaves in the Request panel, what opening a trace from the matrix or the suite changes, and how
// long something the page said stays. The browser tests (tests/node/playground.test.mjs) check
// the same through the page.
import assert from "node:assert/strict";
import { App, sameShared } from "../../playground/app_state.ts";

const read = (path: string) =>
  Deno.readTextFile(new URL(`../../examples/${path}`, import.meta.url));
const target = (service: string, resource: string, action: string) => ({
  service,
  resource,
  action,
});

Deno.test("a new document resets a target taken from the last one it does not name; a typed one stays", async () => {
  const app = new App();
  await app.setDocument(await read("bundle.json"));
  // No target yet: the document's first.
  assert.deepEqual(app.state.target, target("billing", "invoice", "create"));
  app.set({ target: target("search", "catalog", "query"), targetTyped: false });
  // A document that does not read yet names nothing: the target stays.
  await app.setDocument('{"schemaVersion": 1, "policies": [');
  assert.deepEqual(app.state.target, target("search", "catalog", "query"));
  // One that names it: it stays.
  await app.setDocument(await read("bundle.json"));
  assert.deepEqual(app.state.target, target("search", "catalog", "query"));
  // One that does not: its first target.
  await app.setDocument(await read("playground/billing-draft.json"));
  assert.deepEqual(app.state.target, target("billing", "invoice", "create"));
  assert.equal(app.state.targetTyped, false);
  // A typed target is the user's.
  app.set({ target: target("nobody", "names", "this"), targetTyped: true });
  await app.setDocument(await read("bundle.json"));
  assert.deepEqual(app.state.target, target("nobody", "names", "this"));
});

Deno.test("a share link's target stays as typed only when its document does not name it", async () => {
  const app = new App();
  const shared = {
    document: await read("bundle.json"),
    target: target("nobody", "names", "this"),
    context: "{}",
    contexts: [],
    suite: "",
    baseline: "",
  };
  await app.restore(shared);
  assert.deepEqual(app.state.target, shared.target);
  assert.equal(app.state.targetTyped, true);
  await app.restore({ ...shared, target: target("search", "catalog", "query") });
  assert.equal(app.state.targetTyped, false);
});

Deno.test("a trace opened with another context leaves the Request panel as typed", async () => {
  const app = new App();
  const shown: string[] = [];
  app.showView = (view) => shown.push(view);
  await app.setDocument(await read("bundle.json"));
  app.set({ contextText: '{"plan": "pro", ' });
  const outage = '{"region": "eu", "flags": {"searchOutage": true}}';
  app.openTrace(target("search", "catalog", "query"), outage, 'the saved context "eu outage"');
  assert.deepEqual(shown, ["why"]);
  assert.equal(app.state.contextText, '{"plan": "pro", ');
  assert.deepEqual(app.state.target, target("billing", "invoice", "create"));
  assert.deepEqual(app.state.traced, {
    target: target("search", "catalog", "query"),
    contextText: outage,
    source: 'the saved context "eu outage"',
  });
  // Put in the Request panel on demand.
  app.editTraced();
  assert.equal(app.state.contextText, outage);
  assert.deepEqual(app.state.target, target("search", "catalog", "query"));
  assert.equal(app.state.traced, null);
  // With the Request panel's own context: its target is put there, nothing is pinned.
  app.openTrace(target("billing", "invoice", "create"), outage, "the current context");
  assert.deepEqual(app.state.target, target("billing", "invoice", "create"));
  assert.equal(app.state.traced, null);
});

Deno.test("what the page says stays until the state it was said in changes", async () => {
  const app = new App();
  const said: string[] = [];
  app.onAnnounce = (message) => said.push(message);
  await app.setDocument(await read("bundle.json"));
  app.announce("Saved the context.");
  // Reading the document again, pinning a trace: the shared state is the same.
  app.set({ traced: null, targetTyped: false });
  assert.deepEqual(said, ["Saved the context."]);
  app.set({ contextText: '{"plan": "pro"}' });
  assert.deepEqual(said, ["Saved the context.", ""]);
  // Said once: a later change does not clear it again.
  app.set({ contextText: "{}" });
  assert.deepEqual(said, ["Saved the context.", ""]);
  // Two reads of the same state are the same shared state; a field changed is not.
  assert.equal(sameShared(app.shared(), app.shared()), true);
  assert.equal(sameShared(app.shared(), { ...app.shared(), suite: "another suite" }), false);
});
