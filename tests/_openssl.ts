/**
 * Test helpers that drive the openssl command line, for the interoperability
 * tests. openssl is required: when it is missing these helpers throw, so the
 * tests fail loudly instead of being skipped (CI installs it, see `.ci/run`).
 *
 * Needs `--allow-run=openssl`, and read/write of the `.tmp/` folder of the
 * repository (its files: `temp_dir.ts`).
 *
 * @module
 */
import { withTempDir } from "./temp_dir.ts";

/** What openssl did. */
export interface OpensslResult {
  code: number;
  stdout: Uint8Array;
  /** stdout as text. */
  text: string;
  stderr: string;
}

/** Runs `openssl ...args`, optionally feeding `stdin`, whatever its exit code. */
export async function runOpenssl(
  args: string[],
  stdin?: string | Uint8Array,
): Promise<OpensslResult> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("openssl", {
      args,
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (cause) {
    if (cause instanceof Deno.errors.NotFound) {
      throw new Error(
        "openssl is not on PATH; the signature interoperability tests need it (apt-get install openssl)",
        { cause },
      );
    }
    throw cause;
  }
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin);
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, stdout, text: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Runs `openssl ...args` like {@link runOpenssl}, throwing with its output when it fails. */
export async function openssl(args: string[], stdin?: string | Uint8Array): Promise<OpensslResult> {
  const result = await runOpenssl(args, stdin);
  if (result.code !== 0) {
    throw new Error(
      `openssl ${args[0]} exited with ${result.code}: ${result.stderr}${result.text}`,
    );
  }
  return result;
}

/** A SEC1 P-256 private key (`BEGIN EC PRIVATE KEY`), as `openssl ecparam -genkey -noout` writes it. */
export async function generateSec1Key(): Promise<string> {
  return (await openssl(["ecparam", "-genkey", "-name", "prime256v1", "-noout"])).text;
}

/** A SEC1 P-256 private key preceded by its `BEGIN EC PARAMETERS` block (`openssl ecparam -genkey` without `-noout`). */
export async function generateSec1KeyWithParameters(): Promise<string> {
  return (await openssl(["ecparam", "-genkey", "-name", "prime256v1"])).text;
}

/** A PKCS#8 private key (`BEGIN PRIVATE KEY`) from `openssl genpkey`; P-256 unless told otherwise. */
export async function generatePkcs8Key(
  algorithm: "P-256" | "P-384" | "RSA" | "ED25519" = "P-256",
): Promise<string> {
  const args = algorithm === "RSA"
    ? ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
    : algorithm === "ED25519"
    ? ["-algorithm", "ED25519"]
    : ["-algorithm", "EC", "-pkeyopt", `ec_paramgen_curve:${algorithm}`];
  return (await openssl(["genpkey", ...args])).text;
}

/** The SPKI public key (`BEGIN PUBLIC KEY`) of a PEM private key. */
export async function publicKeyOf(privateKeyPem: string): Promise<string> {
  return (await openssl(["pkey", "-pubout"], privateKeyPem)).text;
}

/** Converts a PEM private key to another PEM form with `openssl pkey` / `openssl ec`. */
export async function convertPrivateKey(
  privateKeyPem: string,
  to: "pkcs8" | "sec1",
): Promise<string> {
  return to === "pkcs8"
    ? (await openssl(["pkey"], privateKeyPem)).text
    : (await openssl(["ec"], privateKeyPem)).text;
}

/** Signs `data` with `openssl dgst -sha256 -sign` and returns the DER signature. */
export function signWithOpenssl(privateKeyPem: string, data: Uint8Array): Promise<Uint8Array> {
  return withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/key.pem`, privateKeyPem);
    await Deno.writeFile(`${dir}/payload`, data);
    await openssl([
      "dgst",
      "-sha256",
      "-sign",
      `${dir}/key.pem`,
      "-out",
      `${dir}/sig.der`,
      `${dir}/payload`,
    ]);
    return await Deno.readFile(`${dir}/sig.der`);
  });
}

/**
 * Verifies a DER signature with `openssl dgst -sha256 -verify`. Returns
 * true on `Verified OK`, false on `Verification failure`.
 */
export function verifyWithOpenssl(
  publicKeyPem: string,
  data: Uint8Array,
  signatureDer: Uint8Array,
): Promise<boolean> {
  return withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/pub.pem`, publicKeyPem);
    await Deno.writeFile(`${dir}/payload`, data);
    await Deno.writeFile(`${dir}/sig.der`, signatureDer);
    const args = [
      "dgst",
      "-sha256",
      "-verify",
      `${dir}/pub.pem`,
      "-signature",
      `${dir}/sig.der`,
      `${dir}/payload`,
    ];
    const { code, text, stderr } = await runOpenssl(args);
    if (code === 0 && text.trim() === "Verified OK") return true;
    if (code === 1 && text.trim() === "Verification failure") return false;
    throw new Error(`openssl dgst -verify exited with ${code}: ${stderr}${text}`);
  });
}

/**
 * The HMAC-SHA256 of `data` as `openssl dgst -sha256 -mac HMAC -macopt
 * hexkey:<secret>` prints it: the lowercase hex after `= ` on its output line.
 */
export async function hmacWithOpenssl(hexSecret: string, data: Uint8Array): Promise<string> {
  const { text } = await openssl(
    ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `hexkey:${hexSecret}`],
    data,
  );
  const match = text.match(/= ([0-9a-f]{64})\s*$/);
  if (match === null) throw new Error(`unexpected openssl dgst output: ${text}`);
  return match[1]!;
}

/** A fresh 256-bit HMAC secret from `openssl rand -hex 32`. */
export async function generateHmacSecret(): Promise<string> {
  return (await openssl(["rand", "-hex", "32"])).text.trim();
}

/** A P-256 certificate for `commonName`, signed by its own key (`openssl req -x509`), valid a day. */
export function selfSignedCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  return withTempDir(async (dir) => {
    const args = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1".split(" ");
    await openssl([
      ...args,
      "-subj",
      `/CN=${commonName}`,
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
    ]);
    return {
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      key: await Deno.readTextFile(`${dir}/key.pem`),
    };
  });
}
