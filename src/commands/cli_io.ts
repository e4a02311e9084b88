/**
 * What a command needs from the process, passed in so that every command
 * runs in-process in tests and on any runtime (Deno, Node).
 *
 * @module
 */

/** The process environment of one command run. */
export interface CliIo {
  /** Writes text to standard output (the text carries its own newlines). */
  stdout(text: string): void;
  /** Writes text to standard error (the text carries its own newlines). */
  stderr(text: string): void;
  /**
   * Reads one environment variable; `undefined` when unset. It may throw
   * when the runtime does not permit reading the variable.
   */
  env(name: string): string | undefined;
  /** The current directory (absolute). */
  cwd: string;
  /** The clock: `generatedAt` of builds and durations of simulations. */
  now(): Date;
  /**
   * Calls `callback` once after `delayMs` (`simulate --watch` polls with
   * it); returns a handle for {@link CliIo.clearTimeout}. Absent: the
   * runtime's `setTimeout`. Tests pass a fake one and never wait on a real
   * timer.
   */
  setTimeout?(callback: () => void, delayMs: number): unknown;
  /** Cancels a pending callback of {@link CliIo.setTimeout}. */
  clearTimeout?(handle: unknown): void;
  /** Ends a command that runs until stopped (`simulate --watch`) when it aborts. */
  signal?: AbortSignal;
  /** Standard output is a terminal (`simulate --watch` clears the screen before each run). */
  stdoutIsTerminal?: boolean;
}
