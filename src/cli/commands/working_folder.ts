/**
 * `policy working-folder [set <path> | reset | init]`.
 *
 * @module
 */
import { nodeFs } from "../../io/node_fs.ts";
import { CliError, usageError } from "../kit/errors.ts";
import { draftDocument } from "../kit/documents.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import {
  isDirectory,
  readUserConfigForChange,
  resolveWorkingFolder,
  SOURCE_LABELS,
  userConfigPath,
  type WorkingFolder,
  writeUserConfig,
} from "../kit/working_folder.ts";
import { draftText } from "../kit/draft.ts";
import { emptyDraft } from "../../authoring/draft.ts";
import { didYouMean } from "../../_internal/suggest.ts";
import { describeThrown } from "../../_internal/describe_thrown.ts";
import { describeValue } from "../../_internal/check_options.ts";
import type { CommandSpec } from "../kit/command_spec.ts";

const ACTIONS = ["set", "reset", "init"] as const;

/** The declaration of `working-folder`. */
export const WORKING_FOLDER_SPEC: CommandSpec = {
  name: "working-folder",
  usage: "working-folder [set <path> | reset | init]",
  summary: [
    "Shows the working folder and its source (--working-folder, POLICY_WORKING_FOLDER,",
    "the persisted folder, the current folder, in that order).",
    "  set <path>  persists <path> (resolved from the current folder) in $POLICY_HOME/config.json",
    "  reset       removes the persisted folder",
    "  init        creates an empty draft (draft.path) in the working folder; never overwrites",
  ].join("\n"),
  flags: {},
  maxPositionals: 2,
  positionals: ["set", "reset", "init"],
  examples: [
    "policy working-folder",
    "policy working-folder set ~/projects/shop",
    "policy working-folder init",
  ],
};

/**
 * Shows the working folder and where it came from; `set <path>` and
 * `reset` persist it in `$POLICY_HOME/config.json`; `init` creates an empty
 * draft in it and refuses to overwrite one.
 */
export const runWorkingFolder = defineCommand(WORKING_FOLDER_SPEC, async (session) => {
  const request = workingFolderRequest(session.positionals);
  switch (request.action) {
    case "set":
      return await set(session, request.path);
    case "reset":
      return await reset(session);
    case "init":
      return await init(session);
    default:
      return await show(session, "show", await resolve(session), null);
  }
});

/** What `working-folder` is asked to do: show, set (with its path as given), reset or init. */
export type WorkingFolderRequest =
  | { action: "show" | "reset" | "init" }
  | { action: "set"; path: string };

/**
 * The action of `working-folder <positionals>`, checked.
 *
 * @throws {CliError} `USAGE_ERROR` for an unknown subcommand (with the closest
 * one), an argument to anything but `set`, or `set` without a path.
 */
export function workingFolderRequest(positionals: readonly string[]): WorkingFolderRequest {
  const [action, argument] = positionals;
  if (action !== undefined && !(ACTIONS as readonly string[]).includes(action)) {
    throw usageError(
      `unknown subcommand ${describeValue(action)} for 'policy working-folder'${
        didYouMean(action, ACTIONS)
      }`,
      "run 'policy working-folder --help'",
    );
  }
  if (action !== "set" && argument !== undefined) {
    throw usageError(
      `unexpected argument ${describeValue(argument)} for 'policy working-folder'`,
    );
  }
  if (action !== "set") return { action: (action ?? "show") as "show" | "reset" | "init" };
  if (argument === undefined) {
    throw usageError(
      "'policy working-folder set' needs a path",
      "policy working-folder set <path>",
    );
  }
  return { action, path: argument };
}

/**
 * The user config that `set` (a `workingFolder`, absolute) or `reset`
 * (null) makes of `config`, the one read (`moved`: a damaged one was moved
 * aside, and `config` is empty): its other settings kept, `schemaVersion`
 * 1; or null when there is nothing to write (`reset` of a config that
 * persists no folder).
 */
export function planUserConfig(
  config: Record<string, unknown>,
  moved: string | null,
  workingFolder: string | null,
): Record<string, unknown> | null {
  if (workingFolder !== null) return { ...config, schemaVersion: 1, workingFolder };
  if (!Object.hasOwn(config, "workingFolder") && moved === null) return null;
  const { workingFolder: _removed, ...rest } = config;
  return { ...rest, schemaVersion: 1 };
}

async function resolve(session: Session): Promise<WorkingFolder> {
  const folder = await resolveWorkingFolder(session.global.workingFolder, session.io);
  session.out.note(`working folder: ${folder.path} (from ${SOURCE_LABELS[folder.source]})`);
  return folder;
}

