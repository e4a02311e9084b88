/**
 * `policy diff <old> <new>`: what a change to the policies changes, by
 * meaning, and which recorded decisions it changes (docs/change-safety.md).
 *
 * @module
 */
import type { Decision, RuntimeBundleV1 } from "../../../engine/types.ts";
import { type BundleDiff, diffBundles } from "../../../diff/diff_bundles.ts";
import {
  compareDecisions,
  type DecisionChange,
  type DecisionComparison,
} from "../../../diff/compare_decisions.ts";
import { CliError, exitCodeFor, usageError } from "../../kit/errors.ts";
import { defineCommand, type Session } from "../../kit/session.ts";
import { type DraftDocument, draftToBundle, validateDraft } from "../../../authoring/draft.ts";
import { detectDocumentType, type DocumentType } from "../../../authoring/document_type.ts";
import { readBundleFileUnverified } from "../../kit/bundle.ts";
import { parseDocumentText } from "../../kit/read_document.ts";
import { parseSuite } from "../../kit/suite.ts";
import type { Scenario } from "../../../authoring/suite.ts";
import { parseRequests, type RecordedRequest } from "./requests.ts";
import { describeEffect, describeTarget, plural } from "../../kit/describe.ts";
import type { Output } from "../../kit/output.ts";
import {
  describeFieldChange,
  describeRanking,
  shortJson,
} from "../../../authoring/describe_change.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";

/** The declaration of `diff`. */
export const DIFF_SPEC: CommandSpec = {
  name: "diff",
  usage: "diff <old> <new> [--requests <file.jsonl> | --suite <file>] [--fail-on-change]",
  summary: [
    "Lists what changed from <old> to <new> (bundles or drafts, in any mix) by meaning:",
    "policies and rules added, removed or changed field by field, defaults, and the",
    "targets whose ranking changed. Key order and formatting never show as changes.",
    "--requests evaluates recorded requests (JSON Lines of {target, context}) against both,",
    "--suite the scenarios of a simulation suite, and lists every request whose decision",
    "changes, with counts per target. --fail-on-change exits 1 when a decision changes (with",
    "--requests or --suite), or else when anything changed. Paths resolve from the working",
    "folder.",
  ].join("\n"),
  flags: {
    requests: {
      type: "string",
      value: "<file.jsonl>",
      description: "replay recorded requests (one JSON request a line)",
    },
    suite: {
      type: "string",
      value: "<file>",
      description: "replay the scenarios of a simulation suite",
    },
    "fail-on-change": {
      type: "boolean",
      description: "exit 1 when a decision (or, without requests, anything) changes",
    },
  },
  maxPositionals: 2,
  positionals: "files",
  examples: [
    "policy diff old-bundle.json policy-drafts.json",
    "policy diff policy-bundle.json policy-drafts.json --requests decisions.jsonl --fail-on-change",
    "policy diff old.json new.json --suite policy/suite.json",
  ],
};

/** Compares two bundles or drafts. */
export const runDiff = defineCommand(DIFF_SPEC, async (session) => {
  const out = session.out;
  const [oldArgument, newArgument] = session.positionals;
  if (newArgument === undefined) {
    throw usageError(
      "'policy diff' needs two files: <old> <new>",
      "policy diff old.json new.json",
    );
  }
  if (session.has("requests") && session.has("suite")) {
    throw usageError("--requests cannot be combined with --suite");
  }
  const before = await readComparable(session, oldArgument!);
  const after = await readComparable(session, newArgument);
  const replay = await readReplay(session);
  const plan = planDiff(before, after, replay, session.has("fail-on-change"));
  out.result({ ...plan.document }, () => printDiff(out, before, after, plan.document));
  return plan.exitCode;
});

/** One side of the comparison: a valid bundle, or a valid draft read as the bundle it builds. */
export interface Side {
  file: string;
  /** The path as given, for text output. */
  argument: string;
  type: DocumentType;
  bundle: RuntimeBundleV1;
}

/** The recorded requests (`--requests`) or the suite's scenarios (`--suite`) to replay. */
export type ReplayInput =
  | { kind: "requests"; path: string; requests: readonly RecordedRequest[] }
  | { kind: "suite"; path: string; scenarios: readonly Scenario[] };

