// The local client against the shared client conformance suite: once reading
// the file once, once watching it (so the sanitizers see that close() stops
// the poll timer).
import { createLocalClient } from "../../mod.ts";
import { runClientSuite } from "./_client_suite.ts";
import { makeTempDir } from "./_helpers.ts";

for (const watch of [false, true]) {
  runClientSuite(
    watch ? "createLocalClient() watching" : "createLocalClient()",
    async (bundleText, options) => {
      const temp = await makeTempDir("local-suite-");
      try {
        const bundlePath = `${temp.dir}/bundle.json`;
        await Deno.writeTextFile(bundlePath, bundleText);
        const client = await createLocalClient({
          ...options,
          bundlePath,
          ...(watch && { watch: { intervalMs: 10 } }),
        });
        return { client, cleanup: temp.remove };
      } catch (error) {
        await temp.remove();
        throw error;
      }
    },
  );
}