async function show(
  session: Session,
  action: "show" | "set" | "reset" | "init",
  folder: WorkingFolder,
  draftPath: string | null,
): Promise<number> {
  const out = session.out;
  const userConfig = userConfigPath(session.io) ?? null;
  const exists = await isDirectory(session.files, folder.path);
  out.note(`user config: ${userConfig ?? "(none: neither POLICY_HOME nor HOME is set)"}`);
  out.result(
    {
      action,
      workingFolder: folder.path,
      source: folder.source,
      exists,
      userConfig,
      draftPath,
      warnings: out.warnings,
    },
    () => {
      if (action === "show") {
        out.line(folder.path);
        out.info(`source: ${SOURCE_LABELS[folder.source]}`);
        if (!exists) out.info("(the folder does not exist)");
      } else if (action === "set") {
        out.info(`working folder set to ${folder.path} (saved in ${userConfig})`);
      } else if (action === "reset") {
        out.info(
          `persisted working folder removed; working folder is now ${folder.path} (${
            SOURCE_LABELS[folder.source]
          })`,
        );
      } else {
        out.info(`created empty draft ${draftPath}`);
      }
    },
  );
  return 0;
}

function requireUserConfig(session: Session): string {
  const file = userConfigPath(session.io);
  if (file === undefined) {
    throw new CliError(
      "CONFIG_INVALID",
      "cannot find the user config folder: neither POLICY_HOME nor HOME is set",
      { hint: "set POLICY_HOME to a folder for the policy CLI's user settings" },
    );
  }
  return file;
}

function warnIfOverridden(session: Session): void {
  if (session.global.workingFolder !== undefined) {
    session.out.warn(
      "WORKING_FOLDER_OVERRIDDEN",
      "--working-folder is given and takes precedence over the persisted folder",
    );
  } else if (session.env("POLICY_WORKING_FOLDER") !== undefined) {
    session.out.warn(
      "WORKING_FOLDER_OVERRIDDEN",
      "POLICY_WORKING_FOLDER is set and takes precedence over the persisted folder",
    );
  }
}

async function set(session: Session, argument: string): Promise<number> {
  const target = session.files.path.resolve(session.io.cwd, argument);
  if (!(await isDirectory(session.files, target))) {
    throw new CliError("WORKING_FOLDER_NOT_FOUND", `${target} is not an existing folder`);
  }
  const file = requireUserConfig(session);
  const { config, moved } = await userConfigForChange(session, file);
  await writeUserConfig(file, planUserConfig(config, moved, target)!);
  session.out.note(`wrote ${file}`);
  warnIfOverridden(session);
  return await show(session, "set", { path: target, source: "user-config" }, null);
}

/** The user config to change; a damaged one is moved aside, with a warning. */
async function userConfigForChange(
  session: Session,
  file: string,
): Promise<{ config: Record<string, unknown>; moved: string | null }> {
  const { config, moved } = await readUserConfigForChange(
    session.files,
    file,
    new Date(session.io.clock.wallNow()),
  );
  if (moved !== null) {
    session.out.warn(
      "USER_CONFIG_REPLACED",
      `${file} could not be used (not JSON, or workingFolder not a path); it was moved to ${moved} and a new one is written`,
    );
  }
  return { config, moved };
}

async function reset(session: Session): Promise<number> {
  const file = requireUserConfig(session);
  const { config, moved } = await userConfigForChange(session, file);
  const changed = planUserConfig(config, moved, null);
  if (changed !== null) {
    await writeUserConfig(file, changed);
    session.out.note(`wrote ${file}`);
  }
  return await show(session, "reset", await resolve(session), null);
}

async function init(session: Session): Promise<number> {
  // Created when missing; resolved without the note, which workingFolder() prints below.
  const folder = await resolveWorkingFolder(session.global.workingFolder, session.io);
  const { fs } = await nodeFs();
  await fs.mkdir(folder.path, { recursive: true }).catch((error) => {
    throw new CliError("WRITE_ERROR", `cannot create ${folder.path}: ${describeThrown(error)}`);
  });
  await session.workingFolder();
  const { file } = await draftDocument(session);
  const draft = emptyDraft(new Date(session.io.clock.wallNow()));
  await session.exclusive(() =>
    session.writeDocument(file, "draft", draftText(draft), {
      overwrite: false,
      createParents: true,
      onExists: (target) =>
        new CliError("DRAFT_EXISTS", `a draft already exists at ${target}; it was not changed`, {
          hint: "edit it with 'policy policies ...', or delete it first to start over",
        }),
    })
  );
  return await show(session, "init", folder, file);
}
