// This module is browser compatible.
/**
 * Reading a byte stream whole, but never more than a limit: reading stops
 * (and the stream is cancelled) as soon as the limit is passed, so a source
 * that sends or expands into more costs at most the limit and a chunk.
 *
 * @module
 */

/**
 * The bytes of `stream`, at most `max` of them.
 *
 * @throws {Error} `tooLarge(total)`, when more than `max` bytes arrive
 * (`total` is how many had arrived when reading stopped); the stream's own
 * error when it fails.
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  max: number,
  tooLarge: (total: number) => Error,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(total);
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
