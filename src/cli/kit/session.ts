/**
 * One command run: parsed flags, the printer, and the working folder,
 * project config and documents, each resolved once, lazily, with
 * `--verbose` notes; the working folder's lock and the one guarded way to
 * write its documents. {@link defineCommand} turns a command body into a
 * `run(args, io) → exit code` function that reports every error the same way.
 *
 * @module
 */
import type { CliIo, CommandIo } from "../cli_io.ts";
import type { FileLayer } from "../../io/file_layer.ts";
import {
  detectFormat,
  type FlagValue,
  type GlobalOptions,
  parseCommandArgs,
  splitCommand,
  versionText,
  wantsHelp,
  wantsVersion,
} from "./args.ts";
import type { CommandFunction, CommandInfo, CommandSpec, GroupInfo } from "./command_spec.ts";
import { groupHelp, renderHelp } from "./help_text.ts";
import { loadProjectConfig, type ProjectConfig } from "./config.ts";
import { readEnv } from "./env.ts";
import { describeError, exitCodeFor, usageError } from "./errors.ts";
import { Output } from "./output.ts";
import {
  type DocumentKind,
  type JsonDocument,
  readDocumentBytes,
  readJsonDocument,
  readTextDocument,
} from "./read_document.ts";
import type { AtomicWriteOptions } from "./atomic_write.ts";
import type { WorkingFolderLock } from "./working_folder_lock.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeValue } from "../../_internal/check_options.ts";
import {
  requireWorkingFolder,
  resolveWorkingFolder,
  SOURCE_LABELS,
  type WorkingFolder,
} from "./working_folder.ts";

/**
 * `io` with its file layer: `io.files`, else the `node:fs` layer (imported
 * here, so that a process that chose the Deno layer never loads it).
 */
export async function withFileLayer(io: CliIo): Promise<CommandIo> {
  if (io.files !== undefined) return io as CommandIo;
  const { nodeFileLayer } = await import("../../io/node_file_layer.ts");
  return { ...io, files: await nodeFileLayer() };
}

/** Everything a command body works with. */
export class Session {
  readonly io: CommandIo;
  /** How files are read, listed and stat-ed, and the path rules (`io.files`). */
  readonly files: FileLayer;
  readonly out: Output;
  readonly global: GlobalOptions;
  readonly spec: CommandSpec;
  readonly positionals: readonly string[];
  readonly #flags: ReadonlyMap<string, FlagValue>;
  readonly #parsed: ReturnType<typeof parseCommandArgs>;
  /**
   * Every file this run read or tried to read (documents, keys, the config
   * file), absolute: what `simulate --watch` watches.
   */
  readonly filesRead: Set<string> = new Set();
  #workingFolder: Promise<WorkingFolder> | undefined;
  #config: Promise<ProjectConfig> | undefined;
  #lock: WorkingFolderLock | undefined;

  constructor(
    io: CommandIo,
    out: Output,
    spec: CommandSpec,
    parsed: ReturnType<typeof parseCommandArgs>,
  ) {
    this.io = io;
    this.files = io.files;
    this.out = out;
    this.spec = spec;
    this.global = parsed.global;
    this.positionals = parsed.positionals;
    this.#flags = parsed.flags;
    this.#parsed = parsed;
  }

