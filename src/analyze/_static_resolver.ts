/**
 * Static resolution of values inside one parsed file: what an expression is
 * when it is a literal, or a `const` bound (in a visible scope) to one. No
 * type checker and no other files: anything that needs them is "unknown",
 * with a reason for people.
 *
 * @module
 */
import type * as TS from "typescript";
import type { TypeScriptApi } from "./types.ts";
import { walkNodes } from "./_walk_nodes.ts";

/** What an expression is, as far as the file alone tells. */
export type StaticValue =
  /** An object literal (possibly reached through consts). */
  | { kind: "object"; node: TS.ObjectLiteralExpression }
  /** A string; `value` is absent when the string is built at run time (template with substitutions, `typeof`). */
  | { kind: "string"; value?: string }
  /** A literal that is neither an object nor a string: a function, number, array, `null`... */
  | { kind: "other"; description: string }
  /** Not knowable from this file alone. */
  | { kind: "unknown"; reason: string };

/** A property of an object literal: its value expression, or why it cannot be known. */
export type StaticProperty =
  | { kind: "expression"; node: TS.Expression }
  | { kind: "unknown"; reason: string };

/** The properties of an object literal, spreads of resolvable objects merged in. */
export interface ObjectShape {
  /** Later properties win, as at run time. */
  properties: Map<string, StaticProperty>;
  /**
   * Set when the object may hold keys not listed in `properties` (an
   * unresolvable spread or computed key): why.
   */
  open: string | undefined;
}

/**
 * The property `key` of an object shape: its value, unknown when an
 * unresolvable spread or computed key may have set it, or undefined when the
 * object certainly lacks it.
 */
export function propertyOf(shape: ObjectShape, key: string): StaticProperty | undefined {
  const property = shape.properties.get(key);
  if (property !== undefined) return property;
  return shape.open === undefined ? undefined : { kind: "unknown", reason: shape.open };
}

type Binding =
  | { kind: "const"; name: string; initializer: TS.Expression }
  | { kind: "function" }
  | { kind: "class" }
  | { kind: "unknown"; reason: string };

/** Consts that refer to consts that refer to... deeper than this are given up on (and cycles end here). */
const MAX_DEPTH = 32;
/** Longest source excerpt quoted in a reason. */
const MAX_EXCERPT = 48;

/** Resolves expressions of one source file statically. */
export class StaticResolver {
  readonly #ts: TypeScriptApi;
  readonly #sourceFile: TS.SourceFile;
  /** Names declared with `var` per function-level scope, computed on first use. */
  readonly #varNames = new Map<TS.Node, Set<string>>();

  constructor(ts: TypeScriptApi, sourceFile: TS.SourceFile) {
    this.#ts = ts;
    this.#sourceFile = sourceFile;
  }

  /** What `expression` is: a literal, a const bound to one, or unknown. */
  resolve(expression: TS.Expression, depth = 0): StaticValue {
    const ts = this.#ts;
    const node = this.#unwrap(expression);
    if (depth > MAX_DEPTH) {
      return {
        kind: "unknown",
        reason: `${this.excerpt(node)}, which refers to itself or nests too deeply`,
      };
    }
    if (ts.isObjectLiteralExpression(node)) return { kind: "object", node };
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      return { kind: "string", value: node.text };
    }
    if (ts.isTemplateExpression(node) || ts.isTypeOfExpression(node)) return { kind: "string" };
    const description = this.#describeOtherLiteral(node);
    if (description !== undefined) return { kind: "other", description };
    if (ts.isIdentifier(node)) {
      if (node.text === "undefined") return { kind: "other", description: "undefined" };
      const binding = this.#lookup(node);
      switch (binding.kind) {
        case "const": {
          const value = this.resolve(binding.initializer, depth + 1);
          if (value.kind !== "unknown") return value;
          return { kind: "unknown", reason: `\`${binding.name}\`, which holds ${value.reason}` };
        }
        case "function":
          return { kind: "other", description: "a function" };
        case "class":
          return { kind: "other", description: "a class" };
        case "unknown":
          return binding;
      }
    }
    return { kind: "unknown", reason: this.#describeComputed(node) };
  }

