// Run by local_client_permissions_test.ts in a child Deno process with no
// permission but --allow-read of the bundle file (or not even that).
//
//   deno run --no-prompt [--allow-read=<bundle>] local_client_child.ts once|watch <bundle> <hmac secret>
//
// Prints one line per event on stdout: `decision <rule id> <signature status>`,
// `ready <rule id>`, `onError <code>`, `reloaded <rule id>`, `closed`, or
// `error <code>` (and the message on stderr, exit code 2) when creation fails.
// In watch mode the process exits by itself once the client is closed: the
// watch must leave no timer behind.
import { createLocalClient, isPolicyError } from "../../../mod.ts";

const [mode, bundlePath, secret] = Deno.args;
if ((mode !== "once" && mode !== "watch") || !bundlePath || !secret) {
  console.error("usage: local_client_child.ts once|watch <bundle path> <hmac secret>");
  Deno.exit(64);
}
const target = { service: "svc", resource: "doc", action: "read" };

let client;
try {
  client = await createLocalClient({
    bundlePath,
    verify: { algorithm: "HMAC_SHA256", publicKey: secret },
    ...(mode === "watch" && {
      watch: { intervalMs: 20 },
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
  await new Promise<void>((resolve) => {
    const check = () => rule() === first ? setTimeout(check, 10) : resolve();
    check();
  });
  console.log(`reloaded ${rule()}`);
}
await client.close();
console.log("closed");
