/**
 * A real Redis Cluster for the enforcement tests and benchmark: Debian's
 * redis-server started once per node (tests/enforce/redis_server.ts, each in
 * a folder of its own, on free loopback ports for its clients and its cluster
 * bus), joined by `redis-cli --cluster create`, three masters with one
 * replica each by default. Administration (the topology, resharding,
 * failover) goes through redis-cli, never through the clients under test.
 *
 * Needs `--allow-run=redis-server,redis-cli`, `--allow-net=127.0.0.1`, and
 * read/write of the temporary folder.
 *
 * @module
 */
import { freeFixedPort } from "../_loopback.ts";
import { type RedisServer, startRedisServer } from "./redis_server.ts";

/** A node as `CLUSTER NODES` describes it. */
export interface ClusterNode {
  id: string;
  port: number;
  role: "master" | "replica";
  /** The master's id, for a replica. */
  masterId: string | null;
  /** `fail`, `pfail`, `handshake`, `noaddr`… (the flags but the role and `myself`). */
  flags: string[];
  /** Slot ranges served, inclusive (masters). */
  slots: [number, number][];
}

/** A running cluster. */
export interface RedisCluster extends AsyncDisposable {
  readonly password: string;
  /** Every node's server, by client port. */
  readonly servers: ReadonlyMap<number, RedisServer>;
  /** Where clients start discovering: every node's client port. */
  readonly ports: readonly number[];
  /** Runs one command on the node at `port` with redis-cli; its raw output, trimmed. */
  send(port: number, ...args: string[]): Promise<string>;
  /** The topology as the node at `port` (default: any node that answers) sees it. */
  nodes(port?: number): Promise<ClusterNode[]>;
  /** The master serving `slot`, as a live node sees it. */
  ownerOf(slot: number): Promise<ClusterNode>;
  /** The hash slot of `key` (`CLUSTER KEYSLOT`). */
  keySlot(key: string): Promise<number>;
  /**
   * Resolves once every running node says `cluster_state:ok`, agrees on who
   * serves every slot, and every replica's link to its master is up.
   * Bounded: fails after `boundMs` of real time (a hang, not a result).
   */
  settled(boundMs?: number): Promise<void>;
  /** Moves `slot` with its keys from its master to the master at `toPort`, key by key. */
  migrateSlot(slot: number, toPort: number, options?: MigrateOptions): Promise<void>;
  /** Stops every node. */
  stop(): Promise<void>;
}

/** Options of {@link RedisCluster.migrateSlot}. */
export interface MigrateOptions {
  /** Keys moved per `MIGRATE` (default 1: the slot stays half-moved the longest). */
  batch?: number;
  /** Called between batches, while the slot is MIGRATING/IMPORTING (to let checks run). */
  between?: () => Promise<void>;
  /** Keys moved before the others, one at a time (the rest then wait in the old node). */
  first?: string[];
}

/** Options of {@link startRedisCluster}. */
export interface ClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /**
   * ms without an answer before a node is failing (`cluster-node-timeout`):
   * how soon a replica replaces a killed master. Default 2,000.
   */
  nodeTimeoutMs?: number;
}

const CLI_BOUND_MS = 60_000;

/** Runs redis-cli with `args`; its output, or a thrown error with both streams. */
async function redisCli(args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("redis-cli", {
    args: ["--no-auth-warning", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(CLI_BOUND_MS),
  }).output();
  const out = new TextDecoder().decode(stdout).trim();
  if (!success) {
    throw new Error(
      `redis-cli ${args.join(" ")} failed:\n${out}\n${new TextDecoder().decode(stderr)}`,
    );
  }
  return out;
}

/** `CLUSTER NODES` parsed. */
function parseNodes(text: string): ClusterNode[] {
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const [id, address, flagList, master, , , , , ...slots] = line.trim().split(" ");
    const flags = flagList!.split(",");
    return {
      id: id!,
      port: Number(address!.split("@")[0]!.split(":")[1]),
      role: flags.includes("master") ? "master" : "replica",
      masterId: master === "-" ? null : master!,
      flags: flags.filter((flag) => !["master", "slave", "myself"].includes(flag)),
      slots: slots.filter((s) => !s.startsWith("[")).map((range) => {
        const [from, to = from] = range.split("-");
        return [Number(from), Number(to)] as [number, number];
      }),
    };
  });
}