  /** The properties of an object literal, with spreads of resolvable objects merged in. */
  shapeOf(object: TS.ObjectLiteralExpression, depth = 0): ObjectShape {
    const ts = this.#ts;
    const shape: ObjectShape = { properties: new Map(), open: undefined };
    const openWith = (reason: string) => {
      for (const key of shape.properties.keys()) {
        shape.properties.set(key, { kind: "unknown", reason });
      }
      shape.open = reason;
    };
    for (const property of object.properties) {
      if (ts.isSpreadAssignment(property)) {
        const spread = this.resolve(property.expression, depth + 1);
        if (spread.kind === "object") {
          if (depth > MAX_DEPTH) {
            openWith(`${this.excerpt(property)}, which nests too deeply`);
            continue;
          }
          const inner = this.shapeOf(spread.node, depth + 1);
          if (inner.open !== undefined) openWith(inner.open);
          for (const [key, value] of inner.properties) shape.properties.set(key, value);
        } else if (spread.kind === "unknown") {
          openWith(`a spread of ${spread.reason}`);
        }
        // Spreading a string, array, function, null or undefined adds no named keys.
        continue;
      }
      const key = this.#propertyKey(property.name);
      if (key === undefined) {
        openWith(`${this.excerpt(property.name)}, a computed property name`);
        continue;
      }
      if (ts.isPropertyAssignment(property)) {
        shape.properties.set(key, { kind: "expression", node: property.initializer });
      } else if (ts.isShorthandPropertyAssignment(property)) {
        shape.properties.set(key, { kind: "expression", node: property.name });
      } else {
        shape.properties.set(key, {
          kind: "unknown",
          reason: `\`${key}\`, a method or accessor`,
        });
      }
    }
    return shape;
  }

