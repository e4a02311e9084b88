import ts from "typescript";
import { discoverEvaluationPoints } from "../../src/analyze/discover_evaluation_points.ts";
import type { Discovery } from "../../src/analyze/types.ts";

/** Discovers the points of `source` as file `fileName` (default `src/app.ts`). */
export function discover(source: string, fileName = "src/app.ts"): Discovery {
  return discoverEvaluationPoints(fileName, source, ts);
}

/** The targets found in `source`, as `service.resource.action` strings, in order. */
export function targetsIn(source: string, fileName?: string): string[] {
  return discover(source, fileName).points.map(({ target }) =>
    `${target.service}/${target.resource}/${target.action}`
  );
}

/** The warnings of `source` as `code@line:column`, in order. */
export function warningsIn(source: string, fileName?: string): string[] {
  return discover(source, fileName).warnings.map(({ code, line, column }) =>
    `${code}@${line}:${column}`
  );
}
