/**
 * Finds the evaluation points of one source file with the TypeScript parser.
 *
 * @module
 */
import type * as TS from "typescript";
import type { Target } from "../engine/types.ts";
import type {
  Discovery,
  DiscoveryWarning,
  DiscoveryWarningCode,
  EvaluationPoint,
  TypeScriptApi,
} from "./types.ts";
import { scriptKindFor } from "./_source_files.ts";
import { propertyOf, StaticResolver } from "./_static_resolver.ts";
import { compareLocations } from "./_compare_locations.ts";
import { walkNodes } from "./_walk_nodes.ts";

const TARGET_FIELDS = ["service", "resource", "action"] as const;

const HOW_TO_FIX =
  "use an object literal, or a const holding one, with string-literal service, resource and action";

/**
 * Finds every `x.evaluate(request)` call of one file whose request carries a
 * statically known `target`.
 *
 * The file is parsed with the TypeScript compiler API, with the grammar of
 * its ending (type syntax in TypeScript files; JSX in `.tsx` and JavaScript
 * files), so comments, strings and template text never count. A call
 * counts when its callee is a property named `evaluate` on any expression
 * (`client.evaluate`, `this.#client.evaluate`, `getClient().evaluate`,
 * `a?.evaluate`, `a["evaluate"]`) and its first argument is, or is a `const`
 * bound to, an object literal with a `target` property. The target must be an
 * object literal, or a `const` bound to one, whose `service`, `resource` and
 * `action` are string literals (or consts holding them). Parentheses, `as`,
 * `satisfies`, `!` and `Object.freeze()` are looked through; spreads of
 * resolvable objects are merged.
 *
 * Calls whose request or target cannot be resolved from the file alone (a
 * parameter, a `let`, an import, a function call, an unresolvable spread)
 * give an `ANALYZE_TARGET_UNRESOLVED` warning; a target with a missing or
 * empty field gives `ANALYZE_TARGET_INVALID`. A call with no argument, or
 * whose first argument is a function, string, number or an object without
 * `target` (Playwright's `page.evaluate(() => ...)`), is silently ignored.
 *
 * `fileName` is used as given in the results and to pick the script kind.
 * Points and warnings are sorted by line, then column.
 *
 * @param fileName Path of the file, as it should appear in results.
 * @param sourceText The file's contents.
 * @param ts The TypeScript compiler API module (`npm:typescript`, 5.x).
 *
 * @example Finding the target of a call
 * ```ts
 * import ts from "typescript";
 * import { discoverEvaluationPoints } from "./discover_evaluation_points.ts";
 * import assert from "node:assert/strict";
 *
 * const source = `
 *   const target = { service: "billing", resource: "invoice", action: "create" } as const;
 *   // client.evaluate({ target: { service: "x", resource: "y", action: "z" } })
 *   await client.evaluate({ target, context: { plan } });
 *   await page.evaluate(() => document.title);
 * `;
 * const { points, warnings } = discoverEvaluationPoints("src/app.ts", source, ts);
 * assert.deepEqual(points, [{
 *   target: { service: "billing", resource: "invoice", action: "create" },
 *   file: "src/app.ts",
 *   line: 4,
 *   column: 9,
 * }]);
 * assert.deepEqual(warnings, []);
 * ```
 */
export function discoverEvaluationPoints(
  fileName: string,
  sourceText: string,
  ts: TypeScriptApi,
): Discovery {
  try {
    return _discover(fileName, sourceText, ts);
  } catch (error) {
    // The parser recurses; absurdly deep nesting (generated code) overflows the stack.
    if (!(error instanceof RangeError)) throw error;
    return {
      points: [],
      warnings: [{
        code: "ANALYZE_FILE_UNPARSABLE",
        message: `skipped: the file nests too deeply to parse (${error.message})`,
        file: fileName,
        line: 1,
        column: 1,
      }],
    };
  }
}

