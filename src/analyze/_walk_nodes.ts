import type * as TS from "typescript";
import type { TypeScriptApi } from "./types.ts";

/**
 * Calls `visit` on every node below `root` (not `root` itself), depth first,
 * with an explicit stack rather than recursion, so that very long expression
 * chains (minified code) cannot overflow the call stack. `visit` returns false
 * to skip a node's children.
 */
export function walkNodes(
  ts: TypeScriptApi,
  root: TS.Node,
  visit: (node: TS.Node) => boolean,
): void {
  const stack: TS.Node[] = [];
  const pushChildren = (node: TS.Node) => {
    const children: TS.Node[] = [];
    ts.forEachChild(node, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  };
  pushChildren(root);
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (visit(node)) pushChildren(node);
  }
}
