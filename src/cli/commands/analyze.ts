/**
 * `policy analyze [--source <dir>] [--check]`: finds the evaluation points of
 * a source tree, lists each target with its status against the existing
 * draft (or bundle), and writes the first draft. The discovery itself is
 * `src/analyze/` (see `docs/analyze.md`); TypeScript is loaded only when this
 * command scans.
 *
 * @module
 */
import type { FileLayer, PathRules } from "../../io/file_layer.ts";
import {
  buildDraft,
  type DiscoveredPolicy,
  type DiscoveryWarning,
  type KnownPolicy,
  listDiscoveredPolicies,
  scanSourceTree,
  type SourceLocation,
} from "../../analyze/mod.ts";
import { suggest } from "../../_internal/suggest.ts";
import { CliError, exitCodeFor, usageError } from "../kit/errors.ts";
import { defineCommand, type Session } from "../kit/session.ts";
import { exists } from "../kit/read_document.ts";
import { asEditableDraft, draftText, readDraftForEdit, saveDraft } from "../kit/draft.ts";
import { type DraftDocument, isTarget } from "../../authoring/draft.ts";
import { bundleDocument, draftDocument } from "../kit/documents.ts";
import { isRecord } from "../../_internal/guards.ts";
import { inspectBundleFile } from "../kit/bundle.ts";
import { describeTarget, plural } from "../kit/describe.ts";
import type { CommandSpec } from "../kit/command_spec.ts";
import type { Output } from "../kit/output.ts";