  /** `node`'s source text, whitespace collapsed, shortened, in backticks. */
  excerpt(node: TS.Node): string {
    const text = node.getText(this.#sourceFile).replace(/\s+/g, " ");
    const short = text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT - 1)}…` : text;
    return `\`${short}\``;
  }

  /** Strips what does not change the value: parentheses, `as`, `satisfies`, `!`, `<T>x`, `Object.freeze(x)`. */
  #unwrap(expression: TS.Expression): TS.Expression {
    const ts = this.#ts;
    let node = expression;
    for (;;) {
      if (
        ts.isParenthesizedExpression(node) || ts.isAsExpression(node) ||
        ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node) ||
        ts.isNonNullExpression(node)
      ) {
        node = node.expression;
      } else if (this.#isObjectFreeze(node)) {
        node = (node as TS.CallExpression).arguments[0]!;
      } else {
        return node;
      }
    }
  }

  #isObjectFreeze(node: TS.Expression): boolean {
    const ts = this.#ts;
    if (!ts.isCallExpression(node) || node.arguments.length !== 1) return false;
    const argument = node.arguments[0]!;
    if (ts.isSpreadElement(argument)) return false;
    const callee = node.expression;
    return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) &&
      callee.expression.text === "Object" && callee.name.text === "freeze";
  }

  /** A description for literals that are neither objects nor strings; undefined otherwise. */
  #describeOtherLiteral(node: TS.Expression): string | undefined {
    const ts = this.#ts;
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return "a function";
    if (ts.isClassExpression(node)) return "a class";
    if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) return "a number";
    if (
      ts.isPrefixUnaryExpression(node) &&
      (ts.isNumericLiteral(node.operand) || ts.isBigIntLiteral(node.operand))
    ) {
      return "a number";
    }
    if (ts.isArrayLiteralExpression(node)) return "an array";
    if (ts.isRegularExpressionLiteral(node)) return "a regular expression";
    if (ts.isVoidExpression(node)) return "undefined";
    if (
      ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node) || ts.isJsxFragment(node)
    ) {
      return "a JSX element";
    }
    switch (node.kind) {
      case ts.SyntaxKind.TrueKeyword:
      case ts.SyntaxKind.FalseKeyword:
        return "a boolean";
      case ts.SyntaxKind.NullKeyword:
        return "null";
    }
    return undefined;
  }

  #describeComputed(node: TS.Expression): string {
    const ts = this.#ts;
    const text = this.excerpt(node);
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) return `${text}, a function call`;
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      return `${text}, a property read at run time`;
    }
    if (ts.isAwaitExpression(node)) return `${text}, an awaited value`;
    if (ts.isConditionalExpression(node)) return `${text}, a conditional expression`;
    return `${text}, computed at run time`;
  }

  /** The key of a property name when it is static; undefined for a computed key that is not a known string. */
  #propertyKey(name: TS.PropertyName): string | undefined {
    const ts = this.#ts;
    if (
      ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ||
      ts.isNoSubstitutionTemplateLiteral(name) || ts.isPrivateIdentifier(name)
    ) {
      return name.text;
    }
    if (ts.isComputedPropertyName(name)) {
      const value = this.resolve(name.expression);
      if (value.kind === "string" && value.value !== undefined) return value.value;
    }
    return undefined;
  }

  /** The innermost declaration of `identifier`'s name visible from it. */
  #lookup(identifier: TS.Identifier): Binding {
    const name = identifier.text;
    let scope: TS.Node | undefined = identifier.parent;
    while (scope !== undefined) {
      const binding = this.#declaredIn(scope, name);
      if (binding !== undefined) return binding;
      scope = scope.parent;
    }
    return { kind: "unknown", reason: `\`${name}\`, which is not declared in this file` };
  }

  /** The declaration of `name` that `scope` itself introduces, if any. */
  #declaredIn(scope: TS.Node, name: string): Binding | undefined {
    const ts = this.#ts;
    if (ts.isSourceFile(scope) || ts.isBlock(scope) || ts.isModuleBlock(scope)) {
      const found = this.#declaredInStatements(scope.statements, name);
      if (found !== undefined) return found;
      if (ts.isSourceFile(scope) || this.#isFunctionBody(scope)) {
        if (this.#hasHoistedVar(scope, name)) {
          return { kind: "unknown", reason: `\`${name}\`, declared with var` };
        }
      }
      return undefined;
    }
    if (ts.isCaseBlock(scope)) {
      for (const clause of scope.clauses) {
        const found = this.#declaredInStatements(clause.statements, name);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (ts.isFunctionLike(scope)) {
      for (const parameter of scope.parameters) {
        if (this.#bindsName(parameter.name, name)) {
          return { kind: "unknown", reason: `\`${name}\`, a function parameter` };
        }
      }
      if (ts.isFunctionExpression(scope) && scope.name?.text === name) return { kind: "function" };
      return undefined;
    }
    if (ts.isClassExpression(scope) && scope.name?.text === name) return { kind: "class" };
    if (
      (ts.isForStatement(scope) || ts.isForInStatement(scope) || ts.isForOfStatement(scope)) &&
      scope.initializer !== undefined && ts.isVariableDeclarationList(scope.initializer)
    ) {
      for (const declaration of scope.initializer.declarations) {
        if (this.#bindsName(declaration.name, name)) {
          return { kind: "unknown", reason: `\`${name}\`, a loop variable` };
        }
      }
      return undefined;
    }
    if (ts.isCatchClause(scope) && scope.variableDeclaration !== undefined) {
      if (this.#bindsName(scope.variableDeclaration.name, name)) {
        return { kind: "unknown", reason: `\`${name}\`, a catch binding` };
      }
    }
    return undefined;
  }

  #isFunctionBody(block: TS.Node): boolean {
    const parent = block.parent;
    return parent !== undefined &&
      (this.#ts.isFunctionLike(parent) || this.#ts.isClassStaticBlockDeclaration(parent));
  }

  #declaredInStatements(statements: TS.NodeArray<TS.Statement>, name: string): Binding | undefined {
    const ts = this.#ts;
    for (const statement of statements) {
      if (ts.isVariableStatement(statement)) {
        const found = this.#declaredInList(statement.declarationList, name);
        if (found !== undefined) return found;
      } else if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) {
        return { kind: "function" };
      } else if (ts.isClassDeclaration(statement) && statement.name?.text === name) {
        return { kind: "class" };
      } else if (ts.isEnumDeclaration(statement) && statement.name.text === name) {
        return { kind: "unknown", reason: `\`${name}\`, an enum` };
      } else if (
        ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name) &&
        statement.name.text === name
      ) {
        return { kind: "unknown", reason: `\`${name}\`, a namespace` };
      } else if (
        (ts.isImportDeclaration(statement) && this.#importsName(statement, name)) ||
        (ts.isImportEqualsDeclaration(statement) && statement.name.text === name)
      ) {
        return { kind: "unknown", reason: `\`${name}\`, imported from another module` };
      }
    }
    return undefined;
  }

  #declaredInList(list: TS.VariableDeclarationList, name: string): Binding | undefined {
    const ts = this.#ts;
    const blockScope = list.flags & ts.NodeFlags.BlockScoped;
    for (const declaration of list.declarations) {
      if (!this.#bindsName(declaration.name, name)) continue;
      if (blockScope === ts.NodeFlags.Let) {
        return { kind: "unknown", reason: `\`${name}\`, declared with let` };
      }
      if (blockScope !== ts.NodeFlags.Const) {
        const keyword = blockScope === 0 ? "var" : "using";
        return { kind: "unknown", reason: `\`${name}\`, declared with ${keyword}` };
      }
      if (!ts.isIdentifier(declaration.name)) {
        return { kind: "unknown", reason: `\`${name}\`, a destructured binding` };
      }
      if (declaration.initializer === undefined) {
        return { kind: "unknown", reason: `\`${name}\`, declared without a value` };
      }
      return { kind: "const", name, initializer: declaration.initializer };
    }
    return undefined;
  }

  #importsName(declaration: TS.ImportDeclaration, name: string): boolean {
    const ts = this.#ts;
    const clause = declaration.importClause;
    if (clause === undefined) return false;
    if (clause.name?.text === name) return true;
    const bindings = clause.namedBindings;
    if (bindings === undefined) return false;
    if (ts.isNamespaceImport(bindings)) return bindings.name.text === name;
    return bindings.elements.some((element) => element.name.text === name);
  }

  /** True when a `var` anywhere in `scope` (outside nested functions and classes) declares `name`. */
  #hasHoistedVar(scope: TS.Node, name: string): boolean {
    let names = this.#varNames.get(scope);
    if (names === undefined) {
      names = this.#collectVarNames(scope);
      this.#varNames.set(scope, names);
    }
    return names.has(name);
  }

  #collectVarNames(scope: TS.Node): Set<string> {
    const ts = this.#ts;
    const names = new Set<string>();
    const addNames = (binding: TS.BindingName): void => {
      if (ts.isIdentifier(binding)) {
        names.add(binding.text);
        return;
      }
      for (const element of binding.elements) {
        if (!ts.isOmittedExpression(element)) addNames(element.name);
      }
    };
    walkNodes(ts, scope, (node) => {
      if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
      if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.BlockScoped) === 0) {
        for (const declaration of node.declarations) addNames(declaration.name);
      }
      return true;
    });
    return names;
  }

  #bindsName(binding: TS.BindingName, name: string): boolean {
    const ts = this.#ts;
    if (ts.isIdentifier(binding)) return binding.text === name;
    for (const element of binding.elements) {
      if (!ts.isOmittedExpression(element) && this.#bindsName(element.name, name)) return true;
    }
    return false;
  }
}
