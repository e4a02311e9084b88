/// <reference lib="dom" />
/**
 * The playground page (docs/playground.md): the entry point that
 * `tools/build_playground.ts` bundles into `dist/playground/index.html`.
 * It wires the panels to one state, restores a shared link from the URL
 * fragment, and in live mode follows the working folder of
 * `policy playground`.
 *
 * @module
 */
import { App } from "./app_state.ts";
import { byId } from "./_dom.ts";
import { bundlePanel } from "./bundle_panel.ts";
import { requestPanel } from "./request_panel.ts";
import { whyPanel } from "./why_panel.ts";
import { matrixPanel } from "./matrix_panel.ts";
import { suitePanel } from "./suite_panel.ts";
import { diffPanel } from "./diff_panel.ts";
import { signaturePanel } from "./signature_panel.ts";
import { setUpTabs } from "./tabs.ts";
import { samplesOf } from "./samples.ts";
import {
  decodeShareFragment,
  encodeShareFragment,
  LONG_LINK_CHARS,
  MAX_LINK_CHARS,
  SHARE_PREFIX,
} from "./share_link.ts";
import { connectLive, liveEventsPath } from "./live_updates.ts";
import type { LiveState } from "../src/_authoring/live_state.ts";

const app = new App();
const status = byId("page-status");
app.announce = (message) => {
  status.textContent = message;
};
app.showView = setUpTabs(document.querySelector<HTMLElement>('[role="tablist"]')!);
bundlePanel(app);
requestPanel(app);
whyPanel(app);
matrixPanel(app);
const suites = suitePanel(app);
diffPanel(app);
signaturePanel(app);
app.refresh();

// Sharing: the state into the fragment, never anywhere else.
const shareLink = byId<HTMLInputElement>("share-link");
byId("share").addEventListener("click", async () => {
  const fragment = await encodeShareFragment(app.shared());
  if (fragment.length > MAX_LINK_CHARS) {
    app.announce(
      `The state is too large for a link (${fragment.length} characters; browsers take at most ${MAX_LINK_CHARS}): save the files and share them instead.`,
    );
    return;
  }
  history.replaceState(null, "", `#${fragment}`);
  shareLink.hidden = false;
  shareLink.value = location.href;
  shareLink.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(location.href);
    copied = true;
  } catch {
    // No clipboard (or no permission): the link is selected for copying by hand.
  }
  const size = `${location.href.length} characters`;
  app.announce(
    (copied ? "Link copied" : "Link ready: copy it from the box") +
      (fragment.length > LONG_LINK_CHARS
        ? ` (${size}: long links may be cut by chat tools and mail; save the files instead if it does not open whole).`
        : ` (${size}). Everything is in the link itself: nothing was sent anywhere.`),
  );
});

async function restoreFromFragment(): Promise<boolean> {
  if (!location.hash.startsWith(`#${SHARE_PREFIX}`)) return false;
  try {
    await app.restore(await decodeShareFragment(location.hash));
    app.announce("Restored the state of the link.");
    return true;
  } catch (error) {
    app.announce(`This link could not be opened: ${(error as Error).message}.`);
    return false;
  }
}
addEventListener("hashchange", () => void restoreFromFragment());

/** Live mode: the last texts the server pushed, to tell the user's edits from the file's. */
let lastPushed: string | null = null;
let lastSuites: string | null = null;
function onLiveState(state: LiveState, first: boolean, restored: boolean): void {
  const mode = byId("mode");
  const file = state.document;
  mode.className = "mode live";
  mode.textContent = file === null
    ? `Live: no draft or bundle in ${state.workingFolder} yet.`
    : `Live: ${file.path}${file.error === null ? "" : ` (${file.error.message})`}`;
  suites.setFolderSuites(
    state.suites.filter((s) => s.text !== null).map((s) => ({
      label: s.relativePath,
      text: s.text!,
    })),
  );
  const firstSuite = state.suites.find((s) => s.text !== null)?.text ?? null;
  if (firstSuite !== null && (app.state.suiteText === "" || app.state.suiteText === lastSuites)) {
    if (!(first && restored)) app.set({ suiteText: firstSuite });
  }
  lastSuites = firstSuite;
  const text = file?.text ?? null;
  if (text === null) return;
  const notice = byId("live-notice");
  const untouched = app.state.documentText === lastPushed || app.state.documentText === "";
  if ((first && !restored) || (!first && untouched)) {
    notice.hidden = true;
    void app.setDocument(text);
  } else if (text !== app.state.documentText) {
    byId("live-notice-text").textContent = `${
      file!.path
    } changed on disk; the editor has your edits.`;
    notice.hidden = false;
    byId("live-load").onclick = () => {
      notice.hidden = true;
      void app.setDocument(text);
    };
  }
  lastPushed = text;
}

async function start(): Promise<void> {
  const restored = await restoreFromFragment();
  const live = liveEventsPath();
  if (live !== null) {
    let first = true;
    connectLive(live, (state) => {
      onLiveState(state, first, restored);
      first = false;
    }, (connected, message) => {
      if (!connected) {
        const mode = byId("mode");
        mode.className = "mode offline-live";
        mode.textContent = message;
      } else if (message !== "") {
        app.announce(message);
      }
    });
  }
  if (!restored && live === null) {
    const [first] = samplesOf("bundle", "draft");
    if (first !== undefined) {
      await app.setDocument(first.text);
      byId<HTMLSelectElement>("sample").value = first.path;
    }
  }
  // When the page became usable, in milliseconds since navigation started (docs/playground.md).
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
  document.documentElement.dataset.ready = "true";
}

void start();
