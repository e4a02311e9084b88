/**
 * `policy playground`: serves the playground page (docs/playground.md) on
 * 127.0.0.1, preloaded with the working folder's draft (or bundle) and
 * suites, and pushes them to the page again whenever one changes, so that
 * the page is a live view while authoring. It reads, and never writes.
 *
 * @module
 */
import { CliError, usageError } from "../../kit/errors.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { exists, readTextDocument } from "../../kit/read_document.ts";
import type { PlaygroundServer } from "./playground_server.ts";
import type { LiveFile, LiveState } from "../../../authoring/live_state.ts";
import { plural } from "../../kit/describe.ts";
import { folderOutside, isSuiteFileName, suiteFiles } from "../../kit/suite.ts";
import { findFiles, FindFilesError } from "../../../io/find_files.ts";
import { isPolicyError } from "../../../public/policy_error.ts";
import type { FileLayer } from "../../../io/file_layer.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";

/** The port when `--port` is not given. */
export const DEFAULT_PORT = 4010;

/** How often the working folder is read for changes. */
export const POLL_INTERVAL_MS = 1000;

/** At most this many suites are found and followed. */
export const MAX_SUITES = 50;

/** The most entries of the working folder looked through for suites (a folder of build output). */
const MAX_FOLDER_ENTRIES = 20_000;

/** The declaration of `playground`. */
export const PLAYGROUND_SPEC: CommandSpec = {
  name: "playground",
  usage: "playground [file] [--port <n>] [--suite <path>] [--open]",
  summary: [
    "Serves the playground page on http://127.0.0.1:<port>/ (default 4010), preloaded with",
    "the working folder's draft (else its bundle; or the file named) and its suites",
    "(suite.json and *.suite.json up to three folders deep; or --suite <file or folder>, a",
    "folder's suite.json and *.suite.json), and pushes them to the page whenever one",
    "changes. Only this machine can reach it; it never writes. --open starts the system's",
    "browser on it. Runs until stopped (Ctrl-C).",
  ].join("\n"),
  flags: {
    port: {
      type: "string",
      value: "<n>",
      description: `port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 for any free port)`,
    },
    suite: {
      type: "string",
      value: "<path>",
      multiple: true,
      description:
        "the suites to follow: a file, or a folder's suite.json and *.suite.json (repeatable)",
    },
    open: { type: "boolean", description: "open the page in the system's browser" },
  },
  maxPositionals: 1,
  examples: [
    "policy playground --open",
    "policy playground release/policy-bundle.json --port 0",
    "policy playground --suite policy/suites --suite smoke.suite.json",
  ],
};

/** A document the playground follows, in order of preference. */
interface Followed {
  file: string;
  kind: "draft" | "bundle" | "document";
}

/**
 * What the playground follows: the document named on the command line, or
 * the draft, else the bundle.
 */
async function followedDocuments(session: Session): Promise<Followed[]> {
  const config = await session.config();
  const [argument] = session.positionals;
  return argument === undefined
    ? [{ file: config.draftPath, kind: "draft" }, { file: config.bundlePath, kind: "bundle" }]
    : [{ file: await session.fromWorkingFolder(argument), kind: "document" }];
}

/**
 * How the live state is read on every poll: the first followed document
 * there, and the suites found, each read as the page sees it.
 */
function stateReader(
  session: Session,
  folder: string,
  documents: readonly Followed[],
  suitePaths: readonly string[],
  maxFileBytes: number,
): () => Promise<LiveState> {
  const read = (file: string, kind: "draft" | "bundle" | "document" | "suite") =>
    readLiveFile(session.files, folder, file, kind, maxFileBytes);
  return async () => {
    let document: LiveFile | null = null;
    for (const { file, kind } of documents) {
      if (documents.length > 1 && !(await exists(session.files, file))) continue;
      document = await read(file, kind);
      break;
    }
    const suites = await findSuites(session.files, folder, suitePaths);
    return {
      version: 1,
      workingFolder: folder,
      document,
      suites: await Promise.all(suites.map((file) => read(file, "suite"))),
    };
  };
}

/** Starts the server on `port`; a read error of the folder is said once until it changes. */
async function startServer(
  session: Session,
  page: Awaited<ReturnType<typeof loadPage>>,
  port: number,
  readState: () => Promise<LiveState>,
): Promise<PlaygroundServer> {
  let lastError = "";
  // The server (node:http, which loads Deno's Node compatibility layer) loads when the command
  // runs, not when the CLI starts (docs/performance.md, "Start-up").
  const { startPlaygroundServer } = await import("./playground_server.ts");
  try {
    return await startPlaygroundServer({
      page,
      port,
      readState,
      intervalMs: POLL_INTERVAL_MS,
      clock: session.io.clock,
      onReadError: (error) => {
        const message = (error as Error).message;
        if (message !== lastError) {
          session.out.aside(`could not read the working folder: ${message}`);
        }
        lastError = message;
      },
    });
  } catch (error) {
    throw listenError(error, port);
  }
}

/** `--open`: the browser at `url`, or a warning saying to open it. */
async function openIn(session: Session, url: string): Promise<void> {
  const { openBrowser } = await import("../../../io/open_browser.ts");
  try {
    await openBrowser(url);
  } catch (error) {
    session.out.warn(
      "BROWSER_NOT_OPENED",
      `could not start the browser (${(error as Error).message}): open ${url} yourself`,
    );
  }
}

