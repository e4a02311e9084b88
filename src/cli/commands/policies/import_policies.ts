/**
 * `policy policies import <file>`: adds the policies of a policy wrapper
 * (or a list of them) or of the older file form to the draft, mapped as
 * `docs/import.md` says (`import_shapes.ts`), checked with the engine's
 * rules, and reports what it imported.
 *
 * @module
 */
import { CliError, usageError } from "../../kit/errors.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { type EditableDraft, readDraftForEdit, saveDraft } from "../../kit/draft.ts";
import { type DraftDocument, emptyDraft, validateDraft } from "../../../authoring/draft.ts";
import { draftDocument } from "../../kit/documents.ts";
import { type ImportedPolicies, importPolicies, keyText } from "./import_shapes.ts";
import { DEFAULT_MAX_ISSUES } from "../../../engine/validate_bundle.ts";
import { isRecord } from "../../../_internal/guards.ts";
import type { Output } from "../../kit/output.ts";
import { exists } from "../../kit/read_document.ts";
import { describeEffect, plural } from "../../kit/describe.ts";
import { refuseUnknownOperators, UNKNOWN_OPERATORS_FLAG } from "./_unknown_operators.ts";
import { cutText } from "../../../_internal/cut_text.ts";

/** Where the warnings of an import go: {@link CappedWarnings} prints them, a test keeps them. */
export interface WarningSink {
  /** A warning; a function `message` is called only when the warning is shown. */
  warn(code: string, message: string | (() => string)): void;
}

/** What the import is asked to do. */
export interface ImportOptions {
  /** The file imported, absolute (named in messages). */
  source: string;
  /** Replace the draft's policies of the same keys. */
  replace: boolean;
  /** `--strict`: what would not be imported, and engine warnings, refuse the import. */
  strict: boolean;
  /** `--allow-unknown-operators`: a condition operator this version does not know is imported. */
  allowUnknownOperators?: boolean;
}

/** One imported policy of the report (`policies` of the JSON document). */
export interface ImportedPolicyReport {
  policyKey: string;
  activeVersion: number;
  ruleCount: number;
  defaultsEffect: string | null;
  replaced: boolean;
}

/** The declaration of `policies import`. */
export const IMPORT_POLICIES_SPEC: CommandSpec = {
  name: "policies import",
  usage: "policies import <file> [--replace]",
  summary: [
    "Adds the policies of <file> (from the working folder) to the draft, creating the draft",
    "when there is none. <file> is a policy wrapper ({policyKey, env, friendlyName, status,",
    "activeVersion, snapshot: {defaults, rules}}, or an array of them) or the older file",
    "form ({version, policies: [{policyKey, rules: [{id, all: [...], effect | throttle}]}]});",
    "docs/import.md says what each field becomes. What cannot be mapped is refused",
    "(IMPORT_UNMAPPABLE, naming the field); fields that are not imported are warnings",
    "(--strict refuses them). A policy key the draft already has is refused",
    "(IMPORT_CONFLICT) unless --replace is given. A condition operator this version does",
    "not know is refused unless --allow-unknown-operators.",
  ].join("\n"),
  flags: {
    replace: {
      type: "boolean",
      description: "replace the draft's policies that have the same keys",
    },
    ...UNKNOWN_OPERATORS_FLAG,
  },
  maxPositionals: 1,
  positionals: "files",
  examples: [
    "policy policies import legacy-policies.json",
    "policy policies import billing.wrapper.json --replace",
  ],
};

/**
 * What can be refused before the draft is read: fields that would not be
 * imported (warnings; refused with `strict`), a key held twice, and an env
 * other than the draft's build env (warnings).
 *
 * @throws {CliError} `IMPORT_UNMAPPABLE`.
 */
export function checkImported(
  imported: ImportedPolicies,
  { source, strict }: ImportOptions,
  buildEnv: string,
  warnings: WarningSink,
): void {
  for (const w of imported.dropped) {
    warnings.warn(w.code, `${source}: ${w.message} (at ${shortPointer(w.path)})`);
  }
  const droppedCount = imported.dropped.length + imported.droppedOmitted;
  if (strict && droppedCount > 0) {
    throw new CliError(
      "IMPORT_UNMAPPABLE",
      `${source} has ${
        plural(droppedCount, "field")
      } that would not be imported, which --strict refuses; nothing was imported`,
    );
  }
  const keys = new Set<string>();
  for (const p of imported.policies) {
    if (keys.has(p.policyKey)) {
      throw new CliError(
        "IMPORT_UNMAPPABLE",
        `${source} holds policy ${keyText(p.policyKey)} twice; nothing was imported`,
      );
    }
    keys.add(p.policyKey);
  }
  for (const [key, env] of imported.envs) {
    if (env !== buildEnv) {
      warnings.warn(
        "IMPORT_ENV_DIFFERS",
        () =>
          `policy ${
            keyText(key)
          } comes from env ${env}, but the draft builds for ${buildEnv} (build.env); a draft holds no env: build with --env ${env} for that environment`,
      );
    }
  }
}

