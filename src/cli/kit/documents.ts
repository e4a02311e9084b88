/**
 * The one place that knows which document a command works on (see
 * `docs/cli.md`, "Which document a command works on"):
 *
 * - the **draft** (`draft.path`) is what people edit: `policies …`,
 *   `analyze` and `build` (as its input) work on it, and `validate` checks it
 *   by default;
 * - the **bundle** (`--bundle <path>`, else `bundle.path`, placed in
 *   `build.outputDirectory` when that is set) is what clients load: `build`
 *   writes it, `sign`, `inspect` and `simulate` work on it;
 * - a file named on the command line (`validate <file>`) is whichever of
 *   the two it holds: `detectDocumentType` (`src/authoring/document_type.ts`).
 *
 * Commands print the document they worked on (its path and type).
 *
 * @module
 */
import type { Session } from "./session.ts";
import { exists } from "./read_document.ts";
import { CliError, withHint } from "./errors.ts";
import type { DocumentType } from "../../authoring/document_type.ts";
import { isPolicyError } from "../../public/policy_error.ts";

/** Where the path of a document came from. */
export type DocumentSource = "argument" | "--bundle" | "draft.path" | "bundle.path";

/** A document a command works on. */
export interface ChosenDocument {
  /** Absolute path. */
  file: string;
  /** Its type when the source decides it; null for a file named on the command line. */
  type: DocumentType | null;
  source: DocumentSource;
}

/** The draft (`draft.path`). */
export async function draftDocument(session: Session): Promise<ChosenDocument> {
  const file = (await session.config()).draftPath;
  return note(session, { file, type: "draft", source: "draft.path" });
}

/**
 * The bundle: `--bundle <path>` (from the working folder) when the command
 * has that flag and it is given, else the configured bundle.
 */
export async function bundleDocument(session: Session): Promise<ChosenDocument> {
  const flag = session.string("bundle");
  return note(
    session,
    flag === undefined
      ? { file: (await session.config()).bundlePath, type: "bundle", source: "bundle.path" }
      : { file: await session.fromWorkingFolder(flag), type: "bundle", source: "--bundle" },
  );
}

/**
 * `error` as a command that reads the bundle (`bundle`, from
 * {@link bundleDocument}) throws it, with a hint when it is the configured
 * bundle missing because nothing was built yet: build it from the draft
 * (or, when there is none, start one). `instead` is what the command
 * offers besides building (`simulate`: its `--draft`). Any other error, and
 * a bundle named with `--bundle`, is returned as it is.
 */
export async function explainUnbuilt(
  session: Session,
  error: unknown,
  bundle: ChosenDocument,
  instead?: string,
): Promise<unknown> {
  if (!isPolicyError(error, "BUNDLE_READ_ERROR") || bundle.source !== "bundle.path") return error;
  if (await exists(session.files, bundle.file)) return error;
  const draft = await exists(session.files, (await session.config()).draftPath);
  return withHint(
    error,
    draft
      ? `no bundle has been built here yet: run 'policy build' to build it from the draft${
        instead === undefined ? "" : `, or ${instead}`
      }`
      : "no bundle has been built here yet: run 'policy build' (it needs a draft: 'policy policies add-rule' or 'policy policies import' starts one), or pass --bundle <path>",
  );
}

/**
 * What `validate` checks: the file named on the command line; else the
 * draft; else, when there is no draft, the bundle (a folder that only holds
 * a bundle).
 *
 * @throws {CliError} `DOCUMENT_READ_ERROR` when there is neither.
 */
export async function validateDocument(session: Session): Promise<ChosenDocument> {
  const [argument] = session.positionals;
  if (argument !== undefined) {
    const file = await session.fromWorkingFolder(argument);
    const config = await session.config();
    // A configured path named on the command line keeps its type.
    const type = file === config.draftPath ? "draft" : file === config.bundlePath ? "bundle" : null;
    return note(session, { file, type, source: "argument" });
  }
  const draft = await draftDocument(session);
  if (await exists(session.files, draft.file)) return draft;
  const bundle = await bundleDocument(session);
  if (await exists(session.files, bundle.file)) {
    session.out.note(`no draft at ${draft.file}: validating the bundle`);
    return bundle;
  }
  throw new CliError(
    "DOCUMENT_READ_ERROR",
    `nothing to validate: no draft at ${draft.file} and no bundle at ${bundle.file}`,
    { hint: "pass a file, or create a draft with 'policy working-folder init'" },
  );
}

/** For example `the draft /work/shop/policy-drafts.json (draft.path)`. */
export function describeDocument(document: ChosenDocument, type = document.type): string {
  const source = document.source === "argument" ? "named on the command line" : document.source;
  return `the ${type ?? "document"} ${document.file} (${source})`;
}

function note(session: Session, document: ChosenDocument): ChosenDocument {
  session.out.note(`working on ${describeDocument(document)}`);
  return document;
}
