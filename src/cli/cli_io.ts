/**
 * What a command needs from the process, passed in so that every command
 * runs in-process in tests and on any runtime (Deno, Node).
 *
 * @module
 */
import type { Clock } from "../public/clock.ts";
import type { FileLayer } from "../io/file_layer.ts";

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
  /**
   * The clock (the library's one `Clock`): `wallNow()` for dates shown or
   * written (`generatedAt` of builds, licence dates), `now()` for durations
   * (simulations) and the lock's waits, and its timers (`simulate --watch`
   * polls on them: tests pass a fake clock and never wait on a real timer).
   */
  clock: Clock;
  /**
   * Ends a command that runs until stopped (`simulate --watch`,
   * `policy playground`) when it aborts; without it, such a command runs
   * until the process ends.
   */
  signal?: AbortSignal;
  /** Standard output is a terminal (`simulate --watch` clears the screen before each run). */
  stdoutIsTerminal?: boolean;
  /**
   * Loads the playground page of this distribution (`dist/playground/page.js`
   * relative to `cli.ts`, docs/playground.md); `policy playground` refuses to
   * start without it.
   */
  playgroundPage?: () => Promise<unknown>;
  /**
   * How commands read, list and stat files, and the platform's path rules
   * (`src/io/file_layer.ts`). Default: the `node:fs` layer. `cli.ts` passes
   * the `Deno.*` layer under Deno, which starts sooner.
   */
  files?: FileLayer;
}

/** A command's process I/O with its file layer chosen (`CliIo.files`, or the default). */
export type CommandIo = CliIo & { readonly files: FileLayer };