/** Serves the playground. */
export const runPlayground = defineCommand(PLAYGROUND_SPEC, async (session) => {
  const port = portOf(session.string("port"));
  const page = await loadPage(session);
  const folder = (await session.workingFolder()).path;
  const config = await session.config();
  const documents = await followedDocuments(session);
  const suitePaths = await Promise.all(
    session.strings("suite").map((p) => session.fromWorkingFolder(p)),
  );
  const readState = stateReader(session, folder, documents, suitePaths, config.maxFileBytes);
  const server = await startServer(session, page, port, readState);
  if (session.has("open")) await openIn(session, server.url);
  const state = await readState();
  const out = session.out;
  out.result(
    {
      url: server.url,
      port: server.port,
      workingFolder: folder,
      document: state.document?.path ?? null,
      suites: state.suites.map((s) => s.path),
      warnings: out.warnings,
    },
    () => {
      out.line(`policy playground: ${server.url}`);
      out.info(
        `  following ${state.document?.path ?? `${documents[0]!.file} (not there yet)`}${
          state.suites.length === 0 ? "" : ` and ${plural(state.suites.length, "suite")}`
        }`,
      );
      out.info("  only this machine can open it; it reads and never writes. Ctrl-C stops it.");
    },
  );
  await stopped(session.io.signal);
  await server.close();
  return 0;
});

/** `--port`: a whole number from 0 to 65535. */
function portOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw usageError(`--port must be a port number from 0 to 65535, not '${text}'`);
  }
  return port;
}

/**
 * The page of this distribution (`io.playgroundPage`, which `cli.ts` sets).
 *
 * @throws {CliError} `PLAYGROUND_UNAVAILABLE` when it is missing.
 */
async function loadPage(session: Session): Promise<{ html: string; csp: string }> {
  const load = session.io.playgroundPage;
  let module: unknown;
  try {
    if (load === undefined) throw new Error("this program does not carry the page");
    module = await load();
  } catch (error) {
    throw new CliError(
      "PLAYGROUND_UNAVAILABLE",
      `the playground page is not built (${(error as Error).message.split("\n")[0]})`,
      {
        hint:
          "from the repository, run 'deno task playground:build' first; the npm and JSR packages carry it",
      },
    );
  }
  const { html, csp } = (module ?? {}) as { html?: unknown; csp?: unknown };
  if (typeof html !== "string" || typeof csp !== "string") {
    throw new CliError("PLAYGROUND_UNAVAILABLE", "the playground page module has no html and csp", {
      hint: "rebuild it: 'deno task playground:build'",
    });
  }
  return { html, csp };
}

/** Why the server did not start: a coded error of the first read as it is, else why it cannot listen. */
function listenError(error: unknown, port: number): Error {
  if (error instanceof CliError || isPolicyError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as Error | null)?.name;
  const why = code === "EADDRINUSE"
    ? `port ${port} is in use`
    : name === "NotCapable" || name === "PermissionDenied"
    ? "the runtime does not permit listening (Deno: --allow-net=127.0.0.1)"
    : (error as Error).message;
  return new CliError("PLAYGROUND_UNAVAILABLE", `cannot serve the playground: ${why}`, {
    ...(code === "EADDRINUSE" ? { hint: "pass another --port, or --port 0 for any free one" } : {}),
    cause: error,
  });
}

/** A file of the working folder as the page receives it: its text, or why it cannot be read. */
async function readLiveFile(
  files: FileLayer,
  folder: string,
  file: string,
  kind: "draft" | "bundle" | "document" | "suite",
  maxBytes: number,
): Promise<LiveFile> {
  const relativePath = files.path.relative(folder, file) || files.path.basename(file);
  try {
    // Only what is inside the working folder: whatever the server reads, any program of this
    // machine can read from its event stream (docs/playground.md, "A live view while authoring").
    const text = await readTextDocument(files, file, kind, maxBytes, { within: folder });
    return { path: file, relativePath, text, error: null };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      path: file,
      relativePath,
      text: null,
      error: {
        code: typeof code === "string" ? code : "DOCUMENT_READ_ERROR",
        message: (error as Error).message,
      },
    };
  }
}

/**
 * The suites followed: those the `--suite` flags name (a file, or every
 * `suite.json` and `*.suite.json` below a folder, as `simulate --suite` reads them), else
 * the files named `suite.json` or `*.suite.json` below the working folder
 * (hidden folders, dependencies and build output skipped, as `findFiles`
 * does for a project); sorted by path, at most {@link MAX_SUITES}.
 *
 * Only folders whose real path is inside the working folder are listed.
 *
 * @throws {CliError} `SUITE_INVALID` when the working folder holds over
 * {@link MAX_FOLDER_ENTRIES} entries to look through; `DOCUMENT_READ_ERROR`
 * for a folder leading out of it; the errors of `suiteFiles`.
 */
async function findSuites(
  files: FileLayer,
  folder: string,
  named: readonly string[],
): Promise<string[]> {
  if (named.length > 0) {
    return (await suiteFiles(files, named, { within: folder })).slice(0, MAX_SUITES);
  }
  try {
    const found = await findFiles(folder, isSuiteFileName, {
      maxEntries: MAX_FOLDER_ENTRIES,
      within: folder,
    });
    return found.slice(0, MAX_SUITES);
  } catch (error) {
    if (!(error instanceof FindFilesError)) throw error;
    if (error.reason === "outside") throw folderOutside(error.folder);
    throw new CliError(
      "SUITE_INVALID",
      `the working folder ${folder} holds over ${MAX_FOLDER_ENTRIES} entries to look through for suites`,
      { hint: "name the suites to follow with --suite" },
    );
  }
}

/** Resolves when `signal` aborts; never without one (the process ends the command). */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
