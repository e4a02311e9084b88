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
import { parseJson } from "../src/engine/mod.ts";
import { isRecord } from "../src/engine/_guards.ts";
import type { LiveFile, LiveState } from "../src/commands/_playground_server.ts";

/** The name of the meta element that marks a served page; its content is the events' path. */
export const LIVE_META = "policy-playground-live";

/** The event stream's path, when the page is served live; else null. */
export function liveEventsPath(): string | null {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${LIVE_META}"]`);
  return meta === null ? null : meta.content;
}

/**
 * Reads a pushed state (the server is local, but what it sends is still
 * parsed with `parseJson` and checked).
 *
 * @throws {Error} When the data is not a live state.
 */
export function parseLiveState(data: string): LiveState {
  const value = parseJson(data);
  if (!isRecord(value) || value.version !== 1 || typeof value.workingFolder !== "string") {
    throw new Error("the server sent something else than a playground state");
  }
  const file = (f: unknown): LiveFile => {
    if (!isRecord(f) || typeof f.path !== "string") {
      throw new Error("a file of the state has no path");
    }
    const error = isRecord(f.error) && typeof f.error.code === "string" &&
        typeof f.error.message === "string"
      ? { code: f.error.code, message: f.error.message }
      : null;
    return {
      path: f.path,
      relativePath: typeof f.relativePath === "string" ? f.relativePath : f.path,
      text: typeof f.text === "string" ? f.text : null,
      error,
    };
  };
  return {
    version: 1,
    workingFolder: value.workingFolder,
    document: value.document === null ? null : file(value.document),
    suites: Array.isArray(value.suites) ? value.suites.map(file) : [],
  };
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