/** A warning of the JSON document: position fields are null when the warning is not about a place. */
export interface LocatedWarning {
  code: string;
  message: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

/** What the listing is compared with. */
export interface Comparison {
  type: "draft" | "bundle";
  path: string;
  policies: KnownPolicy[];
}

/** The declaration of `analyze`. */
export const ANALYZE_SPEC: CommandSpec = {
  name: "analyze",
  usage: "analyze [--source <dir>] [--check]",
  summary: [
    "Scans source code (.ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs) for evaluation points,",
    "x.evaluate({ target: { service, resource, action }, ... }) calls with literal targets,",
    "and lists each target with its status: present when the existing draft (else the",
    "bundle) has a policy naming it, missing otherwise, with every file:line:column.",
    "Without --check, writes the first draft (one policy per target, no rules) to",
    "draft.path; an existing draft is never overwritten (DRAFT_EXISTS, exit 2): --merge adds",
    "a policy for each target it lacks and changes nothing else. With --check, writes",
    "nothing and exits 1 when a target has no policy. Targets that cannot be resolved from",
    "the file alone, and rules whose target is close to but not one the code evaluates, are",
    "warnings; --strict makes them failures.",
  ].join("\n"),
  flags: {
    source: {
      type: "string",
      value: "<dir>",
      description:
        "folder (or file) to scan, relative to the working folder (else analyze.source, else the working folder)",
    },
    check: {
      type: "boolean",
      description: "write nothing; exit 1 when an evaluation point has no policy",
    },
    merge: {
      type: "boolean",
      description: "add to the existing draft a policy for each target it lacks",
    },
  },
  examples: [
    "policy analyze --source src",
    "policy analyze --check --strict",
    "policy analyze --merge",
  ],
};

/** What the command line asks of `analyze`. */
interface AnalyzeOptions {
  check: boolean;
  merge: boolean;
  strict: boolean;
  /** The source folder (or file), absolute. */
  source: string;
  sourceIsFile: boolean;
  skipDirectories: string[];
}

/**
 * The options from the flags, then the `analyze` block of the config.
 *
 * @throws {CliError} `USAGE_ERROR`, `CONFIG_INVALID`.
 */
async function analyzeOptions(session: Session): Promise<AnalyzeOptions> {
  const config = await session.config();
  const workingFolder = (await session.workingFolder()).path;
  const settings = analyzeSettings(config.analyze, config.file);
  const check = session.has("check");
  const merge = session.has("merge");
  if (check && merge) {
    throw usageError("--check writes nothing; it cannot be combined with --merge");
  }
  const sourceFlag = session.string("source");
  if (sourceFlag === "") throw usageError("--source needs a folder");
  const source = session.files.path.resolve(workingFolder, sourceFlag ?? settings.source ?? ".");
  const sourceIsFile = await sourceKind(session.files, source);
  session.out.note(`source: ${source}`);
  const { skipDirectories } = settings;
  return { check, merge, strict: session.global.strict, source, sourceIsFile, skipDirectories };
}

/** A warning about a place of the source, or about none. */
function located(code: string, message: string, at: SourceLocation | null): LocatedWarning {
  return {
    code,
    message,
    file: at?.file ?? null,
    line: at?.line ?? null,
    column: at?.column ?? null,
  };
}

/**
 * What the scan itself found wrong: its warnings (their files as shown)
 * and, when it found no evaluation point, that.
 */
export function scanFindings(
  scan: { filesScanned: number; warnings: readonly DiscoveryWarning[] },
  points: readonly unknown[],
  display: (file: string) => string,
  options: Pick<AnalyzeOptions, "source" | "check">,
): LocatedWarning[] {
  const found = scan.warnings.map((w) =>
    located(w.code, w.message, { ...locationOf(w), file: display(w.file) })
  );
  if (points.length === 0) {
    found.push(located(
      "ANALYZE_NO_EVALUATION_POINTS",
      `no evaluation points found in ${
        plural(scan.filesScanned, "source file")
      } under ${options.source}${
        options.check ? "" : "; no draft was written"
      } (check --source, or start an empty draft with 'policy working-folder init')`,
      null,
    ));
  }
  return found;
}

/**
 * What comparing the discovered targets with the draft or bundle found:
 * rules whose target is close to a discovered one (a typo), and targets
 * with a policy but no rule yet.
 */
export function comparisonFindings(
  comparison: Comparison,
  discovered: readonly DiscoveredPolicy[],
): LocatedWarning[] {
  const found: LocatedWarning[] = [];
  for (const near of nearMisses(comparison.policies, discovered)) {
    found.push(located(
      "ANALYZE_RULE_TARGET_UNUSED",
      `rule ${
        JSON.stringify(near.ruleId)
      } of policy ${near.policyKey} in the ${comparison.type} targets ${near.target}, which no evaluation point uses; did you mean ${near.closest}?`,
      null,
    ));
  }
  for (const entry of discovered) {
    if (entry.status !== "present" || hasRuleFor(comparison.policies, entry)) continue;
    const t = entry.target;
    found.push(located(
      "ANALYZE_TARGET_WITHOUT_RULES",
      `${t.service}/${t.resource}/${t.action} has policy ${
        entry.matchedPolicyKeys.join(", ")
      } in the ${comparison.type}, but no rule targets it yet: until one does, its evaluations end in deny by default`,
      entry.evaluationPoints[0] ?? null,
    ));
  }
  return found;
}

/**
 * The policies of `fresh` (the draft the scan builds) that `draft` lacks:
 * what `--merge` adds.
 *
 * @throws {CliError} `DRAFT_INVALID` when the draft has a policy of the
 * same key for another target.
 */
export function planMerge(
  draft: DraftDocument,
  points: Parameters<typeof listDiscoveredPolicies>[0],
  fresh: ReturnType<typeof buildDraft>,
): ReturnType<typeof buildDraft>["policies"] {
  const known = listDiscoveredPolicies(points, draft.policies as KnownPolicy[]);
  const lacking = new Set(
    known.policies.filter((p) => p.status === "missing").map((p) => p.policyKey),
  );
  const taken = new Set(draft.policies.map((p) => p?.policyKey));
  const extra = fresh.policies.filter((p) => lacking.has(p.policyKey));
  const clash = extra.find((p) => taken.has(p.policyKey));
  if (clash !== undefined) {
    throw new CliError(
      "DRAFT_INVALID",
      `the draft already has a policy ${clash.policyKey} that does not name the target ${
        describeTarget(clash.discoveredTarget)
      }; nothing was merged`,
      {
        hint: `give that policy a discoveredTarget or a rule for ${
          describeTarget(clash.discoveredTarget)
        }, or rename it`,
      },
    );
  }
  return extra;
}

/**
 * Writes the first draft (never over one), or with `--merge` adds the
 * policies the draft lacks, under the lock; returns the keys written.
 */
async function writeDraft(
  session: Session,
  points: Parameters<typeof listDiscoveredPolicies>[0],
  draftFile: string,
  replaceNone: boolean,
): Promise<string[]> {
  const fresh = buildDraft(points, new Date(session.io.clock.wallNow()));
  return await session.exclusive(async () => {
    if (replaceNone) {
      await session.writeDocument(draftFile, "draft", draftText(fresh as DraftDocument), {
        overwrite: false,
        createParents: true,
        onExists: draftExists,
      });
      return fresh.policies.map((p) => p.policyKey);
    }
    // Merge: the draft as it is now (under the lock), plus the policies it lacks.
    const edit = await readDraftForEdit(session);
    const extra = planMerge(edit.draft, points, fresh);
    if (extra.length > 0) {
      edit.draft.policies.push(...extra as unknown as typeof edit.draft.policies);
      await saveDraft(session, edit);
    }
    return extra.map((p) => p.policyKey);
  });
}

/** What one analysis found and did, for its output. */
interface Analysis {
  options: AnalyzeOptions;
  filesScanned: number;
  comparison: Comparison | null;
  listing: ReturnType<typeof listDiscoveredPolicies>;
  warningCount: number;
  passed: boolean;
  hasDraft: boolean;
  draftFile: string;
  draftPath: string | null;
  added: string[];
}

/** Scans source code for evaluation points, lists them, writes the first draft. */
export const runAnalyze = defineCommand(ANALYZE_SPEC, async (session) => {
  const out = session.out;
  const options = await analyzeOptions(session);
  // The config's warnings, printed when it was read, are in the document's list too.
  const early = out.warnings.length;
  const { check, merge, strict, source } = options;
  const { file: draftFile } = await draftDocument(session);
  const hasDraft = await exists(session.files, draftFile);
  if (!check && !merge && hasDraft) throw draftExists(draftFile);
  const scan = await scanSourceTree(source, {
    maxFileBytes: (await session.config()).maxFileBytes,
    skipDirectories: options.skipDirectories,
  });
  out.note(`scanned ${plural(scan.filesScanned, "file")} under ${source}`);
  // Paths are printed relative to the working folder, so they can be opened from there.
  const { path } = session.files;
  const workingFolder = (await session.workingFolder()).path;
  const base = options.sourceIsFile ? path.dirname(source) : source;
  const display = (file: string) =>
    toPosix(path, path.relative(workingFolder, path.join(base, file)));
  const points = scan.points.map((p) => ({ ...p, file: display(p.file) }));
  const warnings = scanFindings(scan, points, display, options);
  for (const w of warnings) warn(out, w);
  const comparison = await compareWith(session, check || merge ? draftFile : null);
  if (comparison !== null) out.note(`compared with the ${comparison.type} ${comparison.path}`);
  const listing = listDiscoveredPolicies(points, comparison?.policies ?? []);
  const compared = comparison === null ? [] : comparisonFindings(comparison, listing.policies);
  for (const w of compared) warn(out, w);
  warnings.push(...compared);
  const missing = listing.policies.filter((p) => p.status === "missing");
  const passed = (!check || missing.length === 0) && !(strict && warnings.length > 0);
  let draftPath: string | null = null;
  let added: string[] = [];
  if (!check && passed && points.length > 0) {
    added = await writeDraft(session, points, draftFile, !hasDraft || !merge);
    draftPath = added.length > 0 || !hasDraft || !merge ? draftFile : null;
  }
  const analysis: Analysis = {
    options,
    filesScanned: scan.filesScanned,
    comparison,
    listing,
    warningCount: warnings.length,
    passed,
    hasDraft,
    draftFile,
    draftPath,
    added,
  };
  out.result(
    {
      ...analysisDocument(analysis),
      warnings: [
        ...out.warnings.slice(0, early).map((w) => ({
          ...w,
          file: null,
          line: null,
          column: null,
        })),
        ...warnings,
      ],
    },
    () => render(out, analysis),
  );
  return passed ? 0 : exitCodeFor("ANALYZE_FAILED");
});

/** Prints a warning, at its place when it has one. */
function warn(out: Output, w: LocatedWarning): void {
  out.warn(w.code, w.file === null ? w.message : `${w.file}:${w.line}:${w.column}: ${w.message}`);
}

/** The JSON document of an analysis but its warnings (docs/cli.md, "analyze"). */
function analysisDocument(a: Analysis): Record<string, unknown> {
  return {
    source: a.options.source,
    check: a.options.check,
    passed: a.passed,
    filesScanned: a.filesScanned,
    comparedWith: a.comparison === null
      ? null
      : { type: a.comparison.type, path: a.comparison.path },
    draftPath: a.draftPath,
    added: a.added,
    policies: a.listing.policies,
    summary: a.listing.summary,
  };
}

function render(out: Output, a: Analysis): void {
  const { check } = a.options;
  out.info(`scanned ${plural(a.filesScanned, "file")} under ${a.options.source}`);
  out.info(
    a.comparison === null
      ? `no ${check ? "draft or bundle" : "bundle"} to compare with: every target is missing`
      : `compared with the ${a.comparison.type} ${a.comparison.path}`,
  );
  const { policies, summary } = a.listing;
  if (policies.length > 0) out.info();
  const width = Math.max(0, ...policies.map((p) => p.policyKey.length));
  for (const entry of policies) printEntry(out, entry, width);
  if (policies.length > 0) out.info();
  out.info(
    `${plural(summary.targets, "target")}, ${
      plural(summary.evaluationPoints, "evaluation point")
    }: ${summary.present} present, ${summary.missing} missing; ${
      plural(a.warningCount, "warning")
    }`,
  );
  renderOutcome(out, a);
}

/** The last lines: the check's verdict, or what was written. */
function renderOutcome(out: Output, a: Analysis): void {
  const { check, merge } = a.options;
  const missing = a.listing.policies.filter((p) => p.status === "missing");
  if (check) {
    if (a.passed) {
      out.info("check passed: every evaluation point has a policy");
    } else if (missing.length > 0) {
      out.line(
        `check failed: ${plural(missing.length, "target")} without a policy: ${
          missing.map(describeMissing).join(", ")
        }`,
      );
    } else {
      out.line(`check failed: ${plural(a.warningCount, "warning")} with --strict`);
    }
  } else if (!a.passed) {
    out.line(`no draft written: ${plural(a.warningCount, "warning")} with --strict`);
  } else if (merge && a.hasDraft) {
    out.info(
      a.added.length === 0
        ? `the draft ${a.draftFile} already has a policy for every target; nothing was added`
        : `added ${plural(a.added.length, "policy", "policies")} to the draft ${a.draftFile}: ${
          a.added.join(", ")
        } (no rules yet)`,
    );
  } else if (a.draftPath !== null) {
    out.info(
      `wrote the draft ${a.draftPath} (${
        plural(a.listing.policies.length, "policy", "policies")
      }, no rules yet)`,
    );
    out.info(
      "next: add rules with 'policy policies add-rule' (and defaults with 'policy policies update-policy'), then 'policy build'",
    );
  }
}

function printEntry(out: Output, entry: DiscoveredPolicy, width: number): void {
  const { target } = entry;
  const matched = entry.status === "present" &&
      !(entry.matchedPolicyKeys.length === 1 && entry.matchedPolicyKeys[0] === entry.policyKey)
    ? `  (policy ${entry.matchedPolicyKeys.join(", ")})`
    : "";
  out.line(
    `${entry.status.padEnd(8)} ${
      entry.policyKey.padEnd(width)
    }  ${target.service} / ${target.resource} / ${target.action}${matched}`,
  );
  for (const p of entry.evaluationPoints) {
    out.line(`         ${p.file}:${p.line}:${p.column}`);
  }
}

/** True when a rule (active or disabled) of a policy naming the entry's target targets it. */
function hasRuleFor(policies: readonly KnownPolicy[], entry: DiscoveredPolicy): boolean {
  const { service, resource, action } = entry.target;
  return policies.some((policy) =>
    isRecord(policy) && entry.matchedPolicyKeys.includes(policy.policyKey) &&
    Array.isArray(policy.rules) &&
    policy.rules.some((rule) =>
      isRecord(rule) && isRecord(rule.target) && rule.target.service === service &&
      rule.target.resource === resource && rule.target.action === action
    )
  );
}

function describeMissing(entry: DiscoveredPolicy): string {
  const first = entry.evaluationPoints[0];
  return first === undefined
    ? entry.policyKey
    : `${entry.policyKey} (${first.file}:${first.line}:${first.column})`;
}

function locationOf(w: DiscoveryWarning): SourceLocation {
  return { file: w.file, line: w.line, column: w.column };
}

function draftExists(target: string): CliError {
  return new CliError(
    "DRAFT_EXISTS",
    `a draft already exists at ${target}; analyze never overwrites it, and it was not changed`,
    {
      hint:
        "compare the code with it using 'policy analyze --check', and add a policy for each target it lacks with 'policy analyze --merge'",
    },
  );
}

/** True when `source` is a file, false for a folder; a usage error when it is neither. */
async function sourceKind(files: FileLayer, source: string): Promise<boolean> {
  const kind = await files.kind(source);
  if (kind === "file") return true;
  if (kind === "folder") return false;
  throw usageError(
    `the source folder ${source} does not exist`,
    "--source (and analyze.source) resolve from the working folder",
  );
}

/**
 * What the listing is compared with: with `--check` or `--merge` the draft
 * when it exists; otherwise (and when there is no draft) the bundle when it
 * exists, loaded through the library's pipeline (its integrity is not this
 * command's concern); else nothing.
 */
async function compareWith(session: Session, draftPath: string | null): Promise<Comparison | null> {
  if (draftPath !== null && await exists(session.files, draftPath)) {
    const draft = asEditableDraft(await session.readJson(draftPath, "draft"), draftPath);
    return { type: "draft", path: draftPath, policies: draft.policies as KnownPolicy[] };
  }
  const { file } = await bundleDocument(session);
  if (!(await exists(session.files, file))) return null;
  const loaded = await inspectBundleFile(session, file, null);
  return { type: "bundle", path: file, policies: loaded.document.policies as KnownPolicy[] };
}

/** A rule whose target no evaluation point uses, but one close to it does. */
interface NearMiss {
  policyKey: string;
  ruleId: unknown;
  target: string;
  closest: string;
}

/**
 * The rules of `policies` whose target is not a discovered one but is close
 * to one (`billing/invoices/create` for `billing/invoice/create`): a typo
 * that makes the rule apply where no code evaluates. Rules for targets far
 * from every discovered one are left alone (code outside the scan may use them).
 */
function nearMisses(
  policies: readonly KnownPolicy[],
  discovered: readonly DiscoveredPolicy[],
): NearMiss[] {
  const targets = discovered.map((d) => describeTarget(d.target));
  const known = new Set(targets);
  const found: NearMiss[] = [];
  for (const policy of policies) {
    if (!isRecord(policy) || !Array.isArray(policy.rules)) continue;
    for (const rule of policy.rules as unknown[]) {
      if (!isRecord(rule) || !isTarget(rule.target)) continue;
      const target = describeTarget(rule.target);
      if (known.has(target)) continue;
      const closest = suggest(target, targets);
      if (closest !== undefined) {
        found.push({ policyKey: String(policy.policyKey), ruleId: rule.id, target, closest });
      }
    }
  }
  return found;
}

/** The fields of the `analyze` config block the CLI uses. */
interface AnalyzeSettings {
  source: string | undefined;
  skipDirectories: string[];
}

/** The `analyze` block of the project config, checked (`CONFIG_INVALID`). */
export function analyzeSettings(
  block: Record<string, unknown> | null,
  file: string | null,
): AnalyzeSettings {
  const invalid = (field: string, expected: string) =>
    new CliError(
      "CONFIG_INVALID",
      `${file ?? "policy.config.json"}: analyze.${field} must be ${expected}`,
    );
  const source = block?.source;
  if (source !== undefined && source !== null && (typeof source !== "string" || source === "")) {
    throw invalid("source", "a non-empty string");
  }
  const skip = block?.skipDirectories;
  if (
    skip !== undefined && skip !== null &&
    (!Array.isArray(skip) || !skip.every((s) => typeof s === "string" && s !== ""))
  ) {
    throw invalid("skipDirectories", "an array of folder names");
  }
  return {
    source: typeof source === "string" ? source : undefined,
    skipDirectories: Array.isArray(skip) ? skip as string[] : [],
  };
}

function toPosix(path: PathRules, p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}
