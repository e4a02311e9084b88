/**
 * `policy fmt`: writes the documents people edit — the draft, rule files,
 * simulation suites, the project config — in the one canonical layout, the
 * one the commands that edit the draft write (`docs/cli.md`, "fmt").
 *
 * - Which files: with no argument, the draft (`draft.path`), the project
 *   config file, and every `*.rule.json`, `*.suite.json` and `suite.json`
 *   below the working folder (not in hidden, dependency or build folders); an
 *   argument names a file (formatted whatever its name) or a folder (those
 *   files in it, and the draft and the config when they are in it).
 * - Bundles are never rewritten: `build` and `sign` write them compact, a
 *   client reloads them on any change, and their bytes are what was signed
 *   for (`inspect` shows them for people).
 * - Only regular files are rewritten: a symbolic link, a pipe or a device is
 *   left as it is and reported as skipped.
 * - Comments are kept (`src/authoring/format_jsonc.ts`): a draft without comments is
 *   written exactly as `draftText` writes it (`$schema` first), everything
 *   else with the same layout.
 * - Every file is read and formatted before anything is written, so a file
 *   that does not parse stops the command with nothing written; each result
 *   must parse to the same value and keep every comment, or the file is left
 *   as it is. Writes go through the guarded path, holding the working
 *   folder's lock.
 *
 * @module
 */
import { findFiles } from "../../../io/find_files.ts";
import { nodeFs } from "../../../io/node_fs.ts";
import { CliError, exitCodeFor } from "../../kit/errors.ts";
import type { Output } from "../../kit/output.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { type DocumentKind, exists, parseDocumentText } from "../../kit/read_document.ts";
import { detectDocumentType } from "../../../authoring/document_type.ts";
import { asEditableDraft, draftText } from "../../kit/draft.ts";
import { formatJsonc, formattingChange, hasComments } from "../../../authoring/format_jsonc.ts";
import { unifiedDiff } from "./line_diff.ts";
import { plural } from "../../kit/describe.ts";
import { withSchema } from "../../kit/schema.ts";
import { isSuiteFileName } from "../../kit/suite.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";

/** What a file is, for `policy fmt`. */
export type FmtKind = "draft" | "config" | "rule" | "suite" | "document" | "bundle";

/** The file names a folder is searched for: rule files, and suites as `isSuiteFileName` says. */
const byPattern = (name: string) =>
  (name.endsWith(".rule.json") && name !== ".rule.json") || isSuiteFileName(name);

/** One file's outcome (docs/cli.md, "fmt"). */
export interface FmtFile {
  path: string;
  kind: FmtKind | null;
  /** `formatted` (written), `unformatted` (would change: --check, --diff), `unchanged`, `skipped`. */
  status: "formatted" | "unformatted" | "unchanged" | "skipped";
  reason: string | null;
  diff: string | null;
}

/** The declaration of `fmt`. */
export const FMT_SPEC: CommandSpec = {
  name: "fmt",
  usage: "fmt [<file|folder>…] [--check] [--diff]",
  summary: [
    "Writes the documents people edit in the layout the CLI writes the draft in (two-space",
    "indent, one member a line), keeping their comments. Without arguments: the draft",
    "(draft.path), the project config, and every *.rule.json, *.suite.json and suite.json",
    "below the working folder (not in hidden, dependency or build folders). A file argument",
    "is formatted whatever its name; a folder adds those files in it.",
    "Bundles are never rewritten (build writes them compact, and clients reload them), nor",
    "is anything that is not a regular file. --check writes nothing and exits 1 when a file",
    "is not formatted, listing it; --diff writes nothing and shows each change as a diff.",
  ].join("\n"),
  flags: {
    check: {
      type: "boolean",
      description: "write nothing; exit 1 and list the files that are not formatted",
    },
    diff: { type: "boolean", description: "write nothing; print the changes as unified diffs" },
  },
  maxPositionals: Number.MAX_SAFE_INTEGER,
  positionals: "files",
  examples: ["policy fmt", "policy fmt --check", "policy fmt policy/rules --diff"],
};

/** What a file holds, as `fmt` read it: its text, or what it is when it is not a regular file. */
export interface FmtInput {
  path: string;
  /** What the file is known to be from where it is (the draft, the config), or null. */
  kind: FmtKind | null;
  /** The path from the working folder, for diffs. */
  name: string;
  /** The file's text, or null when it was not read. */
  text: string | null;
  /** What it is when it is not a regular file (`a symbolic link`), or null. */
  notRegular: string | null;
}

/**
 * What formatting one file gives: its report, and its new text (null:
 * nothing to write). A file with a new text is `unchanged` here:
 * {@link planFmt} makes it `formatted` or, writing nothing, `unformatted`.
 */