/** The JSON document of `diff`. */
export type DiffDocument =
  & { old: { path: string; type: DocumentType }; new: { path: string; type: DocumentType } }
  & BundleDiff
  & { decisions: Replay | null };

/** What `diff` reports, and its exit code. */
export interface DiffPlan {
  document: DiffDocument;
  exitCode: number;
}

/**
 * What changes from `before` to `after` (docs/change-safety.md): their
 * difference by meaning (scope compared only between two bundles), the
 * decisions of `replay` that change, and whether `--fail-on-change` fails:
 * on a changed decision when requests were replayed, on any change otherwise.
 */
export function planDiff(
  before: Side,
  after: Side,
  replay: ReplayInput | null,
  failOnChange: boolean,
): DiffPlan {
  const diff = diffBundles(before.bundle, after.bundle, {
    compareScope: before.type === "bundle" && after.type === "bundle",
  });
  const decisions = replay === null ? null : replayDecisions(before.bundle, after.bundle, replay);
  const failed = failOnChange && (decisions === null ? diff.changed : decisions.changed > 0);
  return {
    document: {
      old: { path: before.file, type: before.type },
      new: { path: after.file, type: after.type },
      ...diff,
      decisions,
    },
    exitCode: failed ? exitCodeFor("CHANGE_DETECTED") : 0,
  };
}

/**
 * Reads a bundle or a draft (its type told as `validate` tells it,
 * `src/cli/kit/documents.ts`): a draft is checked like `validate` does; a bundle goes
 * through the library's load pipeline, which must accept it but for its
 * signature (not this command's concern).
 *
 * @throws {PolicyError|CliError} the read errors, `BUNDLE_INVALID`,
 * `CHECKSUM_MISMATCH`, `DRAFT_INVALID`.
 */
async function readComparable(session: Session, argument: string): Promise<Side> {
  const file = await session.fromWorkingFolder(argument);
  let document: unknown = parseDocumentText(
    await session.readText(file, "document"),
    "document",
    file,
  ).value;
  const { type } = detectDocumentType(document);
  if (type === "bundle") {
    // The load pipeline parses the bundle again: this tree is let go first, so that an 8 MiB
    // bundle is never held twice (docs/security.md, "Memory").
    document = null;
    const seen = await readBundleFileUnverified(session, file);
    return { file, argument, type, bundle: seen.document };
  }
  return comparableDraft(document, file, argument);
}

/**
 * A draft as a side of the comparison: the bundle it builds, once it
 * validates as `validate` checks it. Its env is not the draft's: scope is
 * not compared when a side is a draft.
 *
 * @throws {CliError} `DRAFT_INVALID`, naming its first error and how many more there are.
 */
export function comparableDraft(document: unknown, file: string, argument: string): Side {
  const result = validateDraft(document);
  if (!result.valid) {
    const first = result.errors[0]!;
    throw new CliError(
      "DRAFT_INVALID",
      `${file} is not a valid draft: ${first.message} (${first.code} at ${first.path || "/"})${
        result.errors.length > 1 ? ` and ${result.errors.length - 1} more error(s)` : ""
      }`,
      { hint: `run 'policy validate ${argument}' for the list` },
    );
  }
  const bundle = draftToBundle(document as DraftDocument, { env: "prod" });
  return { file, argument, type: "draft", bundle };
}

/** The requests of `--requests` or the scenarios of `--suite`, or null without them. */
async function readReplay(session: Session): Promise<ReplayInput | null> {
  const requestsFlag = session.string("requests");
  const suiteFlag = session.string("suite");
  if (requestsFlag === undefined && suiteFlag === undefined) return null;
  if (requestsFlag !== undefined) {
    const file = await session.fromWorkingFolder(requestsFlag);
    const requests = parseRequests(await session.readText(file, "requests"), file);
    return { kind: "requests", path: file, requests };
  }
  const file = await session.fromWorkingFolder(suiteFlag!);
  const suite = parseSuite(await session.readJson(file, "suite"), file, {
    strict: session.global.strict,
  });
  for (const w of suite.warnings) session.out.warn(w.code, `${file}: ${w.message} (at ${w.path})`);
  return { kind: "suite", path: file, scenarios: suite.scenarios };
}