function _discover(fileName: string, sourceText: string, ts: TypeScriptApi): Discovery {
  // A byte order mark is not a column: editors do not show it.
  const text = sourceText.charCodeAt(0) === 0xfeff ? sourceText.slice(1) : sourceText;
  const sourceFile = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    /* setParentNodes */ true,
    scriptKindFor(ts, fileName),
  );
  const resolver = new StaticResolver(ts, sourceFile);
  const points: EvaluationPoint[] = [];
  const warnings: DiscoveryWarning[] = [];

  walkNodes(ts, sourceFile, (node) => {
    if (ts.isCallExpression(node) && _isEvaluateCallee(ts, node.expression)) {
      const start = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
      const location = { file: fileName, line: start.line + 1, column: start.character + 1 };
      const result = _targetOfCall(ts, resolver, node);
      if (result !== undefined && "target" in result) {
        points.push({ target: result.target, ...location });
      } else if (result !== undefined) {
        warnings.push({ code: result.code, message: result.message, ...location });
      }
    }
    return true;
  });

  points.sort(compareLocations);
  warnings.sort(compareLocations);
  return { points, warnings };
}

type CallResult =
  | { target: Target }
  | { code: DiscoveryWarningCode; message: string }
  | undefined;

/** True for `x.evaluate`, `x?.evaluate`, `x["evaluate"]` (parentheses and `!` looked through). */
function _isEvaluateCallee(ts: TypeScriptApi, callee: TS.Expression): boolean {
  let node = callee;
  while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) {
    node = node.expression;
  }
  if (ts.isPropertyAccessExpression(node)) {
    return ts.isIdentifier(node.name) && node.name.text === "evaluate";
  }
  if (ts.isElementAccessExpression(node)) {
    const key = node.argumentExpression;
    return (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key)) &&
      key.text === "evaluate";
  }
  return false;
}

/** The target of an `evaluate` call, a warning, or undefined when the call is not an evaluation point. */
function _targetOfCall(
  ts: TypeScriptApi,
  resolver: StaticResolver,
  call: TS.CallExpression,
): CallResult {
  const argument = call.arguments[0];
  if (argument === undefined) return undefined;
  if (ts.isSpreadElement(argument)) {
    return unresolved(
      `the request of this evaluate call is spread from ${resolver.excerpt(argument.expression)}`,
    );
  }
  const request = resolver.resolve(argument);
  if (request.kind === "string" || request.kind === "other") return undefined;
  if (request.kind === "unknown") {
    return unresolved(`the request of this evaluate call is ${request.reason}`);
  }
  const property = propertyOf(resolver.shapeOf(request.node), "target");
  if (property === undefined) return undefined;
  if (property.kind === "unknown") {
    return unresolved(`the target of this evaluate call may come from ${property.reason}`);
  }
  const targetValue = resolver.resolve(property.node);
  if (targetValue.kind === "unknown") {
    return unresolved(`the target of this evaluate call is ${targetValue.reason}`);
  }
  if (targetValue.kind !== "object") {
    const what = targetValue.kind === "string" ? "a string" : targetValue.description;
    return invalid(`the target of this evaluate call is ${what}, not an object`);
  }
  const shape = resolver.shapeOf(targetValue.node);
  const target: Partial<Target> = {};
  for (const field of TARGET_FIELDS) {
    const fieldProperty = propertyOf(shape, field);
    if (fieldProperty === undefined) {
      return invalid(
        `the target of this evaluate call has no "${field}"; a target needs service, resource and action`,
      );
    }
    if (fieldProperty.kind === "unknown") {
      return unresolved(`the target's "${field}" may come from ${fieldProperty.reason}`);
    }
    const value = resolver.resolve(fieldProperty.node);
    if (value.kind === "unknown") {
      return unresolved(`the target's "${field}" is ${value.reason}`);
    }
    if (value.kind !== "string") {
      const what = value.kind === "object" ? "an object" : value.description;
      return invalid(`the target's "${field}" is ${what}, not a string`);
    }
    const text = value.value;
    if (text === undefined) {
      return unresolved(
        `the target's "${field}" is ${resolver.excerpt(fieldProperty.node)}, built at run time`,
      );
    }
    if (text === "") {
      return invalid(`the target's "${field}" is empty; target fields must be non-empty strings`);
    }
    target[field] = text;
  }
  return {
    target: { service: target.service!, resource: target.resource!, action: target.action! },
  };

  function unresolved(problem: string): CallResult {
    return {
      code: "ANALYZE_TARGET_UNRESOLVED",
      message: `cannot resolve the target statically: ${problem}; ${HOW_TO_FIX}`,
    };
  }
  function invalid(problem: string): CallResult {
    return { code: "ANALYZE_TARGET_INVALID", message: problem };
  }
}
