// client.evaluate({ target: { service: "comment", resource: "line", action: "x" } })
/*
 * client.evaluate({ target: { service: "comment", resource: "block", action: "x" } })
 */
export const inString = 'client.evaluate({ target: { service: "string", resource: "single", action: "x" } })';
export const inDouble = "policy.evaluate({ target: { service: 'string', resource: 'double', action: 'x' } })";
export const inTemplate = `
  policy.evaluate({
    target: { service: "template", resource: "multi", action: "x" },
  })
`;
export const pattern = /client\.evaluate\(\{ target: \{ service: "regex" \} \}\)/;

declare const math: { evaluate(expression: string): number };
declare const engine: { evaluate(input?: unknown): unknown };

// Calls named evaluate that are not evaluation points.
export const sum = math.evaluate("1 + 2");
export const noArgument = engine.evaluate();
export const noTarget = engine.evaluate({ service: "billing", resource: "invoice", action: "read" });
export const aNumber = engine.evaluate(42);
export const aFunction = engine.evaluate(() => "target");
