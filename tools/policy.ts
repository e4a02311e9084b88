/**
 * What `deno task policy` runs: `cli.ts` from one bundled file
 * (`tools/cli_bundle.ts`), made again first when a source changed; the
 * sources themselves when no bundle can be made.
 *
 * @module
 */
import { CLI_SOURCE, freshCliBundle } from "./cli_bundle.ts";

await import(((await freshCliBundle()) ?? CLI_SOURCE).href);
