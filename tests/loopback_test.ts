/**
 * The test helpers that hand out loopback ports (`_loopback.ts`). A Redis
 * Cluster starts its six nodes at once, each taking two fixed ports (clients,
 * cluster bus): two nodes given the same port fail to start, so one process
 * must never be handed the same fixed port twice.
 */
import assert from "node:assert/strict";
import { freeFixedPort } from "./_loopback.ts";

Deno.test("freeFixedPort never hands the same port out twice in a process", () => {
  // 600 draws from its 12,000 ports: drawn at random, a repeat is all but certain.
  const ports = Array.from({ length: 600 }, () => freeFixedPort());
  assert.equal(new Set(ports).size, ports.length);
  for (const port of ports) assert.ok(port >= 20_000 && port < 32_000, `${port}`);
});
