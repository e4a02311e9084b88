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
import { App, sameShared } from "./app_state.ts";
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
  type SharedState,
} from "./share_link.ts";
import { connectLive, liveEventsPath } from "./live_updates.ts";
import type { LiveState } from "../src/authoring/live_state.ts";

const app = new App();
const status = byId("page-status");
app.onAnnounce = (message) => {
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
/**
 * The state the link in the address bar (and in the box, when one was made)
 * holds: once the page's state differs, the box goes and so does the
 * fragment, so that a reload or a copied address never brings back a state
 * that is no longer the one on screen.
 */
let linked: SharedState | null = null;
app.subscribe(() => {
  if (linked !== null && !sameShared(linked, app.shared())) {
    linked = null;
    shareLink.hidden = true;
    shareLink.value = "";
    if (location.hash !== "") history.replaceState(null, "", location.pathname + location.search);
  }
});
byId("share").addEventListener("click", async () => {
  const state = app.shared();
  const fragment = await encodeShareFragment(state);
  if (fragment.length > MAX_LINK_CHARS) {
    app.announce(
      `The state is too large for a link (${fragment.length} characters; browsers take at most ${MAX_LINK_CHARS}): save the files and share them instead.`,
    );
    return;
  }
  history.replaceState(null, "", `#${fragment}`);
  linked = state;
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

/**
 * Restores the state of the link in the URL's fragment, if it holds one:
 * `restored`, or `failed` with what the page says about it (said once the
 * page shows what it opens instead).
 */
async function restoreFromFragment(): Promise<"none" | "restored" | { failed: string }> {
  if (!location.hash.startsWith(`#${SHARE_PREFIX}`)) return "none";
  try {
    linked = null;
    await app.restore(await decodeShareFragment(location.hash));
    linked = app.shared();
    app.announce("Restored the state of the link.");
    return "restored";
  } catch (error) {
    return { failed: `This link could not be opened: ${(error as Error).message}.` };
  }
}
addEventListener("hashchange", async () => {
  const outcome = await restoreFromFragment();
  if (typeof outcome === "object") app.announce(outcome.failed);
});

/** Live mode: the last texts the server pushed, to tell the user's edits from the file's. */
let lastPushed: string | null = null;
let lastSuites: string | null = null;
/** The file's text the live notice offers to load; null while the notice is hidden. */
let offered: string | null = null;
const notice = byId("live-notice");
function offer(message: string, text: string): void {
  byId("live-notice-text").textContent = message;
  notice.hidden = false;
  offered = text;
}
function withdrawOffer(): void {
  notice.hidden = true;
  offered = null;
}
byId("live-load").addEventListener("click", () => {
  const text = offered;
  withdrawOffer();
  if (text !== null) void app.setDocument(text);
});
// The offer stands while the editor holds something else than the file: not once they agree.
app.subscribe((changed) => {
  if (changed.has("documentText") && offered !== null && app.state.documentText === offered) {
    withdrawOffer();
  }
});
/** Shows a pushed state; resolves when a document it puts in the editor is read. */
function onLiveState(state: LiveState, first: boolean, restored: boolean): Promise<void> {
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
  if (text === null) {
    // Nothing on disk to load (any more).
    withdrawOffer();
    return Promise.resolve();
  }
  const untouched = app.state.documentText === lastPushed || app.state.documentText === "";
  let loading = Promise.resolve();
  if (text === app.state.documentText) {
    withdrawOffer();
  } else if ((first && !restored) || (!first && untouched)) {
    withdrawOffer();
    loading = app.setDocument(text);
  } else if (first) {
    // A share link opened in the served page: the link's document is shown; the file is only
    // different, it did not change.
    offer(`${file!.path} on disk differs from the link's document shown here.`, text);
  } else {
    offer(`${file!.path} changed on disk; the editor has your edits.`, text);
  }
  lastPushed = text;
  return loading;
}

async function start(): Promise<void> {
  const outcome = await restoreFromFragment();
  const restored = outcome === "restored";
  const live = liveEventsPath();
  if (live !== null) {
    let first = true;
    connectLive(live, (state) => {
      const loading = onLiveState(state, first, restored);
      // A link that could not be opened: said once the working folder's document is shown.
      if (first && typeof outcome === "object") {
        void loading.then(() => app.announce(outcome.failed));
      }
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
  // Said after the page opened what it shows instead: the message is about that state.
  if (typeof outcome === "object" && live === null) app.announce(outcome.failed);
  // When the page became usable, in milliseconds since navigation started (docs/playground.md).
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
  document.documentElement.dataset.ready = "true";
}

void start();
