// What the playground's browser tests share (playground.test.mjs, playground_requests.test.mjs,
// playground_served.test.mjs): the page the npm package ships, written to a file; one Chromium per
// test file (see _playground_browser.mjs) whose every request is recorded, and refused unless it
// is the page's own; the installed package's engine to compare decisions with; and the helpers
// that read and drive the page. The tests are three files so that `node --test` runs them side
// by side: each waits on its browser much of the time.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { importPackage, packageDir, root } from "./_package.mjs";
import { guardNetwork, launchBrowser, skipBrowser } from "./_playground_browser.mjs";

/** Why the browser tests cannot run here, or false. */
export const skip = skipBrowser;
export const SEED = Number(process.env.POLICY_TEST_SEED ?? 28) >>> 0;
/** A file of examples/, as text. */
export const example = (path) => readFileSync(join(root, "examples", path), "utf8");

/** The browser of this test file (set by {@link usePlayground}'s `before`). */
export let browser;
/** Every request of every page of the browser; only the page's own addresses are allowed. */
export let network;
/** What pages may request: the page's file, and a playground server's page and events. */
export const allowed = new Set();
/** The installed package's `./engine` and `./verify`. */
export let engine;
export let verify;
/** The page module the npm package ships (`html`, `csp`): what the `policy` bin serves. */
export let page;
/** The page written to a file, and its file: URL. */
export let fileUrl;
const scratchDirs = [];

/** A temporary folder, removed after the file's tests. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Sets up (before the file's tests) and closes (after them) the browser and the page. */
export function usePlayground() {
  before(async () => {
    if (skip) return;
    engine = await importPackage("./engine");
    verify = await importPackage("./verify");
    // The page as the npm package ships it: the module the `policy` bin imports.
    page = await import(pathToFileURL(join(packageDir, "dist", "playground", "page.js")).href);
    const dir = tempDir("policy-playground-page-");
    const pageFile = join(dir, "index.html");
    writeFileSync(pageFile, page.html);
    fileUrl = pathToFileURL(pageFile).href;
    browser = await launchBrowser();
    allowed.add(fileUrl);
    network = await guardNetwork(browser.context, (url) => allowed.has(url));
  });

  after(async () => {
    await browser?.close();
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * The file's last test: no page of its browser made a request but to itself (and, served, to
 * its server), and the guard does stop one that leaves.
 */
export function testNoRequestLeft() {
  test("no page made a request but to itself (and, served, to its server)", { skip }, async () => {
    assert.ok(network.requests.some((url) => allowed.has(url)), "the pages' requests were seen");
    assert.deepEqual(network.refused, [], "requests the guard refused");
    assert.deepEqual(network.outside(), [], "requests outside the page");
    // The guard sees and stops a request that does leave (TEST-NET-1: nothing answers there).
    const tab = await browser.context.newPage();
    try {
      await assert.rejects(tab.goto("http://192.0.2.1/leak"));
      assert.deepEqual(network.refused, ["http://192.0.2.1/leak"]);
      assert.deepEqual(network.outside(), ["http://192.0.2.1/leak"]);
    } finally {
      await tab.close();
    }
  });
}

/** A new page of the shared browser on the file, guarded: only the file itself may load. */
export async function openFile(url = fileUrl) {
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on("pageerror", (error) => errors.push(error.message));
  tab.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await tab.goto(url);
  await tab.waitForSelector("html[data-ready=true]");
  return { tab, errors };
}

/** Waits for the document in the editor to be read (a status naming what it is). */
export async function documentRead(tab) {
  await tab.waitForFunction(() =>
    /^(A valid|A |Not JSON)/.test(
      document.querySelector("#document-status").textContent,
    )
  );
}

/** Puts text in an editor as a user typing it would (one input event). */
export async function setText(tab, selector, text) {
  await tab.locator(selector).fill(text);
}

/**
 * Puts a whole request in the Request panel at once: each field's text set and its input event
 * sent, as {@link setText} does, in one round trip to the page. Playwright's `fill` waits for
 * each field to be visible, stable and editable first, which costs about 20 ms a field; the
 * generated-request test fills four fields 200 times and checks decisions, not typing.
 */
export async function setRequest(tab, request) {
  await tab.evaluate((fields) => {
    for (const [selector, text] of fields) {
      const field = document.querySelector(selector);
      field.value = text;
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }, [
    ["#service", request.target.service],
    ["#resource", request.target.resource],
    ["#action", request.target.action],
    ["#context", JSON.stringify(request.context)],
  ]);
}

/**
 * The cells of the table rows `selector` finds, as the page shows them:
 * without what only screen readers get (`.sr-only`, the ends of accessible names).
 */
export function rowsOf(tab, selector) {
  return tab.locator(selector).evaluateAll((trs) =>
    trs.map((tr) =>
      [...tr.querySelectorAll("td")].map((td) => {
        const copy = td.cloneNode(true);
        for (const hidden of copy.querySelectorAll(".sr-only")) hidden.remove();
        return copy.textContent;
      })
    )
  );
}

/** The bundles and drafts of examples/ (what the page offers as samples), sorted. */
export function examplesDocuments() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, "examples", dir), { withFileTypes: true })) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "rules" && entry.name !== "node_modules") walk(path);
      } else if (entry.name.endsWith(".json") && entry.name !== "policy.config.json") {
        const document = JSON.parse(readFileSync(join(root, "examples", path), "utf8"));
        if (Array.isArray(document.policies)) found.push(path);
      }
    }
  };
  walk("");
  return found.sort();
}