  /**
   * A new session of the same command line, with nothing resolved yet and a
   * new printer: the next run of `simulate --watch`, which must see every
   * file (config included) afresh.
   */
  again(): Session {
    const out = new Output(this.io, this.global);
    return new Session(this.io, out, this.spec, this.#parsed);
  }

  /** True when the flag was given. */
  has(flag: string): boolean {
    return this.#flags.has(flag);
  }

  /** The value of a string flag, or undefined. */
  string(flag: string): string | undefined {
    const value = this.#flags.get(flag);
    return typeof value === "string" ? value : undefined;
  }

  /** Every value of a flag that may be given more than once, in order (none: empty). */
  strings(flag: string): readonly string[] {
    const value = this.#flags.get(flag);
    return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  }

  /** The value of a required string flag. */
  requireString(flag: string, why = ""): string {
    const value = this.string(flag);
    if (value === undefined || value === "") {
      throw usageError(
        `'policy ${this.spec.name}' needs --${flag}${why === "" ? "" : ` ${why}`}`,
        `run 'policy ${this.spec.name} --help' for its flags`,
      );
    }
    return value;
  }

  /** The value of a number flag, or undefined. */
  number(flag: string): number | undefined {
    const text = this.string(flag);
    if (text === undefined) return undefined;
    const value = text.trim() === "" ? NaN : Number(text);
    if (!Number.isFinite(value)) {
      throw usageError(`--${flag} must be a number, not ${describeValue(text)}`);
    }
    return value;
  }

  /** The value of a flag restricted to `choices` (case-insensitive, reported in canonical case). */
  choice<T extends string>(flag: string, choices: readonly T[]): T | undefined {
    const text = this.string(flag);
    if (text === undefined) return undefined;
    const match = choices.find((c) => c.toLowerCase() === text.toLowerCase());
    if (match === undefined) {
      throw usageError(
        `--${flag} must be one of ${choices.join(", ")}, not ${describeValue(text)}${
          didYouMean(text, choices)
        }`,
      );
    }
    return match;
  }

  /** Reads an environment variable (empty counts as unset). */
  env(name: string): string | undefined {
    return readEnv(this.io, name);
  }

  /** The working folder, which must exist. Resolved once; noted with `--verbose`. */
  workingFolder(): Promise<WorkingFolder> {
    this.#workingFolder ??= (async () => {
      const folder = await resolveWorkingFolder(this.global.workingFolder, this.io);
      this.out.note(`working folder: ${folder.path} (from ${SOURCE_LABELS[folder.source]})`);
      await requireWorkingFolder(this.files, folder);
      return folder;
    })();
    return this.#workingFolder;
  }

  /** A path resolved from the working folder. */
  async fromWorkingFolder(p: string): Promise<string> {
    return this.files.path.resolve((await this.workingFolder()).path, p);
  }

  /** The project config. Loaded once; its warnings are printed once. */
  config(): Promise<ProjectConfig> {
    this.#config ??= (async () => {
      const folder = await this.workingFolder();
      const { path } = this.files;
      this.filesRead.add(path.resolve(folder.path, this.global.config ?? "policy.config.json"));
      const config = await loadProjectConfig(this.files, folder.path, this.global.config);
      this.out.note(
        config.file === null
          ? `config: none (${
            path.join(folder.path, "policy.config.json")
          } not found; defaults apply)`
          : `config: ${config.file}`,
      );
      for (const w of config.warnings) this.out.warn(w.code, w.message);
      return config;
    })();
    return this.#config;
  }

  /** Reads a JSON document within `limits.maxFileBytes`; noted with `--verbose`. */
  async readJson(file: string, kind: DocumentKind): Promise<unknown> {
    return (await this.readDocument(file, kind)).value;
  }

  /**
   * Reads a JSON document within `limits.maxFileBytes` (strict JSON for
   * bundles, JSON with comments for the rest), saying whether it had
   * comments; noted with `--verbose`.
   */
  async readDocument(file: string, kind: DocumentKind): Promise<JsonDocument> {
    const limit = await this.#limit();
    this.filesRead.add(file);
    const document = await readJsonDocument(this.files, file, kind, limit);
    this.out.note(`read ${file} (${kind})`);
    return document;
  }

  /** Reads the bytes of a document within `limits.maxFileBytes`; noted with `--verbose`. */
  async readBytes(file: string, kind: DocumentKind): Promise<Uint8Array> {
    const limit = await this.#limit();
    this.filesRead.add(file);
    const bytes = await readDocumentBytes(this.files, file, kind, limit);
    this.out.note(`read ${file} (${kind})`);
    return bytes;
  }

  /**
   * Runs `work` holding the working folder's lock, so that commands that
   * read, change and write its documents run one at a time (see
   * `working_folder_lock.ts`). Waiting is noted on stderr.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.#lock !== undefined) return await work();
    const folder = await this.workingFolder();
    // Imported here: the commands that only read never load the lock or the write path.
    const { lockWorkingFolder } = await import("./working_folder_lock.ts");
    this.#lock = await lockWorkingFolder(folder.path, this.spec.name, {
      clock: this.io.clock,
      onWait: (holder) => this.out.aside(`waiting for ${holder} to finish…`),
    });
    this.out.note(`locked ${this.#lock.file}`);
    try {
      return await work();
    } finally {
      await this.#lock.release();
      this.#lock = undefined;
    }
  }

  /**
   * Writes a document of the working folder (draft, bundle) the one guarded
   * way: within {@link exclusive}, after checking its size against
   * `limits.maxFileBytes`, atomically, keeping the file's mode and owner.
   *
   * @throws {PolicyError|CliError} `BUNDLE_TOO_LARGE`, `DOCUMENT_TOO_LARGE`,
   * `WORKING_FOLDER_LOCKED`, `WRITE_ERROR`.
   */
  async writeDocument(
    file: string,
    kind: DocumentKind,
    text: string,
    options: AtomicWriteOptions = {},
  ): Promise<void> {
    const lock = this.#lock;
    if (lock === undefined) {
      throw new Error(`'policy ${this.spec.name}' wrote its ${kind} outside session.exclusive()`);
    }
    const { writeDocument } = await import("./write_document.ts");
    await writeDocument(file, text, { ...options, kind, maxBytes: await this.#limit(), lock });
    this.out.note(`wrote ${file} (${kind})`);
  }

  /** Reads a text document within `limits.maxFileBytes`; noted with `--verbose` (path only). */
  async readText(file: string, kind: DocumentKind): Promise<string> {
    const limit = await this.#limit();
    this.filesRead.add(file);
    const value = await readTextDocument(this.files, file, kind, limit);
    this.out.note(`read ${file} (${kind})`);
    return value;
  }

  async #limit(): Promise<number> {
    return (await this.config()).maxFileBytes;
  }
}

