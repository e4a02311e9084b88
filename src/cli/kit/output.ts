/**
 * Every byte a command prints goes through {@link Output}: the JSON document
 * on stdout (`--format json`), text lines (essential or not, for `--quiet`),
 * warnings and verbose notes on stderr, and errors. Diagnostics (errors,
 * hints, warnings, notes, asides) are built from user input (flag values,
 * paths, configuration), so they pass through `redactSecrets`: nothing that
 * looks like key material is printed back (`docs/cli.md`, "Nothing you type
 * is echoed where it could be a secret").
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
    if (!this.json) this.#io.stdout(text + "\n");
  }

  /** Text that helps but is not essential: hidden by `--quiet` and in JSON format. */
  info(text = ""): void {
    if (!this.json && !this.quiet) this.#io.stdout(text + "\n");
  }

  /** Advice beside the result, on stderr so stdout holds only the result; hidden by `--quiet`. */
  aside(text: string): void {
    if (!this.quiet) this.#io.stderr(redactSecrets(text) + "\n");
  }

  /** A warning: always on stderr (also with `--quiet`), and listed in JSON documents. */
  warn(code: string, message: string): void {
    const shown = redactSecrets(message);
    this.warnings.push({ code, message: shown });
    this.#io.stderr(`warning: ${shown} (${code})\n`);
  }

  /**
   * A line on stderr that belongs with the warnings (how many were not
   * listed): shown also with `--quiet`, never in the JSON document.
   */
  stderrLine(text: string): void {
    this.#io.stderr(text + "\n");
  }

  /** A `--verbose` note, on stderr so that stdout stays one JSON document. Never pass secrets. */
  note(text: string): void {
    if (this.verbose) this.#io.stderr(`verbose: ${redactSecrets(text)}\n`);
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
    const hint = report.hint === undefined ? "" : `hint: ${redactSecrets(report.hint)}\n`;
    this.#io.stderr(`error: ${message} (${report.code})\n${hint}`);
    if (this.json) {
      this.#io.stdout(
        JSON.stringify({ error: { code: report.code, message } }, null, 2) + "\n",
      );
    }
  }
}
