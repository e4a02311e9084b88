/**
 * The one shape of the `policies` subcommands that edit the draft
 * (`update-policy`, `add-rule`, `remove-rule`, `set-status`, `remove`,
 * `rename`): their parameters read from the command line and checked before
 * anything is read; the draft read under the working folder's lock (with
 * whatever else the edit needs, such as a rule file); a pure plan that
 * changes the draft, or refuses with a `CliError`, and says what it did; the
 * draft saved when it changed, the guarded way; and the result printed, as
 * the JSON document or as the command's text.
 *
 * @module
 */
import type { DraftDocument } from "../../../authoring/draft.ts";
import type { CommandFunction, CommandSpec } from "../../kit/command_spec.ts";
import { readDraftForEdit, saveDraft } from "../../kit/draft.ts";
import type { Output, Warning } from "../../kit/output.ts";
import { defineCommand, type Session } from "../../kit/session.ts";

/** What an edit's plan decided. */
// deno-lint-ignore no-explicit-any -- a document of any shape: each command declares its own
export interface EditPlan<D extends Record<string, any> = Record<string, unknown>> {
  /** The command's JSON document, between `draftPath` and `warnings`. */
  document: D;
  /** The draft changed, and is saved. */
  changed: boolean;
}

/** The steps of one edit of the draft. */
export interface DraftEdit<P, I, R extends EditPlan> {
  /** The command line's parameters, checked before anything is read. */
  parameters(session: Session): P | Promise<P>;
  /** What the plan needs besides the draft, read under the lock after it. */
  inputs?(session: Session, parameters: P): Promise<I>;
  /**
   * The edit: changes `draft` in place, or throws a `CliError` (the draft
   * then is not saved). Pure: it reads and writes nothing but its arguments,
   * and adds its warnings to `warnings`, which are printed even when it
   * throws.
   */
  plan(draft: DraftDocument, parameters: P, inputs: I, warnings: Warning[]): R;
  /** The text output of the edit done (`file`: the draft). */
  render(out: Output, plan: R, file: string): void;
}

/** A command that edits the draft, from its spec and its steps. */
export function defineDraftEdit<P, I, R extends EditPlan>(
  spec: CommandSpec,
  edit: DraftEdit<P, I, R>,
): CommandFunction {
  return defineCommand(spec, async (session) => {
    const out = session.out;
    const parameters = await edit.parameters(session);
    return await session.exclusive(async () => {
      const draft = await readDraftForEdit(session);
      const inputs = (await edit.inputs?.(session, parameters)) as I;
      const warnings: Warning[] = [];
      let plan: R;
      try {
        plan = edit.plan(draft.draft, parameters, inputs, warnings);
      } finally {
        for (const w of warnings) out.warn(w.code, w.message);
      }
      if (plan.changed) await saveDraft(session, draft);
      out.result(
        { draftPath: draft.file, ...plan.document, warnings: out.warnings },
        () => edit.render(out, plan, draft.file),
      );
      return 0;
    });
  });
}
