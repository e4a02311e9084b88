export const scratch = (c: any) => c.evaluate({ target: { service: "hidden", resource: "folder", action: "skipped" } });
