// Run by local_client_permissions_test.ts in a child Deno process with no
// permission but --allow-read of the bundle file (or not even that).
//
//   deno run --no-prompt [--allow-read=<bundle>] local_client_child.ts once|watch <bundle> <hmac secret>
//
// Prints one line per event on stdout: `decision <rule id> <signature status>`,
// `ready <rule id>`, `onError <code>`, `reloaded <rule id>`, `closed`, or
// `error <code>` (and the message on stderr, exit code 2) when creation fails.
// In watch mode the watch runs on a fake clock: each line `check` on stdin
// runs one check of the file (no real time passes, nothing sleeps), until the
// bundle in force changes; then the client is closed, the child prints
// `pending <timers left on the clock>` and exits by itself: the watch must
// leave no timer or other resource behind.
import { createLocalClient, isPolicyError } from "../../../mod.ts";
import { FakeClock } from "../../_fake_clock.ts";

const [mode, bundlePath, secret] = Deno.args;
if ((mode !== "once" && mode !== "watch") || !bundlePath || !secret) {
  console.error("usage: local_client_child.ts once|watch <bundle path> <hmac secret>");
  Deno.exit(64);
}
const target = { service: "svc", resource: "doc", action: "read" };
const INTERVAL_MS = 20;
const clock = new FakeClock();

let client;
try {
  client = await createLocalClient({
    bundlePath,
    verify: { algorithm: "HMAC_SHA256", publicKey: secret },
    ...(mode === "watch" && {
      watch: { intervalMs: INTERVAL_MS },
      clock,
      onError: (error) => console.log(`onError ${error.code}`),
    }),
  });
} catch (error) {
  if (!isPolicyError(error)) throw error;
  console.log(`error ${error.code}`);
  console.error(error.message);
  Deno.exit(2);
}

const rule = () => client.evaluate({ target }).ruleId;
if (mode === "once") {
  console.log(`decision ${rule()} ${client.status().signature.status}`);
} else {
  const first = rule();
  console.log(`ready ${first}`);
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (rule() === first) {
    const chunk = await lines.read();
    if (chunk.done) break;
    buffered += chunk.value;
    for (let end; (end = buffered.indexOf("\n")) !== -1 && rule() === first;) {
      const command = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (command !== "check") throw new Error(`unknown command ${command}`);
      // One check: its timer fires, and the check is over when it schedules the next.
      const next = clock.nextTimer();
      clock.tick(INTERVAL_MS);
      await next;
    }
  }
  await lines.cancel();
  console.log(`reloaded ${rule()}`);
}
await client.close();
if (mode === "watch") console.log(`pending ${clock.pending}`);
console.log("closed");
