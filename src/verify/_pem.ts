// This module is browser compatible.
/**
 * PEM (RFC 7468) blocks: parsing key text into labelled DER, and writing it.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "../_internal/encoding.ts";

/** One `-----BEGIN <label>-----` … `-----END <label>-----` block. */
export interface PemBlock {
  label: string;
  /** The decoded body, or `undefined` when it is not valid base64. */
  der: Uint8Array<ArrayBuffer> | undefined;
  /** True when the body has RFC 1421 headers such as `Proc-Type: 4,ENCRYPTED`. */
  hasHeaders: boolean;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * The PEM blocks of `text`, in order. Text around the blocks is ignored, as
 * openssl does. Line breaks and other whitespace inside a body are ignored;
 * the rest must be canonical base64.
 */
export function parsePem(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const body = match[2]!;
    const hasHeaders = body.includes(":");
    blocks.push({
      label: match[1]!,
      der: hasHeaders ? undefined : decodeBase64(body.replace(/\s+/g, "")),
      hasHeaders,
    });
  }
  return blocks;
}

/** Encodes DER as a PEM block with 64-character lines. */
export function encodePem(label: string, der: Uint8Array): string {
  const body = encodeBase64(der).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** What a PEM label holds, for error messages. */
export function describePemLabel(label: string): string {
  switch (label) {
    case "PUBLIC KEY":
      return "an SPKI public key (BEGIN PUBLIC KEY)";
    case "PRIVATE KEY":
      return "a PKCS#8 private key (BEGIN PRIVATE KEY)";
    case "EC PRIVATE KEY":
      return "a SEC1 EC private key (BEGIN EC PRIVATE KEY)";
    case "ENCRYPTED PRIVATE KEY":
      return "an encrypted PKCS#8 private key (BEGIN ENCRYPTED PRIVATE KEY)";
    case "RSA PRIVATE KEY":
      return "an RSA private key (BEGIN RSA PRIVATE KEY)";
    case "RSA PUBLIC KEY":
      return "an RSA public key (BEGIN RSA PUBLIC KEY)";
    case "CERTIFICATE":
      return "a certificate (BEGIN CERTIFICATE)";
    case "EC PARAMETERS":
      return "EC parameters only (BEGIN EC PARAMETERS)";
    default:
      return `a PEM block labelled "${label}"`;
  }
}
