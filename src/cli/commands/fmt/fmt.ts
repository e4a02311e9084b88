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
type FmtKind = "draft" | "config" | "rule" | "suite" | "document" | "bundle";

/** The file names a folder is searched for: rule files, and suites as `isSuiteFileName` says. */
const byPattern = (name: string) =>
  (name.endsWith(".rule.json") && name !== ".rule.json") || isSuiteFileName(name);

/** One file's outcome (docs/cli.md, "fmt"). */
interface FmtFile {
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

/** Formats the draft, rule files, suites and config. */
export const runFmt = defineCommand(FMT_SPEC, async (session) => {
  const out = session.out;
  const check = session.has("check");
  const showDiff = session.has("diff");
  const wf = (await session.workingFolder()).path;
  const targets = await chosenFiles(session);
  const planned = async () => {
    const plans = [];
    for (const target of targets) plans.push(await plan(session, target, showDiff));
    return plans;
  };
  const files: FmtFile[] = [];
  if (check || showDiff) {
    for (const p of await planned()) {
      files.push({ ...p.file, status: p.text === null ? p.file.status : "unformatted" });
    }
  } else {
    await session.exclusive(async () => {
      // Everything formatted first: a file that does not parse stops the command before any write.
      const plans = await planned();
      for (const p of plans) {
        if (p.text !== null) {
          await session.writeDocument(p.file.path, documentKind(p.file.kind), p.text);
          files.push({ ...p.file, status: "formatted" });
        } else {
          files.push(p.file);
        }
      }
    });
  }
  const count = (status: FmtFile["status"]) => files.filter((f) => f.status === status).length;
  const changed = count("formatted") + count("unformatted");
  const passed = !check || changed === 0;
  const show = (file: string) => session.files.path.relative(wf, file) || file;
  out.result(
    {
      check,
      diff: showDiff,
      passed,
      files,
      summary: {
        files: files.length,
        changed,
        unchanged: count("unchanged"),
        skipped: count("skipped"),
      },
      warnings: out.warnings,
    },
    () => {
      for (const f of files) {
        if (f.status === "unformatted" && f.diff !== null) out.lines(f.diff.trimEnd());
        else if (f.status === "unformatted") out.line(`not formatted: ${show(f.path)}`);
        else if (f.status === "formatted") out.line(`formatted ${show(f.path)}`);
        else if (f.status === "skipped") out.info(`skipped ${show(f.path)}: ${f.reason}`);
        else out.note(`already formatted: ${show(f.path)}`);
      }
      const summary = `${plural(files.length, "file")}: ${changed} ${
        check || showDiff ? "not formatted" : "formatted"
      }, ${count("unchanged")} already formatted, ${count("skipped")} skipped`;
      if (check && changed > 0) {
        out.line(`${summary}; run 'policy fmt' to format them`);
      } else {
        out.info(files.length === 0 ? "no files to format" : summary);
      }
    },
  );
  return passed ? 0 : exitCodeFor("FORMAT_CHECK_FAILED");
});

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

/** What formatting one file gives: its new text (null: nothing to write) and its report. */
async function plan(
  session: Session,
  target: Target,
  showDiff: boolean,
): Promise<{ file: FmtFile; text: string | null }> {
  const skip = (reason: string, kind = target.kind) => ({
    file: { path: target.path, kind, status: "skipped" as const, reason, diff: null },
    text: null,
  });
  // node:fs loads when fmt runs: it writes, as the other writers do.
  const { fs } = await nodeFs();
  const info = await fs.lstat(target.path).catch(() => null);
  if (info === null) {
    throw new CliError("DOCUMENT_READ_ERROR", `cannot read ${target.path}: it does not exist`, {
      hint: "name a file or folder of the working folder, or run 'policy fmt' alone",
    });
  }
  if (!info.isFile()) {
    return skip(
      `it is ${
        info.isSymbolicLink()
          ? "a symbolic link"
          : info.isDirectory()
          ? "a folder"
          : "not a regular file"
      }; fmt rewrites regular files only (name the file itself)`,
    );
  }
  const readKind = documentKind(target.kind);
  const before = await session.readText(target.path, readKind);
  // Parsed as the commands read it (JSON with comments), for its errors and its value.
  const { value } = parseDocumentText(before, readKind, target.path);
  const kind = target.kind ?? kindOf(value, target.path);
  if (kind === "bundle") {
    return skip(
      "it is a bundle: build and sign write bundles compact, and clients reload them on any change ('policy inspect' shows one for people)",
      kind,
    );
  }
  let after: string;
  let expected: unknown = value;
  try {
    if (kind === "draft" && !hasComments(before) && isEditableDraft(value, target.path)) {
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
  const file: FmtFile = {
    path: target.path,
    kind,
    status: "unchanged",
    reason: null,
    diff: null,
  };
  if (after === before) return { file, text: null };
  const name = session.files.path.relative((await session.workingFolder()).path, target.path) ||
    target.path;
  return {
    file: { ...file, diff: showDiff ? unifiedDiff(before, after, name) : null },
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
