/**
 * A TypeScript transformer that rewrites module specifiers: those of import
 * and export declarations, of dynamic `import("…")` calls with a literal, and
 * of `import("…")` types in declaration files. Used by `build_npm.ts` (`.ts`
 * to `.js` in `.d.ts` files) and `bench/peers/build_node.ts` (engines under
 * test to package names).
 *
 * @module
 */
import ts from "typescript";

/** The transformer that replaces every module specifier `s` by `map(s)`. */
export function mapModuleSpecifiers<Node extends ts.SourceFile | ts.Bundle = ts.SourceFile>(
  map: (specifier: string) => string,
): ts.TransformerFactory<Node> {
  return (context) => {
    const { factory } = context;
    const mapped = <E extends ts.Expression>(node: E): E | ts.StringLiteral =>
      ts.isStringLiteral(node) ? factory.createStringLiteral(map(node.text)) : node;
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isImportDeclaration(node)) {
        return factory.updateImportDeclaration(
          node,
          node.modifiers,
          node.importClause,
          mapped(node.moduleSpecifier),
          node.attributes,
        );
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
        return factory.updateExportDeclaration(
          node,
          node.modifiers,
          node.isTypeOnly,
          node.exportClause,
          mapped(node.moduleSpecifier),
          node.attributes,
        );
      }
      if (
        ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments.length > 0
      ) {
        const [specifier, ...rest] = node.arguments;
        return factory.updateCallExpression(node, node.expression, node.typeArguments, [
          mapped(specifier!),
          ...rest.map((argument) => ts.visitNode(argument, visit) as ts.Expression),
        ]);
      }
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        const literal = node.argument.literal;
        if (ts.isStringLiteral(literal)) {
          return factory.updateImportTypeNode(
            node,
            factory.createLiteralTypeNode(mapped(literal)),
            node.attributes,
            node.qualifier,
            node.typeArguments?.map((t) => ts.visitNode(t, visit) as ts.TypeNode),
            node.isTypeOf,
          );
        }
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (node: Node) =>
      (ts.isSourceFile(node) ? ts.visitEachChild(node, visit, context) : node) as Node;
  };
}
