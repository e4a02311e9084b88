/**
 * A tour of the local client: sign a bundle with a fresh ECDSA P-256 key,
 * load and verify it, evaluate requests, then watch the file reload a
 * re-signed change and keep the bundle in force when garbage is written.
 *
 *   deno task demo      (or: npx -y deno@2.9.6 task demo)
 *
 * Permissions: read of examples/ and read/write of .tmp/ (where the signed
 * bundle and the keys are written); the client itself only reads the bundle.
 *
 * @module
 */
import {
  createLocalClient,
  type Decision,
  type EvaluationRequest,
  generateEcdsaKeyPair,
  type PolicyError,
  type RuntimeBundleV1,
  signBundle,
} from "../mod.ts";

const INTERVAL_MS = 100;

// 1. An ECDSA P-256 key pair, as PEM (PKCS#8 private key, SPKI public key).
const { privateKey: privatePem, publicKey: publicPem } = await generateEcdsaKeyPair();

// 2. examples/bundle.json, signed, written into a temporary folder under .tmp/.
const source: RuntimeBundleV1 = JSON.parse(
  await Deno.readTextFile(new URL("./bundle.json", import.meta.url)),
);
await Deno.mkdir(".tmp", { recursive: true });
const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "demo-" });
const bundlePath = `${dir}/policy-bundle.json`;
await Deno.writeTextFile(`${dir}/private.pem`, privatePem, { mode: 0o600 });
await Deno.writeTextFile(`${dir}/public.pem`, publicPem);

/** Signs `bundle` and writes it to a temporary file renamed into place, as the CLI does. */
async function publish(bundle: RuntimeBundleV1): Promise<void> {
  const signed = await signBundle(bundle, {
    algorithm: "ECDSA_SHA_256",
    key: privatePem,
    keyId: "demo-key-1",
  });
  await writeAtomic(JSON.stringify(signed, null, 2));
}

async function writeAtomic(text: string): Promise<void> {
  await Deno.writeTextFile(`${bundlePath}.tmp`, text);
  await Deno.rename(`${bundlePath}.tmp`, bundlePath);
}

/** Polls `condition` until it holds (a few seconds at most). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`the demo timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const show = (decision: Decision) => {
  const { decision: what, ...rest } = decision;
  return `${what.padEnd(11)} ${JSON.stringify(rest)}`;
};

try {
  await publish(source);
  console.log(`Signed ${bundlePath} with a new ECDSA P-256 key (keyId demo-key-1).\n`);

  // 3. The client: verify with the public key, watch the file.
  const errors: PolicyError[] = [];
  await using client = await createLocalClient({
    bundlePath,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: publicPem },
    watch: { intervalMs: INTERVAL_MS },
    onError: (error) => {
      errors.push(error);
      console.log(`  onError: ${error.code}: ${error.message}`);
    },
  });

  const billing = { service: "billing", resource: "invoice", action: "create" };
  const search = { service: "search", resource: "catalog", action: "query" };
  const requests: [string, EvaluationRequest][] = [
    ["billing, plan pro", { target: billing, context: { plan: "pro" } }],
    ["billing, free plan, 12 seats", { target: billing, context: { plan: "free", seats: 12 } }],
    ["billing, plan trial", { target: billing, context: { plan: "trial" } }],
    ["search from the EU", { target: search, context: { region: "eu" } }],
    ["search during an outage", { target: search, context: { flags: { searchOutage: true } } }],
    ["unknown target", { target: { service: "mail", resource: "inbox", action: "read" } }],
  ];
  console.log("Decisions:");
  for (const [label, request] of requests) {
    console.log(`  ${label.padEnd(30)} ${show(client.evaluate(request))}`);
  }
  console.log("\nstatus():");
  console.log(`  ${JSON.stringify(client.status(), null, 2).replaceAll("\n", "\n  ")}`);

  // 4. A watched reload: trial plans become allowed, re-signed, bundleVersion 2.
  const trial = requests[2]![1];
  const changed = structuredClone(source);
  changed.bundleVersion = 2;
  const when = changed.policies[0]!.rules[0]!.when as { values: string[] };
  when.values.push("trial");
  console.log('\nRewriting the bundle: "trial" joins the paid plans (bundleVersion 2), re-signed.');
  await publish(changed);
  await until(() => client.status().bundleVersion === 2, "the reload");
  console.log(`  reloaded: billing, plan trial -> ${show(client.evaluate(trial))}`);

  // 5. A failed reload: garbage is reported and the verified bundle stays in force.
  console.log("\nWriting garbage over the bundle file:");
  await writeAtomic("this is not a bundle");
  await until(() => errors.length === 1, "onError");
  console.log(
    `  still in force: bundleVersion ${client.status().bundleVersion}, billing, plan trial -> ${
      show(client.evaluate(trial))
    }`,
  );
  console.log(
    "\nLeaving the block closes the client (await using): the watch stops, the process exits.",
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
