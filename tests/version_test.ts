import assert from "node:assert/strict";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../src/_internal/version.ts";

Deno.test("src/_internal/version.ts matches the name and version in deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(PACKAGE_NAME, config.name);
  assert.equal(PACKAGE_VERSION, config.version);
});
