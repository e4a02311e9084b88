// This module is browser compatible.
/**
 * What changed between two bundles, in words for people: the lines
 * `policy diff` prints and the playground's Diff view shows (a field's old
 * and new value, a target's ranking). Not a contract: the JSON of `policy
 * diff` is.
 *
 * @module
 */
import type { FieldChange, RankEntry } from "../diff/mod.ts";
import { formatCondition } from "../engine/format_condition.ts";
import { cutText } from "../_internal/cut_text.ts";

/**
 * For example `priority: 10 -> 20` (`->` by default; the page uses an
 * arrow). A rule's `when` reads as conditions do (`formatCondition`), so
 * that a changed rollout shows its new range:
 * `when: userId rollout [0, 10) salt "checkout" -> userId rollout [0, 30) salt "checkout"`.
 */
export function describeFieldChange(c: FieldChange, arrow = "->"): string {
  const text = c.field === "when" ? conditionText : shortJson;
  return `${c.field}: ${text(c.old)} ${arrow} ${text(c.new)}`;
}

/** A condition in readable form, cut to 120 characters; `(none)` for null (absent). */
function conditionText(value: unknown): string {
  if (value === null) return "(none)";
  return cutText(formatCondition(value), 120);
}

/** A ranking, strongest first: `deny (p/r), allow (defaults of p)`, or `(no rule)`. */
export function describeRanking(ranking: readonly RankEntry[]): string {
  if (ranking.length === 0) return "(no rule)";
  return ranking.map((e) =>
    e.branch === "defaults"
      ? `${e.decision} (defaults of ${e.policyKey})`
      : `${e.decision} (${e.policyKey}/${e.ruleId}${e.branch === "effect" ? "" : ` ${e.branch}`})`
  ).join(", ");
}

/** A value as compact JSON, cut to 80 characters; `(none)` for null (absent). */
export function shortJson(value: unknown): string {
  return cutText(value === null ? "(none)" : JSON.stringify(value), 80);
}
