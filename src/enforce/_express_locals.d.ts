// Types `res.locals.policyDecision` for Express's handlers: declaration merging on
// Express's `Locals` (docs/enforcement.md "Guards"). JSR packages may not augment global
// types, so this file is in no module graph of the Deno sources and deno.json "publish"
// excludes it: build_npm.ts adds it to the npm package's express_guard.d.ts
// (NPM_DECLARATIONS), and a Deno application declares the same lines.
import type { ExpressGuardLocals } from "./express_guard.ts";

declare global {
  namespace Express {
    interface Locals extends ExpressGuardLocals {}
  }
}
