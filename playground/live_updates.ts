/// <reference lib="dom" />
/**
 * Live mode: when `policy playground` serves the page, it marks it with a
 * `<meta name="policy-playground-live">` naming its event stream, and
 * pushes the working folder's document and suites each time one changes
 * (Server-Sent Events; docs/playground.md, "A live view while authoring").
 * Opened from a file, the page has no such mark and opens no connection
 * (its Content-Security-Policy would refuse one anyway).
 *
 * @module
 */
import { type LiveState, parseLiveState } from "../src/authoring/live_state.ts";

/** The name of the meta element that marks a served page; its content is the events' path. */
export const LIVE_META = "policy-playground-live";

/** The event stream's path, when the page is served live; else null. */
export function liveEventsPath(): string | null {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${LIVE_META}"]`);
  return meta === null ? null : meta.content;
}

/** Listens to the server's pushes until the page closes. */
export function connectLive(
  path: string,
  onState: (state: LiveState) => void,
  onStatus: (connected: boolean, message: string) => void,
): void {
  const events = new EventSource(path);
  events.addEventListener("state", (event) => {
    try {
      onState(parseLiveState((event as MessageEvent<string>).data));
      onStatus(true, "");
    } catch (error) {
      onStatus(true, (error as Error).message);
    }
  });
  events.addEventListener("error", () => {
    onStatus(false, "The connection to 'policy playground' is lost; retrying.");
  });
}
