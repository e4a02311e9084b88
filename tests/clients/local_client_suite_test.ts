// The local client against the shared client conformance suite: once reading
// the file once, once watching it on a fake clock (so that cleanup, which the
// suite runs after close(), sees that close() stopped the watch timer; no
// real time passes).
import { makeTempDir } from "../temp_dir.ts";
import assert from "node:assert/strict";
import { createLocalClient } from "../../mod.ts";
import { FakeClock } from "../_fake_clock.ts";
import { runClientSuite } from "./_client_suite.ts";

for (const watch of [false, true]) {
  runClientSuite(
    watch ? "createLocalClient() watching" : "createLocalClient()",
    async (bundleText, options) => {
      const temp = await makeTempDir("local-suite-");
      try {
        const bundlePath = `${temp.dir}/bundle.json`;
        await Deno.writeTextFile(bundlePath, bundleText);
        const clock = new FakeClock({ wallNow: Date.now() }); // decision timestamps are near now
        const client = await createLocalClient({
          ...options,
          bundlePath,
          ...(watch && { watch: { intervalMs: 10 }, clock }),
        });
        if (watch) assert.deepEqual(clock.pendingDelays(), [10], "the watch timer is armed");
        const cleanup = async () => {
          await temp.remove();
          assert.equal(clock.pending, 0, "close() stopped the watch timer");
        };
        return { client, cleanup };
      } catch (error) {
        await temp.remove();
        throw error;
      }
    },
  );
}
