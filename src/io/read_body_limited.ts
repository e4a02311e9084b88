// This module is browser compatible.
/**
 * The body of a `fetch` response read whole under a byte limit: the remote
 * client's bundle requests (docs/remote.md "Answers") and the web
 * OpenFeature provider's (docs/openfeature.md). A `Content-Length` over the
 * limit stops at once; a body that grows past it is cancelled as soon as
 * the count passes the limit, so an oversized answer never sits in memory
 * whole. Web standards only.
 *
 * @module
 */

/**
 * Reads `response`'s body, at most `maxBytes` bytes; over that, cancels it
 * and throws what `tooLarge` makes of a description (`declares N bytes`, `is
 * over N bytes (stopped reading at M)`).
 */
export async function readBodyLimited(
  response: Response,
  maxBytes: number,
  tooLarge: (what: string) => Error,
): Promise<Uint8Array> {
  const declared = response.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await discardBody(response);
    throw tooLarge(`declares ${Number(declared)} bytes`);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`is over ${maxBytes} bytes (stopped reading at ${total})`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Cancels a body that will not be read, so no connection or stream is left open. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}
