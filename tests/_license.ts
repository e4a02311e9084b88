/**
 * Test helpers for the toolkit licence: a throwaway issuer key pair made
 * once per test process (the tests point POLICY_LICENSE_PUBLIC_KEY at its
 * public half), licences signed with it, and a local activation server on
 * 127.0.0.1 (needs `--allow-net=127.0.0.1`).
 *
 * @module
 */
import { encodePem } from "../src/verify/pem.ts";
import { type LicenseDocument, type LicenseFields, signLicense } from "../src/license/mod.ts";

/** A P-256 key pair: CryptoKeys and PEM text. */
export interface TestKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  privateKeyPem: string;
  publicKeyPem: string;
}

/** A new P-256 key pair. */
export async function generateKeyPair(): Promise<TestKeyPair> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  return {
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    privateKeyPem: encodePem("PRIVATE KEY", pkcs8),
    publicKeyPem: encodePem("PUBLIC KEY", spki),
  };
}

/** The test issuer: its public half is what POLICY_LICENSE_PUBLIC_KEY holds in tests. */
export const ISSUER: TestKeyPair = await generateKeyPair();

/** Fields of a valid toolkit licence, valid from 2026-01-01 to 2030-01-01. */
export function licenseFields(overrides: Partial<LicenseFields> = {}): LicenseFields {
  return {
    schemaVersion: 1,
    licenseId: "lic_test_0001",
    licensee: "Acme Corp",
    issuedAt: "2026-01-01T00:00:00.000Z",
    expiresAt: "2030-01-01T00:00:00.000Z",
    features: ["toolkit"],
    ...overrides,
  };
}

/** A licence signed by {@link ISSUER} (or `key`). */
export async function issueLicense(
  overrides: Partial<LicenseFields> = {},
  key: CryptoKey = ISSUER.privateKey,
): Promise<LicenseDocument> {
  return await signLicense(licenseFields(overrides), key, "test-issuer");
}

/** A valid licence as POLICY_LICENSE text. */
export const TEST_LICENSE: string = JSON.stringify(await issueLicense());

/** A request the activation server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A local activation server. */
export interface ActivationServer extends AsyncDisposable {
  /** Its base URL, for POLICY_API_URL. */
  url: string;
  requests: ReceivedRequest[];
}

/** Starts a server on 127.0.0.1 (any free port) that answers every request with `answer`. */
export function activationServer(
  answer: (request: ReceivedRequest) => Response | Promise<Response>,
): ActivationServer {
  const requests: ReceivedRequest[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const received = {
      method: req.method,
      path: new URL(req.url).pathname,
      headers: req.headers,
      body: await req.text(),
    };
    requests.push(received);
    return await answer(received);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A JSON response. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}
