// Child process of remote_client_permissions_test.ts: creates a remote
// client with the options given as JSON in the first argument, polls once
// more, closes it, and prints one JSON line saying what happened. It relies
// on the process exiting by itself: close() must leave nothing running.
import { createRemoteClient, isPolicyError, type RemoteClientOptions } from "../../../mod.ts";

const options: RemoteClientOptions = JSON.parse(Deno.args[0]!);
const target = { service: "shop", resource: "cart", action: "checkout" };
const errors: string[] = [];
try {
  const client = await createRemoteClient({ ...options, onError: (e) => errors.push(e.code) });
  const status = (await client.refresh()).status;
  const decision = client.evaluate({ target }).decision;
  await client.close();
  console.log(JSON.stringify({ ok: true, decision, status, errors }));
} catch (error) {
  console.log(JSON.stringify({
    ok: false,
    policyError: isPolicyError(error),
    code: isPolicyError(error) ? error.code : null,
    message: error instanceof Error ? error.message : String(error),
  }));
}