/** The decisions of `replay` under both bundles, each change named by its line or scenario. */
function replayDecisions(
  before: RuntimeBundleV1,
  after: RuntimeBundleV1,
  replay: ReplayInput,
): Replay {
  const requests = replay.kind === "requests" ? replay.requests : replay.scenarios;
  const result = compareDecisions(before, after, requests);
  return {
    source: { kind: replay.kind, path: replay.path },
    ...result,
    changes: result.changes.map(({ index, ...change }) => ({
      line: replay.kind === "requests" ? replay.requests[index]!.line : null,
      scenario: replay.kind === "suite" ? replay.scenarios[index]!.name : null,
      ...change,
    })),
  };
}

function printDiff(out: Output, before: Side, after: Side, diff: DiffDocument): void {
  const decisions = diff.decisions;
  out.info(`old: ${before.argument} (${before.type})`);
  out.info(`new: ${after.argument} (${after.type})`);
  if (!diff.changed) out.line("no change in meaning");
  for (const c of diff.scope) out.line(`scope ${describeFieldChange(c)}`);
  const { added, removed, changed } = diff.policies;
  for (const p of added) out.line(`+ policy ${p.policyKey}`);
  for (const p of removed) out.line(`- policy ${p.policyKey}`);
  for (const p of changed) {
    out.line(`~ policy ${p.policyKey}`);
    for (const c of p.fields) out.line(`    ${describeFieldChange(c)}`);
    for (const r of p.rules.added) out.line(`    + rule ${r.ruleId}`);
    for (const r of p.rules.removed) out.line(`    - rule ${r.ruleId}`);
    for (const r of p.rules.changed) {
      out.line(`    ~ rule ${r.ruleId}`);
      for (const c of r.fields) out.line(`        ${describeFieldChange(c)}`);
    }
  }
  for (const t of diff.targets) {
    out.line(`ranking of ${describeTarget(t.target)}:`);
    out.line(`    old: ${describeRanking(t.old)}`);
    out.line(`    new: ${describeRanking(t.new)}`);
  }
  if (decisions === null) return;
  out.line(
    `decisions: ${
      plural(decisions.requests, "request")
    }, ${decisions.changed} changed, ${decisions.reattributed} decided by another rule`,
  );
  for (const t of decisions.byTarget) {
    if (t.changed === 0 && t.reattributed === 0) continue;
    const transitions = t.transitions.map((x) => `${x.from} -> ${x.to}: ${x.count}`).join(", ");
    out.line(
      `  ${describeTarget(t.target)}: ${t.changed} of ${t.requests} changed${
        transitions === "" ? "" : ` (${transitions})`
      }${t.reattributed === 0 ? "" : `, ${t.reattributed} decided by another rule`}`,
    );
  }
  for (const change of decisions.changes) {
    if (!change.effectChanged) continue;
    const where = change.line === null ? `scenario "${change.scenario}"` : `line ${change.line}`;
    out.line(
      `  ${where} ${describeTarget(change.target)} ${shortJson(change.context)}: ${
        decisionLine(change.old)
      } -> ${decisionLine(change.new)}`,
    );
  }
}

/** A changed decision as the JSON document lists it. */
export interface ChangeLine extends Omit<DecisionChange, "index"> {
  /** The line of the requests file (from 1), or null for a suite. */
  line: number | null;
  /** The scenario's name, or null for a requests file. */
  scenario: string | null;
}

/** What `--requests` or `--suite` found. */
export interface Replay extends Omit<DecisionComparison, "changes"> {
  source: { kind: "requests" | "suite"; path: string };
  changes: ChangeLine[];
}

function decisionLine(d: Decision): string {
  const by = d.ruleId !== undefined
    ? `${d.policyKey}/${d.ruleId}`
    : d.policyKey !== undefined
    ? `defaults of ${d.policyKey}`
    : "no policy: deny by default";
  return `${describeEffect(d.decision, d)} (${by})`;
}
