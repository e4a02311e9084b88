/**
 * `policy policies import <file>`: adds the policies of a policy wrapper
 * (or a list of them) or of the older file form to the draft, mapped as
 * `docs/import.md` says (`_import_shapes.ts`), checked with the engine's
 * rules, and reports what it imported.
 *
 * @module
 */
import { usageError } from "./_errors.ts";
import { CliError } from "./_errors.ts";
import { defineCommand } from "./_session.ts";
import { type EditableDraft, readDraftForEdit, saveDraft } from "./_draft.ts";
import { emptyDraft, validateDraft } from "../_authoring/draft.ts";
import { draftDocument } from "./_documents.ts";
import { importPolicies } from "./_import_shapes.ts";
import { exists } from "./_read_document.ts";
import { describeEffect, plural } from "./_describe.ts";

/** Imports policies from the two exchange shapes into the draft. */
export const runImportPolicies = defineCommand(
  {
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
      "(IMPORT_CONFLICT) unless --replace is given.",
    ].join("\n"),
    flags: {
      replace: {
        type: "boolean",
        description: "replace the draft's policies that have the same keys",
      },
    },
    maxPositionals: 1,
    positionals: "files",
    examples: [
      "policy policies import legacy-policies.json",
      "policy policies import billing.wrapper.json --replace",
    ],
  },
  async (session) => {
    const out = session.out;
    const [argument] = session.positionals;
    if (argument === undefined) {
      throw usageError(
        "'policy policies import' needs the file to import",
        "policy policies import <file>",
      );
    }
    const source = await session.fromWorkingFolder(argument);
    const imported = importPolicies(
      (await session.readDocument(source, "import")).value,
      source,
    );
    out.note(`${source}: ${imported.form === "wrapper" ? "policy wrapper" : "older file form"}`);
    for (const w of imported.dropped) {
      out.warn(w.code, `${source}: ${w.message} (at ${w.path || "/"})`);
    }
    if (session.global.strict && imported.dropped.length > 0) {
      throw new CliError(
        "IMPORT_UNMAPPABLE",
        `${source} has ${
          plural(imported.dropped.length, "field")
        } that would not be imported, which --strict refuses; nothing was imported`,
      );
    }
    const keys = new Set<string>();
    for (const p of imported.policies) {
      if (keys.has(p.policyKey)) {
        throw new CliError(
          "IMPORT_UNMAPPABLE",
          `${source} holds policy ${p.policyKey} twice; nothing was imported`,
        );
      }
      keys.add(p.policyKey);
    }
    const buildEnv = (await session.config()).build.env;
    for (const [key, env] of imported.envs) {
      if (env !== buildEnv) {
        out.warn(
          "IMPORT_ENV_DIFFERS",
          `policy ${key} comes from env ${env}, but the draft builds for ${buildEnv} (build.env); a draft holds no env: build with --env ${env} for that environment`,
        );
      }
    }
    const { file: draftFile } = await draftDocument(session);
    return await session.exclusive(async () => {
      const created = !(await exists(draftFile));
      const edit: EditableDraft = created
        ? {
          file: draftFile,
          draft: emptyDraft(new Date(session.io.clock.wallNow())),
          commented: false,
        }
        : await readDraftForEdit(session);
      const policies = edit.draft.policies;
      const report = imported.policies.map((policy) => {
        const at = policies.findIndex((p) => p?.policyKey === policy.policyKey);
        if (at >= 0 && !session.has("replace")) {
          throw new CliError(
            "IMPORT_CONFLICT",
            `the draft already has a policy ${policy.policyKey}; nothing was imported`,
            { hint: "pass --replace to replace it with the imported one" },
          );
        }
        if (at >= 0) policies[at] = policy;
        else policies.push(policy);
        return {
          policyKey: policy.policyKey,
          activeVersion: policy.activeVersion,
          ruleCount: policy.rules.length,
          defaultsEffect: policy.defaults?.effect ?? null,
          replaced: at >= 0,
        };
      });
      // The engine's rules, on the policies just imported.
      const indexes = imported.policies.map((p) => policies.indexOf(p));
      const mine = (path: string) => indexes.some((i) => path.startsWith(`/policies/${i}/`));
      const result = validateDraft(edit.draft);
      const errors = result.errors.filter((e) => mine(e.path));
      if (errors.length > 0) {
        throw new CliError(
          "IMPORT_UNMAPPABLE",
          `${source} maps to policies the engine refuses: ${
            errors.map((e) => `${e.message} (${e.code})`).join("; ")
          }; nothing was imported`,
        );
      }
      const warnings = result.warnings.filter((w) => mine(w.path));
      for (const w of warnings) out.warn(w.code, w.message);
      if (session.global.strict && warnings.length > 0) {
        throw new CliError(
          "IMPORT_UNMAPPABLE",
          `the imported policies have ${
            plural(warnings.length, "warning")
          }, which --strict treats as failures; nothing was imported`,
        );
      }
      await saveDraft(session, edit);
      const ruleCount = report.reduce((n, p) => n + p.ruleCount, 0);
      out.result(
        {
          draftPath: draftFile,
          created,
          source: { path: source, form: imported.form },
          policies: report,
          warnings: out.warnings,
        },
        () => {
          out.info(
            `imported ${plural(report.length, "policy", "policies")} (${
              plural(ruleCount, "rule")
            }) from ${source} (${
              imported.form === "wrapper" ? "policy wrapper" : "older file form"
            }) into ${created ? "the new draft" : "the draft"} ${draftFile}`,
          );
          for (const p of report) {
            const policy = imported.policies.find((x) => x.policyKey === p.policyKey)!;
            out.info(
              `  ${
                p.replaced ? "replaced" : "added"
              } ${p.policyKey}: active version ${p.activeVersion}, ${
                plural(p.ruleCount, "rule")
              }, default ${
                policy.defaults === undefined
                  ? "(none)"
                  : describeEffect(policy.defaults.effect, policy.defaults)
              }`,
            );
          }
        },
      );
      return 0;
    });
  },
);
