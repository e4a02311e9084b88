// This module is browser compatible.
/**
 * The one way a thrown value becomes text for a message: what a `catch`
 * holds may be an `Error`, a string, or anything a callback threw.
 *
 * @module
 */

/**
 * The message of a thrown `Error`, or the thrown value as a string (a value
 * whose conversion itself throws is "an undescribable value").
 */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return "an undescribable value";
  }
}
