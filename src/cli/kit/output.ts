/**
 * Every byte a command prints goes through {@link Output}: the JSON document
 * on stdout (`--format json`), text lines (essential or not, for `--quiet`),
 * warnings and verbose notes on stderr, and errors. Diagnostics (errors,
 * hints, warnings, notes, asides) are built from user input (flag values,
 * paths, configuration), so they pass through `redactSecrets`: nothing that
 * looks like key material is printed back (`docs/cli.md`, "Nothing you type
 * is echoed where it could be a secret").
 *
 * Text output shows data the CLI did not write itself (policy keys, rule ids,
 * descriptions, targets, condition values, file names and lines, licence
 * fields), and such data could rewrite the terminal it is shown on. So every
 * text the printer writes passes through {@link escapeControls}: C0 and C1
 * controls, DEL and the bidi controls are shown as `\u001b` escapes; only the
 * line breaks the printer itself writes reach the terminal (docs/cli.md,
 * "Output, `--quiet`, `--verbose`"). The CLI's own text holds no control, so it prints as it is;
 * JSON documents are written by `JSON.stringify` and are unchanged.
 *
 * @module
 */
import type { CliIo } from "../cli_io.ts";
import type { ErrorReport } from "./errors.ts";
import { redactSecrets } from "../../_internal/describe_value.ts";

/** The output formats. */
export type Format = "text" | "json";

/** Version of every JSON document the CLI prints; bumped only on incompatible change. */
export const FORMAT_VERSION = 1;

/** A warning, as printed and as listed in JSON documents. */
export interface Warning {
  code: string;
  message: string;
}

/** Output settings of one command run. */
export interface OutputOptions {
  format: Format;
  quiet: boolean;
  verbose: boolean;
}

/**
 * What must not reach a terminal raw from data: the C0 controls (the line
 * feed included: a line of data stays one line), DEL, the C1 controls,
 * the bidi controls (Unicode's Bidi_Control: the embeddings, overrides and
 * isolates U+202A–U+202E and U+2066–U+2069, and the marks U+061C, U+200E,
 * U+200F) and the line and paragraph separators (U+2028, U+2029).
 */
const TERMINAL_CONTROLS =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every terminal control written as a `\uXXXX` escape (`\u001b`
 * for ESC), the one way text output shows data it did not write itself.
 *
 * @example
 * ```ts
 * import { escapeControls } from "./output.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(escapeControls("x\r\u001b[2K\u202e"), "x\\u000d\\u001b[2K\\u202e");
 * assert.equal(escapeControls("rule paid-plans"), "rule paid-plans");
 * ```
 */
export function escapeControls(text: string): string {
  return text.replace(
    TERMINAL_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `text` made of lines: each line escaped as {@link escapeControls} does, the line feeds between them kept. */
export function escapeLines(text: string): string {
  return text.split("\n").map(escapeControls).join("\n");
}

/** Clears a terminal and its scrollback and moves the cursor home (`simulate --watch`). */
const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";

/** The printer of one command run. */
export class Output {
  readonly #io: CliIo;
  readonly format: Format;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Warnings printed so far, for the JSON document. */
  readonly warnings: Warning[] = [];

  constructor(io: CliIo, options: OutputOptions) {
    this.#io = io;
    this.format = options.format;
    this.quiet = options.quiet;
    this.verbose = options.verbose;
  }

  /** True with `--format json`. */
  get json(): boolean {
    return this.format === "json";
  }

  /** Text the command exists to print: shown in text format, even with `--quiet`. */
  line(text = ""): void {
    if (!this.json) this.#io.stdout(escapeControls(text) + "\n");
  }

  /**
   * Lines the command exists to print, given as one text (a unified diff of
   * a file): each line escaped on its own, shown like {@link line}.
   */
  lines(text: string): void {
    if (!this.json) this.#io.stdout(escapeLines(text) + "\n");
  }

  /** Text that helps but is not essential: hidden by `--quiet` and in JSON format. */
  info(text = ""): void {
    if (!this.json && !this.quiet) this.#io.stdout(escapeControls(text) + "\n");
  }

  /**
   * Text the CLI wrote itself and prints whatever the format (help, the
   * version, a completion script), as it is: its line breaks kept, a control
   * in it escaped all the same.
   */
  text(text: string): void {
    this.#io.stdout(escapeLines(text));
  }

  /** Clears the screen before a new run (`simulate --watch`), when stdout is a terminal. */
  clearScreen(): void {
    if (this.#io.stdoutIsTerminal === true) this.#io.stdout(CLEAR_SCREEN);
  }

  /** Advice beside the result, on stderr so stdout holds only the result; hidden by `--quiet`. */
  aside(text: string): void {
    if (!this.quiet) this.#io.stderr(escapeControls(redactSecrets(text)) + "\n");
  }

  /** A warning: always on stderr (also with `--quiet`), and listed in JSON documents. */
  warn(code: string, message: string): void {
    const shown = redactSecrets(message);
    this.warnings.push({ code, message: shown });
    this.#io.stderr(`warning: ${escapeControls(shown)} (${escapeControls(code)})\n`);
  }

  /**
   * A warning that is advice about a choice the user may have made on
   * purpose (`SCOPE_UNSET`): listed in JSON documents like any warning, but
   * on stderr only without `--quiet`.
   */
  advise(code: string, message: string): void {
    const shown = redactSecrets(message);
    this.warnings.push({ code, message: shown });
    if (!this.quiet) {
      this.#io.stderr(`warning: ${escapeControls(shown)} (${escapeControls(code)})\n`);
    }
  }

  /**
   * A line on stderr that belongs with the warnings (how many were not
   * listed): shown also with `--quiet`, never in the JSON document.
   */
  stderrLine(text: string): void {
    this.#io.stderr(escapeControls(text) + "\n");
  }

  /** A `--verbose` note, on stderr so that stdout stays one JSON document. Never pass secrets. */
  note(text: string): void {
    if (this.verbose) this.#io.stderr(`verbose: ${escapeControls(redactSecrets(text))}\n`);
  }

  /**
   * Prints the command's result: the JSON document (with `formatVersion`
   * first) in JSON format, else whatever `text` prints.
   */
  result(document: Record<string, unknown>, text: () => void): void {
    if (this.json) {
      this.#io.stdout(
        JSON.stringify({ formatVersion: FORMAT_VERSION, ...document }, null, 2) + "\n",
      );
    } else {
      text();
    }
  }

  /** Prints an error: text on stderr, and in JSON format `{error: {code, message}}` on stdout. */
  error(report: ErrorReport): void {
    const message = redactSecrets(report.message);
    const hint = report.hint === undefined
      ? ""
      : `hint: ${escapeControls(redactSecrets(report.hint))}\n`;
    this.#io.stderr(`error: ${escapeControls(message)} (${escapeControls(report.code)})\n${hint}`);
    if (this.json) {
      this.#io.stdout(
        JSON.stringify({ error: { code: report.code, message } }, null, 2) + "\n",
      );
    }
  }
}