export interface FmtFilePlan {
  file: FmtFile;
  text: string | null;
}

/** What `fmt` does: its JSON document (but `warnings`), the files to write, its exit code. */
export interface FmtPlan {
  document: {
    check: boolean;
    diff: boolean;
    passed: boolean;
    files: FmtFile[];
    summary: { files: number; changed: number; unchanged: number; skipped: number };
  };
  writes: { path: string; kind: DocumentKind; text: string }[];
  exitCode: number;
}

/** Formats the draft, rule files, suites and config. */
export const runFmt = defineCommand(FMT_SPEC, async (session) => {
  const out = session.out;
  const options = { check: session.has("check"), diff: session.has("diff") };
  const wf = (await session.workingFolder()).path;
  const targets = await chosenFiles(session);
  // Each file is read and formatted before the next is read, and all before anything is written:
  // the first file that cannot be read or parsed stops the command.
  const planned = async () => {
    const files: FmtFilePlan[] = [];
    for (const target of targets) {
      files.push(planFmtFile(await readTarget(session, target, wf), options.diff));
    }
    return planFmt(files, options);
  };
  let plan: FmtPlan;
  if (options.check || options.diff) {
    plan = await planned();
  } else {
    plan = await session.exclusive(async () => {
      const plan = await planned();
      for (const w of plan.writes) await session.writeDocument(w.path, w.kind, w.text);
      return plan;
    });
  }
  const show = (file: string) => session.files.path.relative(wf, file) || file;
  out.result({ ...plan.document, warnings: out.warnings }, () => render(out, plan, show));
  return plan.exitCode;
});

/**
 * What `fmt` does with the files it formatted: with `check` or `diff` it
 * writes nothing and reports what would change; otherwise it writes them.
 */
export function planFmt(
  planned: readonly FmtFilePlan[],
  { check, diff }: { check: boolean; diff: boolean },
): FmtPlan {
  const dryRun = check || diff;
  const files = planned.map(({ file, text }): FmtFile =>
    text === null ? file : { ...file, status: dryRun ? "unformatted" : "formatted" }
  );
  const writes = dryRun
    ? []
    : planned.flatMap(({ file, text }) =>
      text === null ? [] : [{ path: file.path, kind: documentKind(file.kind), text }]
    );
  const count = (status: FmtFile["status"]) => files.filter((f) => f.status === status).length;
  const changed = count("formatted") + count("unformatted");
  const passed = !check || changed === 0;
  return {
    document: {
      check,
      diff,
      passed,
      files,
      summary: {
        files: files.length,
        changed,
        unchanged: count("unchanged"),
        skipped: count("skipped"),
      },
    },
    writes,
    exitCode: passed ? 0 : exitCodeFor("FORMAT_CHECK_FAILED"),
  };
}

function render(out: Output, plan: FmtPlan, show: (file: string) => string): void {
  const { check, diff, files, summary: counts } = plan.document;
  for (const f of files) {
    if (f.status === "unformatted" && f.diff !== null) out.lines(f.diff.trimEnd());
    else if (f.status === "unformatted") out.line(`not formatted: ${show(f.path)}`);
    else if (f.status === "formatted") out.line(`formatted ${show(f.path)}`);
    else if (f.status === "skipped") out.info(`skipped ${show(f.path)}: ${f.reason}`);
    else out.note(`already formatted: ${show(f.path)}`);
  }
  const summary = `${plural(files.length, "file")}: ${counts.changed} ${
    check || diff ? "not formatted" : "formatted"
  }, ${counts.unchanged} already formatted, ${counts.skipped} skipped`;
  if (check && counts.changed > 0) {
    out.line(`${summary}; run 'policy fmt' to format them`);
  } else {
    out.info(files.length === 0 ? "no files to format" : summary);
  }
}

/** A file to format and what it is known to be from where it is. */
interface Target {
  path: string;
  kind: FmtKind | null;
}

/** The files `fmt` works on, in order, each once. */
async function chosenFiles(session: Session): Promise<Target[]> {
  const config = await session.config();
  const known = (file: string): FmtKind | null =>
    file === config.draftPath ? "draft" : file === config.file ? "config" : null;
  const { path } = session.files;
  const found: string[] = [];
  // The draft and the config: wherever they are by default, when inside it for a folder named.
  const folderFiles = async (folder: string | null) => {
    const inside = (file: string) =>
      folder === null ||
      (!path.relative(folder, file).startsWith("..") &&
        !path.isAbsolute(path.relative(folder, file)));
    for (const file of [config.draftPath, config.file]) {
      if (file !== null && inside(file) && await exists(session.files, file)) found.push(file);
    }
    found.push(...await findFiles(folder ?? (await session.workingFolder()).path, byPattern));
  };
  if (session.positionals.length === 0) {
    await folderFiles(null);
  } else {
    for (const argument of session.positionals) {
      const file = await session.fromWorkingFolder(argument);
      if (await session.files.kind(file) === "folder") await folderFiles(file);
      else found.push(file);
    }
  }
  return [...new Set(found)].map((file) => ({ path: file, kind: known(file) }));
}

