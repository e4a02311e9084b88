// Declaration files are skipped, even when they hold evaluate-like code.
declare const client: { evaluate(request: unknown): unknown };
client.evaluate({ target: { service: "declaration", resource: "file", action: "skipped" } });