/** Starts a cluster in `dir` (a folder per node) and waits until it is settled. */
export async function startRedisCluster(
  dir: string,
  { masters = 3, replicasPerMaster = 1, nodeTimeoutMs = 2_000 }: ClusterOptions = {},
): Promise<RedisCluster> {
  const password = crypto.randomUUID().replaceAll("-", "");
  const servers = new Map<number, RedisServer>();
  const stop = () => Promise.all([...servers.values()].map((s) => s.stop())).then(() => {});
  try {
    await Promise.all(
      Array.from({ length: masters * (1 + replicasPerMaster) }, async (_, i) => {
        const nodeDir = `${dir}/node-${i}`;
        await Deno.mkdir(nodeDir, { recursive: true });
        const server = await startRedisServer(nodeDir, {
          password,
          pickPort: freeFixedPort,
          // A function: a start that finds a port taken draws the bus port again too.
          config: () => [
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            // The bus on a free port of its own: client port + 10,000 may be taken or beyond 65,535.
            // Both below the ephemeral range: while a node is down, the others' connection
            // attempts to it take ephemeral ports, which would keep it from starting again.
            `cluster-port ${freeFixedPort()}`,
            `cluster-node-timeout ${nodeTimeoutMs}`,
            `masterauth ${password}`,
            // A replica's first sync at once, not after the default 5 s wait for more replicas.
            "repl-diskless-sync-delay 0",
          ],
        });
        servers.set(server.port, server);
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const ports = [...servers.keys()];
  const auth = ["-a", password];
  const send = (port: number, ...args: string[]) =>
    redisCli([...auth, "-h", "127.0.0.1", "-p", String(port), ...args]);
  const nodes = async (port?: number) => {
    for (const candidate of port === undefined ? ports : [port]) {
      try {
        return parseNodes(await send(candidate, "CLUSTER", "NODES"));
      } catch (error) {
        if (port !== undefined) throw error;
      }
    }
    throw new Error("no node of the cluster answers");
  };
  const ownerOf = async (slot: number) => {
    const owner = (await nodes()).find((n) =>
      n.role === "master" && !n.flags.includes("fail") &&
      n.slots.some(([from, to]) => from <= slot && slot <= to)
    );
    if (owner === undefined) throw new Error(`no master serves slot ${slot}`);
    return owner;
  };
  const settled = async (boundMs = 30_000) => {
    const deadline = Date.now() + boundMs;
    let why = "";
    while (Date.now() < deadline) {
      const down = [...servers.values()].filter((server) => !server.running).length;
      why = await unsettled(servers, masters * replicasPerMaster - down, send, nodes);
      if (why === "") return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the cluster did not settle within ${boundMs} ms: ${why}`);
  };
  const cluster: RedisCluster = {
    password,
    servers,
    ports,
    send,
    nodes,
    ownerOf,
    keySlot: async (key) => Number(await send(ports[0]!, "CLUSTER", "KEYSLOT", key)),
    settled,
    migrateSlot: (slot, toPort, options) => migrateSlot(cluster, slot, toPort, options),
    stop,
    [Symbol.asyncDispose]: stop,
  };
  try {
    await redisCli([
      ...auth,
      "--cluster",
      "create",
      ...ports.map((port) => `127.0.0.1:${port}`),
      "--cluster-replicas",
      String(replicasPerMaster),
      "--cluster-yes",
    ]);
    await settled();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** Why the running nodes are not settled yet, or "". */
async function unsettled(
  servers: ReadonlyMap<number, RedisServer>,
  expectedReplicas: number,
  send: RedisCluster["send"],
  nodes: RedisCluster["nodes"],
): Promise<string> {
  let view: string | undefined;
  for (const [port, server] of servers) {
    if (!server.running) continue;
    try {
      const info = await send(port, "CLUSTER", "INFO");
      if (!info.includes("cluster_state:ok")) return `${port}: not ok`;
      const topology = await nodes(port);
      const live = topology.filter((n) => !n.flags.some((f) => f === "fail" || f === "pfail"));
      if (live.some((n) => n.flags.includes("handshake"))) return `${port}: handshaking`;
      const mine = live.filter((n) => n.role === "master" && n.slots.length > 0)
        .map((n) => `${n.port}:${JSON.stringify(n.slots)}`).sort().join(" ");
      if (view !== undefined && view !== mine) return `${port} sees ${mine}, another ${view}`;
      const replicas = live.filter((n) => n.role === "replica").length;
      if (live.some((n) => n.role === "master" && n.slots.length === 0)) {
        return `${port} sees a master without slots`;
      }
      if (replicas < expectedReplicas) return `${port} sees ${replicas} replicas`;
      view = mine;
      const me = topology.find((n) => n.port === port);
      if (me?.role === "replica") {
        const replication = await send(port, "INFO", "replication");
        if (!replication.includes("master_link_status:up")) return `${port}: replica link down`;
      }
    } catch (error) {
      return `${port}: ${error instanceof Error ? error.message : error}`;
    }
  }
  return "";
}

/**
 * Moves `slot` to the master at `toPort` as `redis-cli --cluster reshard`
 * does: IMPORTING on the target, MIGRATING on the source, the keys moved
 * with `MIGRATE` a batch at a time, then the slot assigned to the target
 * everywhere.
 */
async function migrateSlot(
  cluster: RedisCluster,
  slot: number,
  toPort: number,
  { batch = 1, between = () => Promise.resolve(), first = [] }: MigrateOptions = {},
): Promise<void> {
  const source = await cluster.ownerOf(slot);
  const target = (await cluster.nodes(toPort)).find((n) => n.port === toPort)!;
  if (source.port === toPort) throw new Error(`slot ${slot} is on ${toPort} already`);
  const s = String(slot);
  await cluster.send(toPort, "CLUSTER", "SETSLOT", s, "IMPORTING", source.id);
  await cluster.send(source.port, "CLUSTER", "SETSLOT", s, "MIGRATING", target.id);
  for (let turn = 0;; turn++) {
    const keys = turn < first.length ? [first[turn]!] : (await cluster.send(
      source.port,
      "CLUSTER",
      "GETKEYSINSLOT",
      s,
      String(batch),
    )).split("\n").filter((key) => key !== "");
    if (keys.length === 0) break;
    await cluster.send(
      source.port,
      "MIGRATE",
      "127.0.0.1",
      String(toPort),
      "",
      "0",
      "10000",
      "AUTH",
      cluster.password,
      "KEYS",
      ...keys,
    );
    await between();
  }
  // The target first, then the source, then every other master: as redis-cli does.
  await cluster.send(toPort, "CLUSTER", "SETSLOT", s, "NODE", target.id);
  await cluster.send(source.port, "CLUSTER", "SETSLOT", s, "NODE", target.id);
  for (const node of await cluster.nodes(toPort)) {
    if (node.role !== "master" || node.port === toPort || node.port === source.port) continue;
    if (node.flags.includes("fail")) continue;
    await cluster.send(node.port, "CLUSTER", "SETSLOT", s, "NODE", target.id).catch(() => {});
  }
}
