/**
 * The service's policy client — the signed bundle built by `policy build`, verified with the
 * release public key and watched for updates — and its enforcer, counting throttles in Redis
 * when `REDIS_URL` is set (so every instance shares one limit), else in this process.
 */
import { createClient } from "redis";
import { createLocalClient, type PolicyClient } from "../../../mod.ts";
import { createEnforcer, type Enforcer } from "../../../src/enforce/mod.ts";
import { createRedisStore, nodeRedisCommands } from "../../../src/enforce/redis/mod.ts";

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

/** The enforcer: throttles counted in the Redis at `redisUrl`, or in memory without one. */
export async function openEnforcer(redisUrl: string | undefined): Promise<Enforcer> {
  const onError = (error: { code: string; message: string }) =>
    console.error(`throttle check failed: ${error.code}: ${error.message}`);
  if (redisUrl === undefined) return createEnforcer({ onError });
  const redis = createClient({ url: redisUrl, disableOfflineQueue: true });
  redis.on("error", (error: Error) => console.error(`redis: ${error.message}`));
  await redis.connect();
  return createEnforcer({ store: createRedisStore(nodeRedisCommands(redis)), onError });
}
