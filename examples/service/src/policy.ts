/**
 * The service's policy client: the signed bundle built by `policy build`,
 * verified with the release public key and watched for updates.
 */
import { createLocalClient, type PolicyClient } from "../../../mod.ts";

/** Opens the policy client, or throws a `PolicyError` when the bundle cannot be trusted. */
export async function openPolicyClient(
  bundlePath: string,
  publicKeyPath: string,
): Promise<PolicyClient> {
  return await createLocalClient({
    bundlePath,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: await Deno.readTextFile(publicKeyPath) },
    watch: { intervalMs: 2000 },
    contextPolicy: { allowedKeys: ["tenant", "plan", "seats", "role"] },
    onError: (error) =>
      console.error(`policy reload failed, keeping the bundle in force: ${error.code}`),
  });
}
