// This module is browser compatible.
/**
 * A condition written one way per meaning, for comparing two conditions by
 * what they decide (docs/change-safety.md "What `diff` compares"): the
 * operators added after the specification's have spellings that mean the
 * same, which a change between them is not. A `rollout` without `from` or
 * `bucketing` is one with `0` and `"fraction"`; a `semver` value is read
 * without its leading `v` and build metadata (`v1.2.0+b.7` is `1.2.0`); a
 * `like` pattern in its canonical form (`**a` is `*a`, `\a` is `a`); the
 * values of `containsAny` and `containsAll` as a set (order and repeats do
 * not matter). Everything else is kept as written, so every other
 * difference still shows. Depth is bounded by validation.
 *
 * @module
 */
import { isRecord } from "../_internal/guards.ts";
import { canonicalLikePattern, compileLikePattern } from "../engine/operators/like_pattern.ts";
import { parseSemver } from "../engine/operators/semver.ts";

/** `condition` with the added operators' equivalent spellings made one. */
export function conditionMeaning(condition: unknown): unknown {
  if (Array.isArray(condition)) return condition.map(conditionMeaning);
  if (!isRecord(condition)) return condition;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(condition)) out[key] = conditionMeaning(value);
  switch (condition.op) {
    case "rollout":
      if (out.from === undefined) out.from = 0;
      if (out.bucketing === undefined) out.bucketing = "fraction";
      break;
    case "semver": {
      const version = typeof out.value === "string" ? parseSemver(out.value) : null;
      if (version !== null) {
        const pre = version.pre.length > 0 ? `-${version.pre.join(".")}` : "";
        out.value = `${version.major}.${version.minor}.${version.patch}${pre}`;
      }
      break;
    }
    case "like": {
      const pattern = compileLikePattern(out.pattern);
      if (pattern !== null) out.pattern = canonicalLikePattern(pattern);
      break;
    }
    case "containsAny":
    case "containsAll":
      if (Array.isArray(out.values)) {
        const distinct = new Map(out.values.map((v) => [JSON.stringify(v), v]));
        out.values = [...distinct].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) =>
          v
        );
      }
      break;
  }
  return out;
}
