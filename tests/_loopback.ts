/**
 * Ports on 127.0.0.1 for the servers the tests start (nginx, redis-server,
 * child services). Needs `--allow-net=127.0.0.1`.
 *
 * @module
 */

/** A port that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The fixed ports this process has handed out: never twice (servers started at once). */
const handedOut = new Set<number>();

/**
 * A port that was free a moment ago, below Linux's ephemeral range (32768 and
 * up), so that no outgoing connection takes it as its local port: for a
 * server that restarts on the same port while others keep connecting to it.
 * Never one this process was given before: servers started together (a Redis
 * Cluster's nodes, each with a client and a bus port) do not bind it until
 * they run, so a second draw of it would look free.
 */
export function freeFixedPort(): number {
  for (;;) {
    if (handedOut.size >= 11_000) {
      throw new Error("freeFixedPort: this process took every fixed port");
    }
    // Not a test input: drawn from the system so parallel workers pick apart (no seed to share).
    const port = 20_000 + crypto.getRandomValues(new Uint32Array(1))[0]! % 12_000;
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
}

/** Waits until `port` accepts a connection (true), or the child exits or 10 s pass (false). */
export async function listening(port: number, child: Deno.ChildProcess): Promise<boolean> {
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + 10_000;
  while (!exited && Date.now() < deadline) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return false;
}
