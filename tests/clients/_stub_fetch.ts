/**
 * A scripted `fetch` for the remote client's `fetch` option: each call takes
 * the next reply from a queue (the last one repeats), and every call is
 * recorded. No network.
 *
 * @module
 */
import type { FetchFunction } from "../../src/clients/types.ts";

/** A reply: a Response factory, `"hang"` (settles only when aborted), or an Error to throw. */
export type Reply = (() => Response) | "hang" | Error;

/** One recorded call. */
export interface StubCall {
  url: string;
  headers: Headers;
}

/** A `fetch` that answers from a script. */
export class StubFetch {
  readonly calls: StubCall[] = [];
  #replies: Reply[];

  constructor(...replies: Reply[]) {
    this.#replies = replies;
  }

  /** Replaces the replies still to come. */
  script(...replies: Reply[]): void {
    this.#replies = replies;
  }

  /** The function to pass as the `fetch` option. */
  readonly fetch: FetchFunction = (url, init) => {
    this.calls.push({ url, headers: new Headers(init.headers) });
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0];
    if (reply === undefined) throw new Error("StubFetch: no reply scripted");
    if (reply instanceof Error) return Promise.reject(reply);
    if (reply === "hang") {
      return new Promise<Response>((_, reject) => {
        const signal = init.signal!;
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    return Promise.resolve(reply());
  };
}

/** A 200 with `body` and an optional ETag. */
export function ok(body: string, etag?: string): () => Response {
  return () => new Response(body, { status: 200, headers: etag ? { etag } : {} });
}

/** A response with `status` and headers, no body. */
export function answer(status: number, headers: Record<string, string> = {}): () => Response {
  return () => new Response(null, { status, headers });
}
