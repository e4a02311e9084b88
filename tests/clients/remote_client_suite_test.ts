// The remote client against the shared client conformance suite: each
// client fetches the suite's bundle text, byte for byte, from a local HTTP
// server. HMAC and unsigned bundles are refused by design (docs/remote.md, "Answers").
import { createRemoteClient, type RemoteClientOptions } from "../../mod.ts";
import { runClientSuite, SUITE_SCOPE } from "./_client_suite.ts";
import { FaultServer } from "./_fault_server.ts";

runClientSuite("createRemoteClient()", async (bundleText, options) => {
  const server = FaultServer.start({ kind: "bundle", body: bundleText });
  try {
    const client = await createRemoteClient({
      ...options,
      baseUrl: server.baseUrl,
      runtimeKey: "rk_suite",
      ...SUITE_SCOPE,
    } as RemoteClientOptions);
    return { client, cleanup: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}, { hmac: false, allowUnsigned: false });
