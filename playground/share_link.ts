/**
 * Sharing the playground's state without a server: the state as JSON,
 * compressed (`CompressionStream`, raw DEFLATE) and base64url-encoded into
 * the URL fragment, which browsers never send to any server. Opening the
 * link restores the state. A fragment is untrusted input: its length, the
 * size it decompresses to and its shape are all checked before anything of
 * it is used, and it is parsed with the project's `parseJson`.
 *
 * Keys never go into a link (docs/playground.md, "Sharing").
 *
 * @module
 */
import type { Target } from "../src/engine/types.ts";
import { parseJson } from "../src/engine/parse_json.ts";
import { isRecord } from "../src/_internal/guards.ts";
import { decodeBase64, encodeBase64 } from "../src/_internal/encoding.ts";
import { readBodyLimited } from "../src/io/read_body_limited.ts";

/** A context saved for the matrix. */
export interface SavedContext {
  /** Its name, shown as the matrix column's heading. */
  name: string;
  /** The context, as JSON text (as typed). */
  context: string;
}

/** What a link carries: everything typed into the playground but keys. */
export interface SharedState {
  /** The bundle or draft, as text. */
  document: string;
  /** The request's target. */
  target: Target;
  /** The request's context, as JSON text. */
  context: string;
  /** The contexts saved for the matrix. */
  contexts: SavedContext[];
  /** The simulation suite, as text. */
  suite: string;
  /** The bundle compared with (the diff's old side), as text. */
  baseline: string;
}

/** The fragment's prefix: `#s=…`. */
export const SHARE_PREFIX = "s=";

/** Links longer than this (characters of the fragment) get a warning: chat tools and mail cut them. */
export const LONG_LINK_CHARS = 8_000;

/** The longest fragment made or read: Chromium refuses URLs over 2 MB. */
export const MAX_LINK_CHARS = 2_000_000;

/** The most a fragment may decompress to (16 MiB: two bundles at the CLI's 8 MiB default limit). */
export const MAX_SHARED_BYTES = 16 * 1024 * 1024;

/** The most saved contexts a link may carry. */
export const MAX_SAVED_CONTEXTS = 100;

/** Why a fragment could not be read, for people. */
export class ShareLinkError extends Error {
  override name = "ShareLinkError";
}

/** The format version inside the compressed JSON. */
const VERSION = 1;

/** The fragment of a link to `state`, without its `#`. */
export async function encodeShareFragment(state: SharedState): Promise<string> {
  const json = JSON.stringify({ v: VERSION, ...state });
  const compressed = await collect(
    new Blob([json]).stream().pipeThrough(new CompressionStream("deflate-raw")),
    Infinity,
  );
  return SHARE_PREFIX + toBase64Url(compressed);
}

/**
 * The state a fragment (with or without its `#`) carries.
 *
 * @throws {ShareLinkError} When the fragment is not a share link, too long,
 * damaged, decompresses to more than {@link MAX_SHARED_BYTES}, or holds
 * something else than a playground state.
 */
export async function decodeShareFragment(fragment: string): Promise<SharedState> {
  const text = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (!text.startsWith(SHARE_PREFIX)) {
    throw new ShareLinkError("the link's fragment is not a playground state (#s=…)");
  }
  const payload = text.slice(SHARE_PREFIX.length);
  if (payload.length > MAX_LINK_CHARS) {
    throw new ShareLinkError(
      `the link is ${payload.length} characters long, over the limit of ${MAX_LINK_CHARS}`,
    );
  }
  const bytes = fromBase64Url(payload);
  if (bytes === undefined) {
    throw new ShareLinkError("the link is damaged: its state is not base64url text");
  }
  let json: Uint8Array;
  try {
    json = await collect(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")),
      MAX_SHARED_BYTES,
    );
  } catch (error) {
    if (error instanceof ShareLinkError) throw error;
    throw new ShareLinkError("the link is damaged: its state does not decompress");
  }
  let value: unknown;
  try {
    value = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(json));
  } catch {
    throw new ShareLinkError("the link is damaged: its state is not JSON");
  }
  return checkState(value);
}

/** The state a decoded value holds, every field checked; missing fields are empty. */
function checkState(value: unknown): SharedState {
  if (!isRecord(value) || value.v !== VERSION) {
    throw new ShareLinkError(
      "the link holds no playground state of this version (made by another version of the page?)",
    );
  }
  const text = (field: string): string => {
    const v = value[field];
    if (v === undefined) return "";
    if (typeof v !== "string") throw new ShareLinkError(`the link's ${field} is not text`);
    return v;
  };
  const target = value.target;
  let checkedTarget: Target = { service: "", resource: "", action: "" };
  if (target !== undefined) {
    if (
      !isRecord(target) || typeof target.service !== "string" ||
      typeof target.resource !== "string" || typeof target.action !== "string"
    ) {
      throw new ShareLinkError("the link's target is not {service, resource, action}");
    }
    checkedTarget = { service: target.service, resource: target.resource, action: target.action };
  }
  const contexts: SavedContext[] = [];
  if (value.contexts !== undefined) {
    if (!Array.isArray(value.contexts) || value.contexts.length > MAX_SAVED_CONTEXTS) {
      throw new ShareLinkError(
        `the link's saved contexts are not a list of at most ${MAX_SAVED_CONTEXTS}`,
      );
    }
    for (const c of value.contexts) {
      if (!isRecord(c) || typeof c.name !== "string" || typeof c.context !== "string") {
        throw new ShareLinkError("a saved context of the link is not {name, context}");
      }
      contexts.push({ name: c.name, context: c.context });
    }
  }
  return {
    document: text("document"),
    target: checkedTarget,
    context: text("context"),
    contexts,
    suite: text("suite"),
    baseline: text("baseline"),
  };
}

/** Reads a byte stream to its end, refusing more than `limit` bytes (it stops reading there). */
function collect(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  return readBodyLimited(
    new Response(stream),
    limit,
    () =>
      new ShareLinkError(
        `the link's state is larger than ${limit} bytes once decompressed, which the page refuses`,
      ),
  );
}

function toBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") +
    "=".repeat((4 - (text.length % 4)) % 4);
  return decodeBase64(padded);
}