/** The target the Request panel's fields hold: `[service, resource, action]`. */
export function targetFields(tab) {
  return tab.evaluate(() =>
    ["#service", "#resource", "#action"].map((id) => document.querySelector(id).value)
  );
}

/**
 * Text of the page that does not fit the box it is in: every text node whose right edge passes
 * the content edge of the closest box that clips it (a scrolling box, a button, a panel). Text
 * read by screen readers only is left out.
 */
export function overflowingText(tab) {
  return tab.evaluate(() => {
    const found = [];
    const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (node.textContent.trim() === "" || node.parentElement.closest(".sr-only")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const text = range.getBoundingClientRect();
      if (text.width === 0) continue;
      let box = node.parentElement;
      while (
        !box.classList.contains("panel") && box.tagName !== "BUTTON" &&
        getComputedStyle(box).overflowX === "visible"
      ) box = box.parentElement;
      const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      if (text.right > edge + 1) {
        found.push(
          `${Math.round(text.right - edge)}px past ${box.tagName.toLowerCase()}${
            box.id ? `#${box.id}` : ""
          }: ${node.textContent.slice(0, 60)}`,
        );
      }
    }
    return found;
  });
}

/** The decision the Request panel shows, as JSON. */
export async function shownDecision(tab) {
  const text = await tab.locator("#decision-json").textContent();
  return text === "" ? null : JSON.parse(text);
}

/** A seeded source of numbers in [0, 1) (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}

/** The paths and values of a bundle's conditions, for generating contexts that reach them. */
function conditionVocabulary(bundle) {
  const paths = new Map();
  const visit = (c) => {
    if (c === null || typeof c !== "object") return;
    for (const child of [...(c.conditions ?? c.args ?? []), c.condition, c.arg]) visit(child);
    if (typeof c.path !== "string") return;
    const path = c.path.startsWith("ctx.") ? c.path.slice(4) : c.path;
    const values = paths.get(path) ?? new Set();
    for (const v of [c.value, ...(c.values ?? [])]) if (v !== undefined) values.add(v);
    paths.set(path, values);
  };
  for (const policy of bundle.policies) for (const rule of policy.rules) visit(rule.when);
  return [...paths].map(([path, values]) => ({ path: path.split("."), values: [...values] }));
}

/** Random requests for a bundle: its targets (and an unknown one), contexts from its conditions. */
export function generateRequests(bundle, count, rng) {
  const targets = [...new Map(
    bundle.policies.flatMap((p) => p.rules.map((r) => [JSON.stringify(r.target), r.target])),
  ).values()];
  targets.push({ service: "nobody", resource: "names", action: "this" });
  const vocabulary = conditionVocabulary(bundle);
  const noise = ["", "other", 0, 3, 5, 6, 12, 40, true, false, null, "EU", "eu "];
  const requests = [];
  for (let i = 0; i < count; i++) {
    const context = {};
    for (const { path, values } of vocabulary) {
      if (rng.next() < 0.3) continue;
      let at = context;
      for (const key of path.slice(0, -1)) at = at[key] ??= {};
      at[path.at(-1)] = rng.next() < 0.7 && values.length > 0 ? rng.pick(values) : rng.pick(noise);
    }
    requests.push({ target: rng.pick(targets), context });
  }
  return requests;
}

/** The bundle a draft builds to, as `policy build` projects it (written here independently). */
export function bundleOfDraft(draft) {
  return {
    schemaVersion: 1,
    env: "dev",
    policies: draft.policies.map((p) => ({
      policyKey: p.policyKey,
      activeVersion: p.activeVersion,
      rules: p.rules,
      ...(p.defaults === undefined ? {} : { defaults: p.defaults }),
    })),
  };
}