/**
 * Makes a command function from its spec and body: `--help`, argument
 * parsing and error reporting (stderr, JSON `{error}` with `--format json`,
 * exit code from the one table) are the same for every command.
 */
export function defineCommand(
  spec: CommandSpec,
  body: (session: Session) => Promise<number>,
): CommandFunction {
  const run: CommandFunction = async (args, io) => {
    let out = new Output(io, { format: detectFormat(args), quiet: false, verbose: false });
    try {
      let parsed: ReturnType<typeof parseCommandArgs>;
      try {
        parsed = parseCommandArgs(args, spec);
      } catch (error) {
        if (wantsHelp(args)) {
          out.text(renderHelp(spec));
          return 0;
        }
        if (wantsVersion(args)) {
          out.text(versionText());
          return 0;
        }
        throw error;
      }
      if (parsed.global.help) {
        out.text(renderHelp(spec));
        return 0;
      }
      if (parsed.global.version) {
        out.text(versionText());
        return 0;
      }
      out = new Output(io, parsed.global);
      return await body(new Session(await withFileLayer(io), out, spec, parsed));
    } catch (error) {
      const report = describeError(error);
      out.error(report);
      return (spec.exitCodeOf ?? exitCodeFor)(report.code);
    }
  };
  return Object.assign(run, { spec } satisfies CommandInfo);
}

/** A command with subcommands (`policies`, `keys`): dispatches on the first positional. */
export function defineGroup(group: GroupInfo): CommandFunction {
  const { name, subcommands } = group;
  const run: CommandFunction = async (args, io) => {
    const { name: sub, rest } = splitCommand(args);
    if (sub !== undefined && Object.hasOwn(subcommands, sub)) {
      return await subcommands[sub]!.run(rest, io);
    }
    const out = new Output(io, { format: detectFormat(args), quiet: false, verbose: false });
    if (sub === undefined && wantsHelp(args)) {
      out.text(groupHelp(group));
      return 0;
    }
    if (sub === undefined && wantsVersion(args)) {
      out.text(versionText());
      return 0;
    }
    const names = Object.keys(subcommands);
    const report = describeError(usageError(
      sub === undefined
        ? `'policy ${name}' needs a subcommand: ${names.join(", ")}`
        : `unknown subcommand ${describeValue(sub)} for 'policy ${name}'${didYouMean(sub, names)}`,
      `run 'policy ${name} --help'`,
    ));
    out.error(report);
    return exitCodeFor(report.code);
  };
  return Object.assign(run, { group } satisfies CommandInfo);
}
