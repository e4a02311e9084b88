/**
 * The project file `policy.config.json` (`docs/cli.md`, "Configuration"):
 * JSONC, unknown fields ignored (warned about inside the CLI's own blocks),
 * every documented field with its default, paths resolved from the working
 * folder.
 *
 * @module
 */
import type { FileLayer, PathRules } from "../../io/file_layer.ts";
import type { Env } from "../../engine/types.ts";
import { ENVS } from "../../public/vocabulary.ts";
import { CliError } from "./errors.ts";
import { describeValue } from "../../_internal/check_options.ts";
import { envNameProblem, isEnvName } from "./env.ts";
import { parseJsoncObject } from "./jsonc.ts";
import { parseDuration } from "./duration.ts";
import { unknownFieldIssues } from "../../_internal/unknown_field_issue.ts";
import { DEFAULT_MAX_FILE_BYTES, exists, readTextDocument } from "./read_document.ts";
import type { Warning } from "./output.ts";

/** The default project config file name. */
export const CONFIG_FILE = "policy.config.json";
/** `draft.path` default. */
export const DEFAULT_DRAFT_PATH = "policy-drafts.json";
/** `bundle.path` default. */
export const DEFAULT_BUNDLE_PATH = "policy-bundle.json";

/** A `build.signing` or `sign.signing` block. Paths are as written (relative to the working folder). */
export interface SigningBlock {
  algorithm?: string;
  keyId?: string;
  hmacSecretEnv?: string;
  ecdsaPrivateKeyPath?: string;
  /** A duration (`7d`): sign a freshness statement lasting that long (docs/cli.md, "Durations"). */
  expiresIn?: string;
}

/** The project config with every default applied and every path absolute. */
export interface ProjectConfig {
  /** The file in use, or null when there is none (defaults only). */
  file: string | null;
  schemaVersion: number | null;
  /** `draft.path`, absolute. */
  draftPath: string;
  /**
   * Where the bundle is, for every command: `build.outputDirectory`/(file
   * name of `bundle.path`) when `build.outputDirectory` is set, else `bundle.path`.
   */
  bundlePath: string;
  /** `signature.publicKeyPath`, absolute, or null. */
  publicKeyPath: string | null;
  /** `limits.maxFileBytes`. */
  maxFileBytes: number;
  build: {
    env: Env;
    /** Absolute. */
    outputDirectory: string;
    signed: boolean;
    validateParity: boolean;
    bundleVersionStrategy: "increment";
    orgId: string | null;
    projectId: string | null;
    signing: SigningBlock | null;
  };
  sign: { signing: SigningBlock | null };
  /** The `analyze` and `simulate` blocks as written (their fields are not specified). */
  analyze: Record<string, unknown> | null;
  simulate: Record<string, unknown> | null;
  /** Problems that do not stop the command (for example an unknown bundleVersionStrategy). */
  warnings: Warning[];
}

/**
 * Loads the project config of a working folder. `configFlag` (the `--config`
 * value) resolves from the working folder; when it names a file that does
 * not exist the result is `CONFIG_NOT_FOUND`. A missing default file means
 * all defaults.
 *
 * @throws {CliError} `CONFIG_NOT_FOUND`, `CONFIG_INVALID`, `DOCUMENT_READ_ERROR`.
 */
export async function loadProjectConfig(
  files: FileLayer,
  workingFolder: string,
  configFlag: string | undefined,
): Promise<ProjectConfig> {
  const named = configFlag !== undefined;
  const file = files.path.resolve(workingFolder, named ? configFlag : CONFIG_FILE);
  if (!(await exists(files, file))) {
    if (named) {
      throw new CliError("CONFIG_NOT_FOUND", `the config file ${file} does not exist`, {
        hint: "--config resolves from the working folder; check the path",
      });
    }
    return resolveConfig(workingFolder, null, {}, files.path);
  }
  const text = await readTextDocument(files, file, "config", DEFAULT_MAX_FILE_BYTES);
  return resolveConfig(workingFolder, file, parseJsoncObject(text, file), files.path);
}

/** The fields of the blocks the CLI reads; a signing block's are under `signing`. */
const SIGNING_FIELDS = [
  "algorithm",
  "keyId",
  "hmacSecretEnv",
  "ecdsaPrivateKeyPath",
  "expiresIn",
] as const;
const BLOCK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "/draft": ["path"],
  "/bundle": ["path"],
  "/signature": ["publicKeyPath"],
  "/limits": ["maxFileBytes"],
  "/build": [
    "env",
    "outputDirectory",
    "signed",
    "validateParity",
    "bundleVersionStrategy",
    "scope",
    "signing",
  ],
  "/build/scope": ["orgId", "projectId"],
  "/build/signing": SIGNING_FIELDS,
  "/sign": ["signing"],
  "/sign/signing": SIGNING_FIELDS,
  "/analyze": ["source", "skipDirectories"],
};

