// The playground page (docs/playground.md) in a real browser, opened as a file: headless Chromium
// driven by playwright-core (see _playground_browser.mjs for why under Node), against the page the
// npm package ships. Each view is checked against the installed package (evaluate,
// traceEvaluation, simulate's suites, compareDecisions, verification); no request may leave the
// page; axe-core finds no serious or critical accessibility violation. The generated requests and
// the screenshots are in playground_requests.test.mjs, `policy playground` in
// playground_served.test.mjs; _playground_page.mjs holds what the three share.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { importPackage, root, scratchRequire } from "./_package.mjs";
import {
  bundleOfDraft,
  documentRead,
  engine,
  example,
  examplesDocuments,
  fileUrl,
  openFile,
  overflowingText,
  page,
  rowsOf,
  setText,
  shownDecision,
  skip,
  targetFields,
  testNoRequestLeft,
  usePlayground,
  verify,
} from "./_playground_page.mjs";

usePlayground();

describe("the page opened as a file", { skip }, () => {
  test("it is one file whose CSP forbids every connection, and the built page is the same", () => {
    assert.match(
      page.csp,
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'sha256-/,
    );
    assert.match(page.csp, /connect-src 'none'/);
    assert.ok(page.html.includes(`content="${page.csp}"`));
    // No reference to anything outside the page.
    assert.doesNotMatch(page.html, /<(script|link|img|iframe)[^>]+(src|href)=/i);
    // The page `deno task playground:build` writes (build_npm.ts writes it too) is the same one.
    assert.equal(readFileSync(join(root, "dist", "playground", "index.html"), "utf8"), page.html);
  });

  test("each example bundle and draft loads, is valid and decides as evaluate does", async () => {
    const { tab, errors } = await openFile();
    try {
      const samples = await tab.locator("#sample option").evaluateAll((options) =>
        options.map((o) => o.value).filter((v) => v !== "")
      );
      // Every bundle and draft of examples/ (the suites are the Suite view's samples).
      assert.deepEqual(samples.sort(), examplesDocuments());
      for (const sample of samples) {
        await tab.selectOption("#sample", sample);
        await tab.waitForFunction(
          (name) =>
            document.querySelector("#document").value.length > 0 &&
            document.querySelector("#sample").value === name,
          sample,
        );
        await documentRead(tab);
        const status = await tab.locator("#document-status").textContent();
        assert.match(status, /^A valid (bundle|draft): /, sample);
        const text = example(sample);
        const document = JSON.parse(text);
        const bundle = document.env === undefined ? bundleOfDraft(document) : document;
        const compiled = engine.compileBundle(bundle);
        const targets = await tab.locator("#target-pick option").evaluateAll((options) =>
          options.filter((o) => o.value !== "").map((o) => o.textContent)
        );
        assert.ok(targets.length >= 2);
        for (const target of targets) {
          await tab.selectOption("#target-pick", { label: target });
          await setText(tab, "#context", '{"plan": "pro", "seats": 3, "role": "finance"}');
          const [service, resource, action] = target.split("/");
          const expected = engine.evaluate(compiled, {
            target: { service, resource, action },
            context: { plan: "pro", seats: 3, role: "finance" },
          });
          assert.deepEqual(await shownDecision(tab), expected, `${sample}: ${target}`);
        }
      }
      const readyMs = Number(await tab.evaluate(() => document.documentElement.dataset.readyMs));
      console.log(`# playground: usable ${readyMs} ms after navigation started (file://)`);
      assert.deepEqual(errors, []);
    } finally {
      await tab.close();
    }
  });

  test("the Why view ranks the candidates as traceEvaluation does and explains each rule", async () => {
    const { tab } = await openFile();
    try {
      await tab.selectOption("#sample", "bundle.json");
      await documentRead(tab);
      await tab.selectOption("#target-pick", { label: "search/catalog/query" });
      const context = { region: "eu", flags: { searchOutage: true } };
      await setText(tab, "#context", JSON.stringify(context));
      await tab.getByRole("tab", { name: "Why" }).click();
      const compiled = engine.compileBundle(JSON.parse(example("bundle.json")));
      const trace = engine.traceEvaluation(compiled, {
        target: { service: "search", resource: "catalog", action: "query" },
        context,
      });
      const candidates = await tab.locator("#why ol.candidates > li").allTextContents();
      assert.equal(candidates.length, trace.candidates.length);
      trace.candidates.forEach((c, i) => {
        assert.ok(candidates[i].startsWith(c.decision), candidates[i]);
        assert.ok(candidates[i].includes(`${c.policyKey}/${c.ruleId}`), candidates[i]);
      });
      assert.match(candidates[0], /selected/);
      const rows = await rowsOf(tab, "#why tbody tr");
      assert.deepEqual(
        rows.map((r) => [r[0], r[1], r[2], r[3]]),
        trace.rules.map((r) => [
          `${r.policyKey}/${r.ruleId}`,
          String(r.priority),
          r.outcome,
          r.effect ?? "—",
        ]),
      );
      const outage = rows.find((r) => r[0] === "incident.search/search-outage");
      // The condition, leaf by leaf: the path, the value read there and the outcome.
      assert.match(outage[4], /ctx\.flags\.searchOutage \(true\) exists ✓/);
      const burst = rows.find((r) => r[0] === "search.catalog.query/eu-burst");
      assert.match(burst[4], /region == "eu" ✓/);
      // A rule of the trace jumps to its place in the editor.
      await tab.locator("#why tbody").getByRole("button", {
        name: "incident.search/search-outage (show it in the editor)",
      }).click();
      const selected = await tab.evaluate(() => {
        const editor = document.querySelector("#document");
        return JSON.parse(editor.value.slice(editor.selectionStart, editor.selectionEnd));
      });
      assert.equal(selected.id, "search-outage");
    } finally {
      await tab.close();
    }
  });

  test("the matrix shows every target against the saved contexts, in words too, and a cell opens its trace", async () => {
    const { tab } = await openFile();
    try {
      await tab.selectOption("#sample", "bundle.json");
      await documentRead(tab);
      const saved = [
        ["free team", { plan: "free", seats: 8 }],
        ["eu outage", { region: "eu", flags: { searchOutage: true } }],
      ];
      for (const [name, context] of saved) {
        await setText(tab, "#context", JSON.stringify(context));
        await setText(tab, "#context-name", name);
        await tab.getByRole("button", { name: "Save context" }).click();
      }
      await setText(tab, "#context", "{}");
      await tab.getByRole("tab", { name: "Matrix" }).click();
      const headers = await tab.locator("#matrix thead th").allTextContents();
      assert.deepEqual(headers, ["Target", "current context", "free team", "eu outage"]);
      const compiled = engine.compileBundle(JSON.parse(example("bundle.json")));
      const rows = await tab.locator("#matrix tbody tr").evaluateAll((trs) =>
        trs.map((tr) => ({
          target: tr.querySelector("th").textContent,
          cells: [...tr.querySelectorAll("td button")].map((b) => ({
            text: b.textContent,
            kind: [...b.classList].find((c) => c.startsWith("kind-")),
          })),
        }))
      );
      assert.equal(rows.length, 2);
      const contexts = [{}, ...saved.map(([, c]) => c)];
      for (const row of rows) {
        const [service, resource, action] = row.target.split("/");
        row.cells.forEach((cell, i) => {
          const d = engine.evaluate(compiled, {
            target: { service, resource, action },
            context: contexts[i],
          });
          const kind = d.reason === "default" && d.policyKey === undefined
            ? "default-deny"
            : d.decision;
          assert.equal(cell.kind, `kind-${kind}`);
          assert.ok(
            cell.text.startsWith(d.decision === "kill_switch" ? "kill switch" : d.decision),
            cell.text,
          );
        });
      }
      const outage = rows.find((r) => r.target === "search/catalog/query").cells[2];
      assert.deepEqual(outage, { text: "kill switch", kind: "kind-kill_switch" });
      // A cell of a saved context opens its trace and leaves the context being typed as it is.
      const typing = '{"plan": "pro", "seats": ';
      await setText(tab, "#context", typing);
      await tab.getByRole("button", { name: /search\/catalog\/query with eu outage/ }).click();
      assert.equal(
        await tab.getByRole("tab", { name: "Why" }).getAttribute("aria-selected"),
        "true",
      );
      assert.equal(await tab.locator("#context").inputValue(), typing, "the context typed");
      assert.deepEqual(await targetFields(tab), ["billing", "invoice", "create"]);
      assert.match(
        await tab.locator("#why").textContent(),
        /search\/catalog\/query: kill switch by incident\.search\/search-outage/,
      );
      assert.match(await tab.locator("#why-pinned").textContent(), /saved context "eu outage"/);
      // Back to the Request panel's request: the Why view explains what is typed again.
      await tab.getByRole("button", { name: "Show the Request panel's request" }).click();
      assert.equal(await tab.locator("#why-pinned").isVisible(), false);
      assert.match(await tab.locator("#why").textContent(), /context is not a JSON object/);
      // Editing the request ends a pinned trace too.
      await tab.getByRole("tab", { name: "Matrix" }).click();
      await tab.getByRole("button", { name: /search\/catalog\/query with free team/ }).click();
      assert.equal(await tab.locator("#why-pinned").isVisible(), true);
      await setText(tab, "#context", "{}");
      assert.equal(await tab.locator("#why-pinned").isVisible(), false);
      assert.match(await tab.locator("#why").textContent(), /^billing\/invoice\/create: /);
      // The cell's request can be put in the Request panel, on demand.
      await tab.getByRole("tab", { name: "Matrix" }).click();
      await tab.getByRole("button", { name: /search\/catalog\/query with eu outage/ }).click();
      await tab.getByRole("button", { name: "Put this request in the Request panel" }).click();
      assert.deepEqual(JSON.parse(await tab.locator("#context").inputValue()), saved[1][1]);
      assert.deepEqual(await targetFields(tab), ["search", "catalog", "query"]);
      assert.equal(await tab.locator("#why-pinned").isVisible(), false);
      // A cell of the current context's column asks for that context: its target is put in the
      // Request panel, and the context stays.
      await setText(tab, "#context", '{"region": "eu"}');
      await tab.getByRole("tab", { name: "Matrix" }).click();
      await tab.getByRole("button", { name: /billing\/invoice\/create with current context/ })
        .click();
      assert.deepEqual(await targetFields(tab), ["billing", "invoice", "create"]);
      assert.equal(await tab.locator("#context").inputValue(), '{"region": "eu"}');
      assert.equal(await tab.locator("#why-pinned").isVisible(), false);
    } finally {
      await tab.close();
    }
  });

  test("a suite runs as simulate --suite runs it: a failing scenario shows expected against actual", async () => {
    const { tab } = await openFile();
    try {
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await documentRead(tab);
      await tab.getByRole("tab", { name: "Suite" }).click();
      await tab.selectOption("#suite-sample", { label: "service/policy/suite.json (sample)" });
      await tab.waitForSelector("#suite-summary");
      assert.match(
        await tab.locator("#suite-summary").textContent(),
        /7 scenarios, 7 passed, 0 failed/,
      );
      // One expectation made wrong: that scenario fails, the others pass.
      const suite = JSON.parse(example("service/policy/suite.json"));
      suite.scenarios[2].expected = { decision: "allow", ruleId: "free-small-teams" };
      suite.scenarios.splice(4, 2); // without the refund scenarios, finance-only is never reached
      await tab.locator("#suite-editor summary").click();
      await setText(tab, "#suite", JSON.stringify(suite, null, 2));
      await tab.waitForFunction(() =>
        /1 failed/.test(document.querySelector("#suite-summary")?.textContent)
      );
      const rows = await rowsOf(tab, "#suite-result tbody tr");
      assert.equal(rows.length, 5);
      const failed = rows.filter((r) => r[0] === "FAIL");
      assert.deepEqual(failed, [[
        "FAIL",
        "free plan, 12 seats, is refused",
        "billing/invoice/create",
        "allow (rule free-small-teams)",
        "deny (reason default, policy billing.invoice.create)",
      ]]);
      assert.deepEqual(await tab.locator("#suite-unreached li").allTextContents(), [
        "billing.refund.create/finance-only",
      ]);
      // A scenario opens its trace, and the Request panel keeps what was typed there.
      await setText(tab, "#context", '{"role": "finance"}');
      await tab.getByRole("button", { name: "free plan, 12 seats, is refused (open its trace)" })
        .click();
      assert.equal(await tab.locator("#context").inputValue(), '{"role": "finance"}');
      assert.match(
        await tab.locator("#why-pinned").textContent(),
        /scenario "free plan, 12 seats, is refused"/,
      );
      assert.match(await tab.locator("#why").textContent(), /billing\/invoice\/create: deny/);
    } finally {
      await tab.close();
    }
  });

  test("the diff lists the change by meaning and the decisions it changes, old and new side by side", async () => {
    const { tab } = await openFile();
    try {
      await tab.selectOption("#sample", "bundle.json");
      await documentRead(tab);
      await setText(tab, "#context", '{"region": "eu"}');
      await tab.getByRole("tab", { name: "Diff" }).click();
      await tab.getByRole("button", { name: "Use the editor's document as the old one" }).click();
      await tab.waitForSelector("#diff-decisions-summary");
      assert.match(await tab.locator("#diff-result").textContent(), /No change in meaning/);
      // The EU burst rule outranks the default allow no longer: a priority below "everyone".
      const before = JSON.parse(example("bundle.json"));
      const after = structuredClone(before);
      after.policies[1].rules[1].effect = { type: "deny" };
      await setText(tab, "#document", JSON.stringify(after, null, 2));
      await tab.waitForFunction(() => document.querySelector("#diff-meaning") !== null);
      const meaning = await tab.locator("#diff-meaning").textContent();
      assert.match(meaning, /~ policy search\.catalog\.query/);
      assert.match(meaning, /~ rule eu-burst/);
      assert.match(meaning, /effect: /);
      const { compareDecisions } = await importPackage("./diff");
      const requests = [
        {
          target: { service: "billing", resource: "invoice", action: "create" },
          context: { region: "eu" },
        },
        {
          target: { service: "search", resource: "catalog", action: "query" },
          context: { region: "eu" },
        },
      ];
      const oracle = compareDecisions(before, after, requests);
      assert.equal(oracle.changed, 1);
      assert.match(
        await tab.locator("#diff-decisions-summary").textContent(),
        new RegExp(`${oracle.requests} requests replayed .*: ${oracle.changed} change`),
      );
      const rows = await rowsOf(tab, "#diff-result table tbody tr");
      assert.equal(rows.length, 1);
      assert.match(rows[0][0], /search\/catalog\/query/);
      assert.match(rows[0][1], /^throttle .* by search\.catalog\.query\/eu-burst/);
      assert.match(rows[0][2], /^deny by search\.catalog\.query\/eu-burst/);
    } finally {
      await tab.close();
    }
  });

  test("the Signature view shows the four states, the checksum and the key id, with WebCrypto", async () => {
    const { tab, errors } = await openFile();
    try {
      const unsigned = JSON.parse(example("bundle.json"));
      const { privateKey, publicKey } = await verify.generateEcdsaKeyPair();
      const other = await verify.generateEcdsaKeyPair();
      const signed = await verify.signBundle(unsigned, {
        algorithm: "ECDSA_SHA_256",
        key: privateKey,
        keyId: "release-7",
      });
      const loaded = await verify.loadBundle(JSON.stringify(signed), {
        verify: { algorithm: "ECDSA_SHA_256", publicKey },
      });
      await tab.getByRole("tab", { name: "Signature" }).click();
      const state = async (documentText, key) => {
        await setText(tab, "#document", documentText);
        await setText(tab, "#sig-key", key);
        await tab.waitForFunction(
          ([doc, k]) =>
            document.querySelector("#document").value === doc &&
            document.querySelector("#sig-key").value === k &&
            document.querySelector("#signature-verdict") !== null,
          [documentText, key],
        );
        // The view is redrawn when the check settles: wait for it to name this document's checksum.
        await tab.waitForFunction(() =>
          document.querySelector("#signature-checksum")?.textContent.startsWith("sha256:")
        );
        return {
          current: await tab.locator('.states li[aria-current="true"] strong').allTextContents(),
          verdict: await tab.locator("#signature-verdict").textContent(),
          checksum: await tab.locator("#signature-checksum").textContent(),
          keyId: await tab.locator("#signature-key-id").textContent(),
        };
      };
      const verified = await state(JSON.stringify(signed, null, 2), publicKey);
      assert.deepEqual(verified.current, ["verified"]);
      assert.equal(verified.checksum, loaded.status.checksum);
      assert.equal(verified.keyId, "release-7");
      assert.deepEqual((await state(JSON.stringify(signed), "")).current, ["unverified"]);
      assert.deepEqual((await state(JSON.stringify(unsigned), publicKey)).current, ["missing"]);
      assert.deepEqual((await state(JSON.stringify(unsigned), "")).current, ["unsigned"]);
      const wrong = await state(JSON.stringify(signed), other.publicKey);
      assert.deepEqual(wrong.current, []);
      assert.match(wrong.verdict, /^Refused: .*BUNDLE_SIGNATURE_INVALID/);
      // HMAC: the warning that the secret is a secret, and the same pipeline.
      await tab.selectOption("#sig-algorithm", "HMAC_SHA256");
      assert.equal(await tab.locator("#sig-hmac-warning").isVisible(), true);
      const secret = verify.generateHmacSecret();
      const hmac = await verify.signBundle(unsigned, {
        algorithm: "HMAC_SHA256",
        key: secret,
        keyId: "ci",
      });
      const checked = await state(JSON.stringify(hmac), secret);
      assert.deepEqual(checked.current, ["verified"]);
      assert.equal(checked.keyId, "ci");
      assert.deepEqual(errors, []);
    } finally {
      await tab.close();
    }
  });

  test("a share link restores the bundle, the request, the saved contexts and the suite; a damaged one says so", async () => {
    const { tab } = await openFile();
    let link;
    try {
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await documentRead(tab);
      await tab.selectOption("#target-pick", { label: "billing/refund/create" });
      await setText(tab, "#context", '{"role": "finance"}');
      await setText(tab, "#context-name", "finance");
      await tab.getByRole("button", { name: "Save context" }).click();
      await setText(tab, "#context", '{"role": "support"}');
      await tab.getByRole("tab", { name: "Suite" }).click();
      await tab.selectOption("#suite-sample", { label: "service/policy/suite.json (sample)" });
      await tab.getByRole("button", { name: "Make a share link" }).click();
      await tab.waitForFunction(() => document.querySelector("#share-link").value.includes("#s="));
      link = await tab.locator("#share-link").inputValue();
      assert.ok(link.startsWith(`${fileUrl}#s=`));
      assert.match(await tab.locator("#page-status").textContent(), /nothing was sent anywhere/);
    } finally {
      await tab.close();
    }
    const { tab: restored } = await openFile(link);
    try {
      await documentRead(restored);
      assert.equal(
        await restored.locator("#document").inputValue(),
        example("playground/billing-draft.json"),
      );
      assert.deepEqual(
        [
          await restored.locator("#service").inputValue(),
          await restored.locator("#resource").inputValue(),
          await restored.locator("#action").inputValue(),
        ],
        ["billing", "refund", "create"],
      );
      assert.equal(await restored.locator("#context").inputValue(), '{"role": "support"}');
      assert.deepEqual(await shownDecision(restored), {
        decision: "deny",
        reason: "rule",
        policyKey: "billing.refund.create",
        ruleId: "finance-only",
      });
      assert.equal(
        await restored.locator("#suite").inputValue(),
        example("service/policy/suite.json"),
      );
      assert.match(await restored.locator("#page-status").textContent(), /Restored/);
      assert.deepEqual(await restored.locator("#saved-contexts li > span").allTextContents(), [
        "finance: ",
      ]);
      // The opened link stays in the address bar while the page shows its state, not after.
      assert.match(await restored.evaluate(() => location.hash), /^#s=/);
      await setText(restored, "#context", '{"role": "finance"}');
      assert.equal(await restored.evaluate(() => location.hash), "");
    } finally {
      await restored.close();
    }
    const { tab: damaged } = await openFile(`${fileUrl}#s=AAAA${"x".repeat(10)}`);
    try {
      await damaged.waitForFunction(() =>
        /could not be opened/.test(document.querySelector("#page-status").textContent)
      );
    } finally {
      await damaged.close();
    }
  });

  test("an issue's JSON Pointer selects its place in the editor", async () => {
    const { tab } = await openFile();
    try {
      const bundle = JSON.parse(example("bundle.json"));
      bundle.policies[1].rules[1].effect = { type: "throttle" }; // no throttle descriptor
      const text = JSON.stringify(bundle, null, 2);
      await setText(tab, "#document", text);
      await documentRead(tab);
      assert.match(await tab.locator("#document-status").textContent(), /not valid/);
      const issue = tab.locator("#issues button").first();
      assert.match(await issue.textContent(), /\/policies\/1\/rules\/1\/effect/);
      await issue.click();
      const selection = await tab.evaluate(() => {
        const editor = document.querySelector("#document");
        return {
          focused: document.activeElement === editor,
          text: editor.value.slice(editor.selectionStart, editor.selectionEnd),
        };
      });
      assert.equal(selection.focused, true);
      assert.deepEqual(JSON.parse(selection.text), { type: "throttle" });
      // Not JSON: the error marks the character where the text stops parsing.
      await setText(tab, "#document", '{"schemaVersion": 1, "env": "prod", "policies": [}');
      await documentRead(tab);
      await tab.locator("#issues button").first().click();
      assert.equal(
        await tab.evaluate(() => document.querySelector("#document").selectionStart),
        49,
      );
    } finally {
      await tab.close();
    }
  });

  test("the views are tabs the keyboard moves through, and the page fits a laptop screen", async () => {
    const { tab } = await openFile();
    try {
      await tab.getByRole("tab", { name: "Why" }).focus();
      await tab.keyboard.press("ArrowRight");
      assert.equal(
        await tab.getByRole("tab", { name: "Matrix" }).getAttribute("aria-selected"),
        "true",
      );
      assert.equal(await tab.evaluate(() => document.activeElement.id), "tab-matrix");
      assert.equal(await tab.locator("#view-matrix").isVisible(), true);
      assert.equal(await tab.locator("#view-why").isVisible(), false);
      await tab.keyboard.press("End");
      assert.equal(await tab.evaluate(() => document.activeElement.id), "tab-signature");
      await tab.keyboard.press("ArrowRight");
      assert.equal(await tab.evaluate(() => document.activeElement.id), "tab-why");
      for (const viewport of [{ width: 1280, height: 720 }, { width: 1024, height: 768 }]) {
        await tab.setViewportSize(viewport);
        const overflow = await tab.evaluate(() =>
          document.documentElement.scrollWidth - innerWidth
        );
        assert.ok(overflow <= 0, `${viewport.width}px wide: ${overflow}px scroll sideways`);
      }
    } finally {
      await tab.close();
    }
  });

  test("the target follows the document: one without it resets it to its first, a typed one stays", async () => {
    const { tab } = await openFile();
    const readAs = (kind) =>
      tab.waitForFunction(
        (k) => document.querySelector("#document-status").textContent.startsWith(`A valid ${k}`),
        kind,
      );
    const picked = () =>
      tab.locator("#target-pick").evaluate((select) => select.selectedOptions[0].textContent);
    try {
      await tab.selectOption("#sample", "bundle.json");
      await readAs("bundle");
      await tab.selectOption("#target-pick", { label: "search/catalog/query" });
      // A document that does not name the target: its first target is taken.
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await readAs("draft");
      assert.deepEqual(await targetFields(tab), ["billing", "invoice", "create"]);
      assert.equal(await picked(), "billing/invoice/create");
      // Likewise for a document pasted or typed into the editor (a one-line bundle here).
      await tab.selectOption("#target-pick", { label: "billing/refund/create" });
      await setText(tab, "#document", example("bundle.json").replace(/\n\s*/g, ""));
      await readAs("bundle");
      assert.deepEqual(await targetFields(tab), ["billing", "invoice", "create"]);
      const compiled = engine.compileBundle(JSON.parse(example("bundle.json")));
      const request = {
        target: { service: "billing", resource: "invoice", action: "create" },
        context: {},
      };
      assert.deepEqual(await shownDecision(tab), engine.evaluate(compiled, request));
      // A document that does not read yet (typing) leaves the target alone; so does one that
      // names it.
      await tab.selectOption("#target-pick", { label: "search/catalog/query" });
      await setText(tab, "#document", '{"schemaVersion": 1, "policies": [');
      await documentRead(tab);
      assert.deepEqual(await targetFields(tab), ["search", "catalog", "query"]);
      await setText(tab, "#document", example("bundle.json"));
      await readAs("bundle");
      assert.deepEqual(await targetFields(tab), ["search", "catalog", "query"]);
      // A target typed by hand is the user's: it stays whatever the document names.
      await setText(tab, "#service", "nobody");
      await setText(tab, "#resource", "names");
      await setText(tab, "#action", "this");
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await readAs("draft");
      assert.deepEqual(await targetFields(tab), ["nobody", "names", "this"]);
      assert.equal(await picked(), "(typed)");
    } finally {
      await tab.close();
    }
  });

  test("a status or notice goes away once it no longer applies", async () => {
    const { tab } = await openFile();
    const status = () => tab.locator("#page-status").textContent();
    try {
      await documentRead(tab);
      await setText(tab, "#context", "{oops");
      await tab.getByRole("button", { name: "Save context" }).click();
      assert.match(await status(), /Fix the context first/);
      await setText(tab, "#context", '{"plan": "pro"}');
      assert.equal(await status(), "", "fixed: the request to fix it goes");
      await tab.getByRole("button", { name: "Save context" }).click();
      assert.match(await status(), /Saved the context as "context 1"/);
      // Looking at another view changes nothing: it stays.
      await tab.getByRole("tab", { name: "Matrix" }).click();
      assert.match(await status(), /Saved the context as "context 1"/);
      await setText(tab, "#context", '{"plan": "free"}');
      assert.equal(await status(), "");
      // A share link is the state it was made of: once the state changes, the link and what was
      // said about it go.
      await tab.getByRole("button", { name: "Make a share link" }).click();
      await tab.waitForFunction(() => document.querySelector("#share-link").value.includes("#s="));
      assert.equal(await tab.locator("#share-link").isVisible(), true);
      assert.match(await status(), /^Link/);
      assert.match(await tab.evaluate(() => location.hash), /^#s=/);
      await setText(tab, "#context", '{"plan": "pro"}');
      assert.equal(await tab.locator("#share-link").isVisible(), false);
      assert.equal(await status(), "");
      // The address bar goes with it: a reload or a copied address must not bring back the old state.
      assert.equal(await tab.evaluate(() => location.hash), "");
      await tab.getByRole("tab", { name: "Diff" }).click();
      await tab.getByRole("button", { name: "Use the editor's document as the old one" }).click();
      assert.match(await status(), /now the old side/);
      await setText(tab, "#document", example("playground/billing-draft.json"));
      assert.equal(await status(), "");
    } finally {
      await tab.close();
    }
  });

  test("a one-line document gets a Format button that lays it out, meaning and comments kept", async () => {
    const { tab } = await openFile();
    const status = () => tab.locator("#document-status").textContent();
    try {
      const { privateKey } = await verify.generateEcdsaKeyPair();
      const signed = await verify.signBundle(JSON.parse(example("bundle.json")), {
        algorithm: "ECDSA_SHA_256",
        key: privateKey,
        keyId: "release-7",
      });
      await setText(tab, "#document", JSON.stringify(signed));
      await tab.waitForFunction(() =>
        document.querySelector("#document-status").textContent.startsWith("A valid bundle")
      );
      const format = tab.getByRole("button", { name: "Format", exact: true });
      await format.click();
      assert.equal(
        await tab.locator("#document").inputValue(),
        `${JSON.stringify(signed, null, 2)}\n`,
      );
      await documentRead(tab);
      assert.match(await status(), /^A valid bundle/);
      // Only the layout changed: the checksum still matches.
      assert.doesNotMatch(await tab.locator("#issues").textContent(), /CHECKSUM_MISMATCH/);
      // A draft's comments are kept, in place.
      const draft = '{"schemaVersion": "1.0", /* from analyze */ "policies": []}';
      await setText(tab, "#document", draft);
      await documentRead(tab);
      await format.click();
      const formatted = await tab.locator("#document").inputValue();
      assert.ok(formatted.includes("/* from analyze */"), formatted);
      assert.ok(formatted.startsWith('{\n  "schemaVersion": "1.0",'), formatted);
      assert.deepEqual(
        JSON.parse(formatted.replace("/* from analyze */", "")),
        JSON.parse(draft.replace("/* from analyze */", "")),
      );
      // Text that is not JSON cannot be laid out: the button says so by being unavailable.
      await setText(tab, "#document", '{"schemaVersion": 1, "policies": [');
      await documentRead(tab);
      assert.equal(await format.isDisabled(), true);
    } finally {
      await tab.close();
    }
  });

  test("the signature verdict is in sight when its view opens, and long values wrap in their boxes", async () => {
    const { tab } = await openFile();
    try {
      const { privateKey, publicKey } = await verify.generateEcdsaKeyPair();
      const signed = await verify.signBundle(JSON.parse(example("bundle.json")), {
        algorithm: "ECDSA_SHA_256",
        key: privateKey,
        keyId: "release-2026-11-21-with-a-rather-long-key-identifier-for-the-billing-team",
      });
      const edited = structuredClone(signed);
      edited.policies[0].rules[0].priority += 1; // the checksum no longer matches
      await tab.getByRole("tab", { name: "Diff" }).click();
      await setText(tab, "#document", JSON.stringify(signed));
      await documentRead(tab);
      await tab.getByRole("button", { name: "Use the editor's document as the old one" }).click();
      await setText(tab, "#document", JSON.stringify(edited));
      await tab.waitForSelector("#diff-meaning");
      await tab.getByRole("tab", { name: "Signature" }).click();
      await setText(tab, "#sig-key", publicKey);
      await tab.waitForFunction(() =>
        /CHECKSUM_MISMATCH/.test(document.querySelector("#signature-verdict")?.textContent)
      );
      const verdictInSight = () =>
        tab.evaluate(() => {
          const box = document.querySelector("#signature-verdict").getBoundingClientRect();
          return box.top >= 0 && box.bottom <= innerHeight;
        });
      // A laptop screen (two columns): the page as it opens, unscrolled.
      for (const viewport of [{ width: 1366, height: 768 }, { width: 1280, height: 720 }]) {
        await tab.setViewportSize(viewport);
        await tab.evaluate(() => scrollTo(0, 0));
        assert.equal(await verdictInSight(), true, `${viewport.width}×${viewport.height}`);
      }
      // One column: the views are below the bundle; scrolled to the tabs, the verdict is in sight,
      // with the HMAC warning shown too.
      await tab.setViewportSize({ width: 1024, height: 768 });
      await tab.selectOption("#sig-algorithm", "HMAC_SHA256");
      await tab.evaluate(() => document.querySelector('[role="tablist"]').scrollIntoView());
      assert.equal(await verdictInSight(), true, "1024×768, HMAC");
      await tab.selectOption("#sig-algorithm", "ECDSA_SHA_256");
      // Checksums, key ids and messages that hold them stay inside their boxes in every view.
      for (const viewport of [{ width: 1366, height: 768 }, { width: 1024, height: 768 }]) {
        await tab.setViewportSize(viewport);
        for (const view of ["Signature", "Diff", "Why"]) {
          await tab.getByRole("tab", { name: view }).click();
          assert.deepEqual(await overflowingText(tab), [], `${view} at ${viewport.width}px`);
        }
      }
    } finally {
      await tab.close();
    }
  });

  test("axe-core finds no serious or critical accessibility violation in any view", async () => {
    const { tab } = await openFile();
    try {
      await tab.selectOption("#sample", "playground/billing-draft.json");
      await documentRead(tab);
      await setText(tab, "#context", '{"plan": "free", "seats": 8}');
      await setText(tab, "#context-name", "free team");
      await tab.getByRole("button", { name: "Save context" }).click();
      // The page's CSP admits only its own script: axe is evaluated through the DevTools protocol,
      // which the page's policy does not govern (a <script> tag would be refused).
      const axe = readFileSync(scratchRequire.resolve("axe-core/axe.min.js"), "utf8");
      await tab.evaluate(axe);
      const views = ["Why", "Matrix", "Suite", "Diff", "Signature"];
      const found = [];
      for (const view of views) {
        await tab.getByRole("tab", { name: view }).click();
        if (view === "Suite") {
          await tab.selectOption("#suite-sample", { label: "service/policy/suite.json (sample)" });
        }
        if (view === "Diff") {
          await tab.getByRole("button", { name: "Use the editor's document as the old one" })
            .click();
        }
        if (view === "Signature") await tab.selectOption("#sig-algorithm", "HMAC_SHA256");
        const result = await tab.evaluate(() =>
          globalThis.axe.run(document, { resultTypes: ["violations"] })
        );
        for (const v of result.violations) {
          if (v.impact === "serious" || v.impact === "critical") {
            found.push(
              `${view}: ${v.id} (${v.impact}): ${v.help} — ${
                v.nodes.map((n) => n.target.join(" ")).join(", ")
              }`,
            );
          }
        }
      }
      assert.deepEqual(found, []);
    } finally {
      await tab.close();
    }
  });
});

testNoRequestLeft();
