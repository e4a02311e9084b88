// `policy playground` in a real browser (see playground.test.mjs): the page served by the npm
// bin under Node, and (in test:long) by `deno run <policy task flags> cli.ts` when deno is on
// PATH, is a live view of the working folder, and reaches nothing but its server. The quick suite
// serves it from the npm bin only: the Deno-served page is the same module, and
// tests/cli/commands/playground/playground_test.ts runs that server under Deno.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { root, scratch } from "./_package.mjs";
import { LONG, longOnly } from "./_long.mjs";
import {
  allowed,
  browser,
  example,
  network,
  page,
  setText,
  skip,
  tempDir,
  testNoRequestLeft,
  usePlayground,
} from "./_playground_page.mjs";

usePlayground();

/** Where `deno` is, when it is on PATH and the run is long (the Deno-served variant runs only then). */
const deno = LONG && spawnSync("deno", ["--version"], { encoding: "utf8" }).status === 0
  ? "deno"
  : null;
/**
 * Deno's cache folder as this process's `deno` finds it. The served test gives `policy
 * playground` a HOME of its own (no user config is read); Deno would then look for its cache
 * under that HOME, find none, and fetch and compile the CLI's dependencies again (20 s here).
 */
const denoDir = deno === null
  ? null
  : JSON.parse(spawnSync(deno, ["info", "--json"], { encoding: "utf8" }).stdout).denoDir;

/** The ways `policy playground` runs: the npm bin under Node, and the repository's cli.ts under Deno. */
const servers = [
  ["the npm bin under Node", () => [join(scratch, "node_modules", ".bin", "policy"), []]],
  [
    "deno run <policy task flags> cli.ts",
    () => {
      const task = JSON.parse(readFileSync(join(root, "deno.json"), "utf8")).tasks.policy;
      const words = task.split(/\s+/);
      return [deno, [...words.slice(1, -1), join(root, "cli.ts")]];
    },
  ],
];

/** Why the Deno-served variant does not run, or false. */
const skipDeno = longOnly || (deno === null ? "deno is not on PATH" : false);