/**
 * Adds the imported policies to `draft` (in the place of those of the same
 * keys with `replace`) and checks them with the engine's rules; their
 * warnings go to `warnings`.
 *
 * @throws {CliError} `IMPORT_CONFLICT`, `IMPORT_UNMAPPABLE`.
 */
export function planImport(
  draft: DraftDocument,
  imported: ImportedPolicies,
  options: ImportOptions,
  warnings: WarningSink,
): ImportedPolicyReport[] {
  const { replace } = options;
  const policies = draft.policies;
  // Where each key is in the draft (its first policy of that key), so the merge is linear.
  const placeOf = new Map<string, number>();
  policies.forEach((p, i) => {
    const key = isRecord(p) ? p.policyKey : undefined;
    if (typeof key === "string" && !placeOf.has(key)) placeOf.set(key, i);
  });
  // The draft index of each imported policy, in the file's order.
  const placed: number[] = [];
  const report = imported.policies.map((policy) => {
    const at = placeOf.get(policy.policyKey) ?? -1;
    if (at >= 0 && !replace) {
      throw new CliError(
        "IMPORT_CONFLICT",
        `the draft already has a policy ${keyText(policy.policyKey)}; nothing was imported`,
        { hint: "pass --replace to replace it with the imported one" },
      );
    }
    if (at >= 0) policies[at] = policy;
    else policies.push(policy);
    placed.push(at >= 0 ? at : policies.length - 1);
    return {
      policyKey: policy.policyKey,
      activeVersion: policy.activeVersion,
      ruleCount: policy.rules.length,
      defaultsEffect: policy.defaults?.effect ?? null,
      replaced: at >= 0,
    };
  });
  checkMerged(draft, new Set(placed), options, warnings);
  return report;
}

/** The engine's rules, on the policies just imported (at `indexes` of `draft`). */
function checkMerged(
  draft: DraftDocument,
  indexes: ReadonlySet<number>,
  { source, strict, allowUnknownOperators }: ImportOptions,
  warnings: WarningSink,
): void {
  const mine = (path: string) => {
    const index = /^\/policies\/(\d+)\//.exec(path)?.[1];
    return index !== undefined && indexes.has(Number(index));
  };
  const result = validateDraft(draft);
  const errors = result.errors.filter((e) => mine(e.path));
  if (errors.length > 0) {
    const listed = errors.slice(0, LISTED_ERRORS).map((e) => `${e.message} (${e.code})`);
    const more = errors.length - listed.length;
    throw new CliError(
      "IMPORT_UNMAPPABLE",
      `${source} maps to policies the engine refuses: ${listed.join("; ")}${
        more > 0 ? `; and ${plural(more, "more error")}` : ""
      }; nothing was imported`,
      { hint: "run 'policy validate' on the file's policies to see every error" },
    );
  }
  const engineWarnings = result.warnings.filter((w) => mine(w.path));
  refuseUnknownOperators(engineWarnings, {
    allow: allowUnknownOperators === true,
    code: "IMPORT_UNMAPPABLE",
    what: source,
  });
  for (const w of engineWarnings) warnings.warn(w.code, w.message);
  if (strict && engineWarnings.length > 0) {
    throw new CliError(
      "IMPORT_UNMAPPABLE",
      `the imported policies have ${
        plural(engineWarnings.length, "warning")
      }, which --strict treats as failures; nothing was imported`,
    );
  }
}

