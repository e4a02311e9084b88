// This module is browser compatible.
/**
 * PEM (RFC 7468) blocks: parsing key text into labelled DER, leniently (as
 * openssl reads it) or strictly, and writing it. The one PEM parser: the
 * library's key importers and the CLI's key files use it.
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
  /** The block as written, from its BEGIN line to its END line, and a line break. */
  text: string;
}

/** Options of {@link parsePem}. */
export interface ParsePemOptions {
  /**
   * Refuse (with {@link MalformedPemError}) what the lenient reading skips:
   * every `-----BEGIN` and `-----END` of the text must belong to a block,
   * each BEGIN followed by the END of the same label, with a body of base64
   * and white space only (no headers). Text outside the blocks is still
   * ignored. The CLI reads key files this way (docs/cli.md, "Reading key
   * text").
   */
  strict?: boolean;
}

/** Text that a strict {@link parsePem} refuses. Its message never quotes the text. */
export class MalformedPemError extends Error {
  override name = "MalformedPemError";
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const ARMOUR = /-----(BEGIN|END) ([A-Z0-9]+(?: [A-Z0-9]+)*)-----/g;
const STRICT_BODY = /^[A-Za-z0-9+/=\s]+$/;

/**
 * The PEM blocks of `text`, in order. Text around the blocks is ignored, as
 * openssl does. Line breaks and other whitespace inside a body are ignored;
 * the rest must be canonical base64. With `strict`, malformed armour throws
 * instead of being skipped.
 *
 * @throws {MalformedPemError} With `strict` only.
 */
export function parsePem(text: string, options: ParsePemOptions = {}): PemBlock[] {
  if (options.strict) return parseStrict(text);
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) blocks.push(block(match[1]!, match[2]!, match[0]));
  return blocks;
}

function block(label: string, body: string, written: string): PemBlock {
  const hasHeaders = body.includes(":");
  return {
    label,
    der: hasHeaders ? undefined : decodeBase64(body.replace(/\s+/g, "")),
    hasHeaders,
    text: `${written}\n`,
  };
}

function parseStrict(text: string): PemBlock[] {
  const armours = [...text.matchAll(ARMOUR)];
  // Every BEGIN and END, well-formed or not: a broken one is not text around a block.
  const dashes = text.split("-----BEGIN").length + text.split("-----END").length - 2;
  if (armours.length !== dashes || armours.length % 2 !== 0) throw new MalformedPemError();
  const blocks: PemBlock[] = [];
  for (let i = 0; i < armours.length; i += 2) {
    const begin = armours[i]!;
    const end = armours[i + 1]!;
    if (begin[1] !== "BEGIN" || end[1] !== "END" || begin[2] !== end[2]) {
      throw new MalformedPemError();
    }
    const body = text.slice(begin.index! + begin[0].length, end.index!);
    if (!STRICT_BODY.test(body)) throw new MalformedPemError();
    blocks.push(block(begin[2]!, body, text.slice(begin.index!, end.index! + end[0].length)));
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