/** The guarded writer's kind of a document (bundles are never written here). */
function documentKind(kind: FmtKind | null): DocumentKind {
  return kind === "draft" || kind === "config" || kind === "rule" || kind === "suite"
    ? kind
    : "document";
}

/**
 * Reads a file to format: its text when it is a regular file, what it is otherwise.
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` when it does not exist or cannot be read.
 */
async function readTarget(session: Session, target: Target, wf: string): Promise<FmtInput> {
  const name = session.files.path.relative(wf, target.path) || target.path;
  const input = { ...target, name, text: null, notRegular: null };
  // node:fs loads when fmt runs: it writes, as the other writers do.
  const { fs } = await nodeFs();
  const info = await fs.lstat(target.path).catch(() => null);
  if (info === null) {
    throw new CliError("DOCUMENT_READ_ERROR", `cannot read ${target.path}: it does not exist`, {
      hint: "name a file or folder of the working folder, or run 'policy fmt' alone",
    });
  }
  if (!info.isFile()) {
    const what = info.isSymbolicLink()
      ? "a symbolic link"
      : info.isDirectory()
      ? "a folder"
      : "not a regular file";
    return { ...input, notRegular: what };
  }
  return { ...input, text: await session.readText(target.path, documentKind(target.kind)) };
}

/**
 * What formatting one file gives (docs/cli.md, "fmt"): a file that is not
 * regular, a bundle, one nested too deeply or one whose formatting would
 * change its value or its comments is skipped, with the reason; a draft
 * without comments is written as the draft writer writes it; anything else
 * in the one JSONC layout. With `showDiff`, a change comes with its diff.
 *
 * @throws {CliError} `DOCUMENT_PARSE_ERROR` when the text is not JSON with comments.
 */
export function planFmtFile(input: FmtInput, showDiff: boolean): FmtFilePlan {
  const skip = (reason: string, kind = input.kind) => ({
    file: { path: input.path, kind, status: "skipped" as const, reason, diff: null },
    text: null,
  });
  if (input.text === null) {
    return skip(
      `it is ${input.notRegular}; fmt rewrites regular files only (name the file itself)`,
    );
  }
  const before = input.text;
  // Parsed as the commands read it (JSON with comments), for its errors and its value.
  const { value } = parseDocumentText(before, documentKind(input.kind), input.path);
  const kind = input.kind ?? kindOf(value, input.path);
  if (kind === "bundle") {
    return skip(
      "it is a bundle: build and sign write bundles compact, and clients reload them on any change ('policy inspect' shows one for people)",
      kind,
    );
  }
  let after: string;
  let expected: unknown = value;
  try {
    if (kind === "draft" && !hasComments(before) && isEditableDraft(value, input.path)) {
      // Exactly what the commands that edit the draft write.
      expected = withSchema(value as object, "draft");
      after = draftText(expected as Parameters<typeof draftText>[0]);
    } else {
      after = formatJsonc(before);
    }
  } catch (error) {
    if (error instanceof RangeError) return skip("it is nested too deeply to format", kind);
    throw error;
  }
  const change = formattingChange(before, after, expected);
  if (change === "value") {
    return skip(
      "formatting would change what it means (a number JSON cannot write back as it is); it was left as it is",
      kind,
    );
  }
  if (change === "comments") {
    return skip("formatting would not keep its comments as written; it was left as it is", kind);
  }
  const file: FmtFile = { path: input.path, kind, status: "unchanged", reason: null, diff: null };
  if (after === before) return { file, text: null };
  return {
    file: { ...file, diff: showDiff ? unifiedDiff(before, after, input.name) : null },
    text: after,
  };
}

function isEditableDraft(value: unknown, file: string): boolean {
  try {
    asEditableDraft(value, file);
    return true;
  } catch {
    return false;
  }
}

/** What a file holds, from its content and name. */
function kindOf(value: unknown, file: string): FmtKind {
  const record = typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
  if (record !== null && detectDocumentType(record).type === "bundle") return "bundle";
  if (record !== null && typeof record.schemaVersion === "string" && "policies" in record) {
    return "draft";
  }
  if (file.endsWith(".suite.json") || (record !== null && "scenarios" in record)) return "suite";
  if (file.endsWith(".rule.json") || (record !== null && "effect" in record && "id" in record)) {
    return "rule";
  }
  return "document";
}
