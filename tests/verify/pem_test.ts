// The one PEM parser (src/verify/pem.ts): lenient as openssl reads key files, and strict as the
// CLI reads them (docs/cli.md, "Reading key text").
import assert from "node:assert/strict";
import { encodePem, MalformedPemError, parsePem } from "../../src/verify/pem.ts";

const DER = new Uint8Array([48, 3, 2, 1, 7]);
const KEY = encodePem("PUBLIC KEY", DER);

Deno.test("parsePem: blocks in order with label, DER and the block as written; text around ignored", () => {
  const text = `comment line\n${KEY}between\n${encodePem("PRIVATE KEY", DER)}trailer`;
  for (const strict of [false, true]) {
    const blocks = parsePem(text, { strict });
    assert.deepEqual(blocks.map((b) => b.label), ["PUBLIC KEY", "PRIVATE KEY"]);
    assert.deepEqual(blocks[0]!.der, DER);
    assert.equal(blocks[0]!.text, KEY);
    assert.equal(blocks[0]!.hasHeaders, false);
  }
});

Deno.test("parsePem: the lenient reading skips what the strict one refuses", () => {
  const malformed = [
    // A BEGIN without its END, after a good block.
    `${KEY}-----BEGIN PUBLIC KEY-----\nAAAA\n`,
    // An END of another label.
    "-----BEGIN PUBLIC KEY-----\nMAMCAQc=\n-----END PRIVATE KEY-----\n",
    // RFC 1421 headers in the body.
    "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMAMCAQc=\n-----END PRIVATE KEY-----\n",
    // A body that is not base64.
    "-----BEGIN PUBLIC KEY-----\nMAMC*AQc=\n-----END PUBLIC KEY-----\n",
    // A broken armour line beside a good block.
    `${KEY}-----BEGIN public key-----\n`,
  ];
  for (const text of malformed) {
    assert.throws(() => parsePem(text, { strict: true }), MalformedPemError, text);
    assert.doesNotThrow(() => parsePem(text), text);
  }
  // What the lenient reading finds of the first and third: the good block, the block with headers.
  assert.equal(parsePem(malformed[0]!).length, 1);
  assert.deepEqual(
    parsePem(malformed[2]!).map((b) => [b.label, b.hasHeaders, b.der]),
    [["PRIVATE KEY", true, undefined]],
  );
});

Deno.test("parsePem: a body that is not canonical base64 has no DER", () => {
  const text = "-----BEGIN PUBLIC KEY-----\nMAMCAQd=\n-----END PUBLIC KEY-----\n";
  assert.equal(parsePem(text)[0]!.der, undefined);
  assert.equal(parsePem(text, { strict: true })[0]!.der, undefined);
});