for (const [name, command] of servers) {
  const skipServer = skip || (name.startsWith("deno") && skipDeno);
  test(
    `served by policy playground (${name}): a live view of the working folder, nothing else reached`,
    {
      skip: skipServer,
    },
    async () => {
      const folder = tempDir("policy-playground-wf-");
      const draftPath = join(folder, "policy-drafts.json");
      writeFileSync(draftPath, example("playground/billing-draft.json"));
      mkdirSync(join(folder, "policy"));
      writeFileSync(join(folder, "policy", "suite.json"), example("service/policy/suite.json"));
      const [bin, prefix] = command();
      const child = spawn(bin, [
        ...prefix,
        "-w",
        folder,
        "playground",
        "--port",
        "0",
        "--format",
        "json",
      ], {
        cwd: folder,
        env: {
          ...process.env,
          HOME: folder,
          POLICY_HOME: folder,
          POLICY_WORKING_FOLDER: "",
          ...(bin === deno && !process.env.DENO_DIR ? { DENO_DIR: denoDir } : {}),
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (chunk) => stderr += chunk);
      const exited = new Promise((resolve) => child.on("exit", resolve));
      try {
        const started = await new Promise((resolve, reject) => {
          child.stdout.on("data", (chunk) => {
            stdout += chunk;
            try {
              resolve(JSON.parse(stdout));
            } catch {
              // Not the whole document yet.
            }
          });
          exited.then((code) =>
            reject(new Error(`policy playground exited (${code}):\n${stderr}`))
          );
        });
        const origin = new URL(started.url).origin;
        const tab = await browser.context.newPage();
        allowed.add(started.url);
        allowed.add(`${origin}/events`);
        const errors = [];
        tab.on("pageerror", (error) => errors.push(error.message));
        try {
          await tab.goto(started.url);
          await tab.waitForSelector("html[data-ready=true]");
          await tab.waitForFunction(() => document.querySelector("#document").value.length > 0);
          assert.equal(
            await tab.locator("#document").inputValue(),
            readFileSync(draftPath, "utf8"),
          );
          assert.match(await tab.locator("#mode").textContent(), /^Live: .*policy-drafts\.json/);
          const csp = await tab.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute(
            "content",
          );
          assert.equal(csp, page.csp.replace("connect-src 'none'", "connect-src 'self'"));
          await tab.getByRole("tab", { name: "Suite" }).click();
          await tab.waitForSelector("#suite-summary");
          assert.match(await tab.locator("#suite-summary").textContent(), /7 passed, 0 failed/);
          // Authoring in an editor: the page follows the file.
          const edited = readFileSync(draftPath, "utf8").replace('"value": 5', '"value": 2');
          writeFileSync(draftPath, edited);
          await tab.waitForFunction(
            (text) => document.querySelector("#document").value === text,
            edited,
            {
              timeout: 15_000,
            },
          );
          await tab.waitForFunction(() =>
            /1 failed/.test(document.querySelector("#suite-summary").textContent)
          );
          // An edit in the page is not overwritten: a change on disk is offered instead.
          await setText(tab, "#document", edited.replace('"priority": 20', '"priority": 30'));
          writeFileSync(draftPath, example("playground/billing-draft.json"));
          await tab.waitForSelector("#live-notice:not([hidden])", { timeout: 15_000 });
          assert.match(await tab.locator("#document").inputValue(), /"priority": 30/);
          await tab.getByRole("button", { name: "Load it" }).click();
          await tab.waitForFunction(
            (text) => document.querySelector("#document").value === text,
            example("playground/billing-draft.json"),
          );
          assert.equal(await tab.locator("#live-notice").isVisible(), false);
          // The notice goes as soon as it no longer applies: here the editor's text made the
          // file's.
          const onDisk = example("playground/billing-draft.json").replace(
            '"value": 5',
            '"value": 6',
          );
          await setText(tab, "#document", edited);
          writeFileSync(draftPath, onDisk);
          await tab.waitForSelector("#live-notice:not([hidden])", { timeout: 15_000 });
          await setText(tab, "#document", onDisk);
          assert.equal(await tab.locator("#live-notice").isVisible(), false);
          // A share link opened in the served page shows the link's document, and says only that
          // the file differs: nothing changed on disk.
          const linked = onDisk.replace('"priority": 20', '"priority": 40');
          await setText(tab, "#document", linked);
          await tab.getByRole("button", { name: "Make a share link" }).click();
          await tab.waitForFunction(() =>
            document.querySelector("#share-link").value.includes("#s=")
          );
          const link = await tab.locator("#share-link").inputValue();
          const shared = await browser.context.newPage();
          try {
            shared.on("pageerror", (error) => errors.push(error.message));
            await shared.goto(link);
            await shared.waitForSelector("html[data-ready=true]");
            await shared.waitForFunction(() =>
              /^Live: /.test(document.querySelector("#mode").textContent)
            );
            assert.equal(await shared.locator("#document").inputValue(), linked);
            const notice = await shared.locator("#live-notice").textContent();
            assert.doesNotMatch(notice, /changed on disk/);
            assert.match(notice, /policy-drafts\.json on disk differs from the link's document/);
            await shared.getByRole("button", { name: "Load it" }).click();
            assert.equal(await shared.locator("#document").inputValue(), onDisk);
            assert.equal(await shared.locator("#live-notice").isVisible(), false);
          } finally {
            await shared.close();
          }
          assert.deepEqual(errors, []);
          assert.ok(
            network.requests.includes(`${origin}/events`),
            "the page follows the event stream",
          );
        } finally {
          await tab.close();
        }
      } finally {
        if (child.exitCode === null) {
          process.kill(-child.pid, "SIGTERM");
          await exited;
        }
      }
    },
  );
}

testNoRequestLeft();
