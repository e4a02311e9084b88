/**
 * What reading JSON exactly as written costs (docs/performance.md, "JSON
 * exactly as written"): `parseJson` against `JSON.parse` on the 8 MiB
 * benchmark bundle as it is (no backslash: one search), with escaped quotes
 * in every rule's description (backslashes in values: a scan for escaped
 * keys), and with one escaped key (the strict parser reads it all).
 *
 * Run: deno task bench (with the engine benchmark).
 */
import { parseJson } from "../mod.ts";
import { makeSignedBundle } from "./load/_signed_bundle.ts";

const { bytes } = await makeSignedBundle();
const plain = new TextDecoder().decode(bytes);
const quoted = plain.replaceAll(
  '"status":"active"',
  '"description":"\\"quoted\\" \\\\ text","status":"active"',
);
const escapedKey = '{"\\u0065tag":"x",' + plain.slice(1);

for (
  const [name, text] of [["plain", plain], ["backslashes in values", quoted], [
    "an escaped key",
    escapedKey,
  ]] as const
) {
  Deno.bench({
    name: `JSON.parse, ${name}`,
    group: name,
    baseline: true,
    fn: () => void JSON.parse(text),
  });
  Deno.bench({ name: `parseJson, ${name}`, group: name, fn: () => void parseJson(text) });
}