/** Applies defaults and type checks to a parsed config object; paths by the given rules. */
export function resolveConfig(
  workingFolder: string,
  file: string | null,
  raw: Record<string, unknown>,
  path: PathRules,
): ProjectConfig {
  const read = new Reader(file ?? CONFIG_FILE, raw);
  const warnings: Warning[] = [];
  // The file is shared with other tools: top-level blocks of theirs are theirs. Inside the
  // CLI's own blocks, a field it does not know is most likely a typo (build.sigend).
  for (const [pointer, known] of Object.entries(BLOCK_FIELDS)) {
    const name = pointer.slice(1).replaceAll("/", ".");
    for (const issue of unknownFieldIssues(read.value(pointer), known, pointer, name, "the CLI")) {
      warnings.push({ code: issue.code, message: `${file ?? CONFIG_FILE}: ${issue.message}` });
    }
  }
  const fromWf = (p: string) => path.resolve(workingFolder, p);

  const schemaVersion = read.number("/schemaVersion");
  const draftPath = fromWf(read.string("/draft/path") ?? DEFAULT_DRAFT_PATH);
  const bundleRelative = read.string("/bundle/path") ?? DEFAULT_BUNDLE_PATH;
  const publicKeyPath = read.string("/signature/publicKeyPath");
  const maxFileBytes = read.number("/limits/maxFileBytes") ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1) {
    throw read.invalid("/limits/maxFileBytes", "a whole number of bytes >= 1");
  }
  const env = read.string("/build/env") ?? "prod";
  if (!(ENVS as readonly string[]).includes(env)) {
    throw read.invalid("/build/env", `one of ${ENVS.join(", ")}`);
  }
  const outputDirectory = read.string("/build/outputDirectory");
  const strategy = read.string("/build/bundleVersionStrategy") ?? "increment";
  if (strategy !== "increment") {
    warnings.push({
      code: "CONFIG_STRATEGY_FALLBACK",
      message: `build.bundleVersionStrategy ${
        describeValue(strategy)
      } is not implemented; using "increment"`,
    });
  }
  const bundlePath = outputDirectory === undefined
    ? fromWf(bundleRelative)
    : path.join(fromWf(outputDirectory), path.basename(bundleRelative));
  return {
    file,
    schemaVersion: schemaVersion ?? null,
    draftPath,
    bundlePath,
    publicKeyPath: publicKeyPath === undefined ? null : fromWf(publicKeyPath),
    maxFileBytes,
    build: {
      env: env as Env,
      outputDirectory: fromWf(outputDirectory ?? "."),
      signed: read.boolean("/build/signed") ?? false,
      validateParity: read.boolean("/build/validateParity") ?? true,
      bundleVersionStrategy: "increment",
      orgId: read.string("/build/scope/orgId") ?? null,
      projectId: read.string("/build/scope/projectId") ?? null,
      signing: read.signing("/build/signing"),
    },
    sign: { signing: read.signing("/sign/signing") },
    analyze: read.object("/analyze") ?? null,
    simulate: read.object("/simulate") ?? null,
    warnings,
  };
}

/** Typed reads of nested fields; a field of the wrong type is `CONFIG_INVALID`. */
class Reader {
  constructor(readonly file: string, readonly raw: Record<string, unknown>) {}

  /** The value at `pointer`, unchecked (undefined when a step is missing or not an object). */
  value(pointer: string): unknown {
    return this.#get(pointer);
  }

  #get(pointer: string): unknown {
    let value: unknown = this.raw;
    for (const key of pointer.split("/").slice(1)) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
      if (!Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  }

  invalid(pointer: string, expected: string): CliError {
    const field = pointer.slice(1).replaceAll("/", ".");
    return new CliError("CONFIG_INVALID", `${this.file}: ${field} must be ${expected}`);
  }

  string(pointer: string): string | undefined {
    const value = this.#get(pointer);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string" || value === "") {
      throw this.invalid(pointer, "a non-empty string");
    }
    return value;
  }

  number(pointer: string): number | undefined {
    const value = this.#get(pointer);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw this.invalid(pointer, "a number");
    }
    return value;
  }

  boolean(pointer: string): boolean | undefined {
    const value = this.#get(pointer);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") throw this.invalid(pointer, "true or false");
    return value;
  }

  object(pointer: string): Record<string, unknown> | undefined {
    const value = this.#get(pointer);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "object" || Array.isArray(value)) throw this.invalid(pointer, "an object");
    return value as Record<string, unknown>;
  }

  signing(pointer: string): SigningBlock | null {
    if (this.object(pointer) === undefined) return null;
    const block: SigningBlock = {};
    for (const field of SIGNING_FIELDS) {
      const value = this.string(`${pointer}/${field}`);
      if (field === "hmacSecretEnv" && value !== undefined && !isEnvName(value)) {
        throw new CliError(
          "CONFIG_INVALID",
          `${this.file}: ${envNameProblem(`${pointer}/${field}`)}`,
        );
      }
      if (field === "expiresIn" && value !== undefined) {
        const problem = parseDuration(value);
        if (typeof problem === "string") {
          throw new CliError(
            "CONFIG_INVALID",
            `${this.file}: ${pointer.slice(1).replaceAll("/", ".")}.expiresIn ${
              describeValue(value)
            } ${problem}`,
          );
        }
      }
      if (value !== undefined) block[field] = value;
    }
    return block;
  }
}
