export const cov = (c) => c.evaluate({ target: { service: "coverage", resource: "report", action: "skipped" } });