/** The text output of an import done. */
function render(
  out: Output,
  report: readonly ImportedPolicyReport[],
  imported: ImportedPolicies,
  source: string,
  edit: EditableDraft & { created: boolean },
): void {
  const ruleCount = report.reduce((n, p) => n + p.ruleCount, 0);
  out.info(
    `imported ${plural(report.length, "policy", "policies")} (${
      plural(ruleCount, "rule")
    }) from ${source} (${
      imported.form === "wrapper" ? "policy wrapper" : "older file form"
    }) into ${edit.created ? "the new draft" : "the draft"} ${edit.file}`,
  );
  for (const [i, p] of report.slice(0, DEFAULT_MAX_ISSUES).entries()) {
    const defaults = imported.policies[i]!.defaults;
    out.info(
      `  ${p.replaced ? "replaced" : "added"} ${
        keyText(p.policyKey)
      }: active version ${p.activeVersion}, ${plural(p.ruleCount, "rule")}, default ${
        defaults === undefined ? "(none)" : describeEffect(defaults.effect, defaults)
      }`,
    );
  }
  if (report.length > DEFAULT_MAX_ISSUES) {
    out.info(
      `  … and ${
        plural(report.length - DEFAULT_MAX_ISSUES, "more policy", "more policies")
      }, not listed (at most ${DEFAULT_MAX_ISSUES} are; --format json lists them all)`,
    );
  }
}

/** The draft to import into (`file`): the configured one, or a new one when there is none yet. */
async function openDraft(
  session: Session,
  file: string,
): Promise<EditableDraft & { created: boolean }> {
  if (await exists(session.files, file)) {
    return { ...await readDraftForEdit(session), created: false };
  }
  const draft = emptyDraft(new Date(session.io.clock.wallNow()));
  return { file, draft, commented: false, created: true };
}

/** Imports policies from the two exchange shapes into the draft. */
export const runImportPolicies = defineCommand(IMPORT_POLICIES_SPEC, async (session) => {
  const out = session.out;
  const [argument] = session.positionals;
  if (argument === undefined) {
    throw usageError(
      "'policy policies import' needs the file to import",
      "policy policies import <file>",
    );
  }
  const source = await session.fromWorkingFolder(argument);
  const options = {
    source,
    replace: session.has("replace"),
    strict: session.global.strict,
    allowUnknownOperators: session.has("allow-unknown-operators"),
  };
  const imported = importPolicies((await session.readDocument(source, "import")).value, source);
  out.note(`${source}: ${imported.form === "wrapper" ? "policy wrapper" : "older file form"}`);
  const warnings = new CappedWarnings(out);
  try {
    warnings.omit(imported.droppedOmitted);
    checkImported(imported, options, (await session.config()).build.env, warnings);
    const { file } = await draftDocument(session);
    return await session.exclusive(async () => {
      const edit = await openDraft(session, file);
      const report = planImport(edit.draft, imported, options, warnings);
      await saveDraft(session, edit);
      out.result(
        {
          draftPath: edit.file,
          created: edit.created,
          source: { path: source, form: imported.form },
          policies: report,
          warnings: out.warnings,
          omittedWarnings: warnings.omitted,
        },
        () => render(out, report, imported, source, edit),
      );
      return 0;
    });
  } finally {
    warnings.close();
  }
});

/** Engine errors quoted in the message of a refused import. */
const LISTED_ERRORS = 5;

/** A JSON Pointer as quoted in a warning: "/" for the root, at most 120 characters. */
function shortPointer(path: string): string {
  if (path === "") return "/";
  return cutText(path, 120);
}

/**
 * The warnings of one import, as validation lists them: the first
 * {@link DEFAULT_MAX_ISSUES} printed, the rest counted and summed up in one
 * line by {@link CappedWarnings.close} (on stderr, like the warnings).
 */
class CappedWarnings implements WarningSink {
  readonly #out: Output;
  #listed = 0;
  omitted = 0;

  constructor(out: Output) {
    this.#out = out;
  }

  /** Prints a warning, or counts it past the cap (a function `message` is then not even called). */
  warn(code: string, message: string | (() => string)): void {
    if (this.#listed < DEFAULT_MAX_ISSUES) {
      this.#listed++;
      this.#out.warn(code, typeof message === "string" ? message : message());
    } else {
      this.omitted++;
    }
  }

  /** Counts `count` warnings that were not even described. */
  omit(count: number): void {
    this.omitted += count;
  }

  /** Prints how many were not listed (the command calls it once, at its end). */
  close(): void {
    if (this.omitted === 0) return;
    this.#out.stderrLine(
      `warning: … and ${
        plural(this.omitted, "more warning")
      }, not listed (at most ${DEFAULT_MAX_ISSUES} are)`,
    );
  }
}
