/**
 * A hostile Redis: a server on 127.0.0.1 that answers the commands a client
 * sends while connecting (`HELLO`, `CLIENT …`, `INFO`, `PING`, …) as Redis 7
 * does, and `EVALSHA`/`EVAL` with whatever reply the test sets. It speaks
 * RESP3 to a client that asks (`HELLO 3`, as node-redis and ioredis do) and
 * RESP2 otherwise, or RESP2 only (refusing `HELLO 3`, as Redis 6 does, so
 * that ioredis falls back). Enough for both clients to connect and run the
 * store's script against it.
 *
 * @module
 */

/**
 * A reply: an integer, a bulk string, a nil, an array, a map (RESP3; a
 * flat array in RESP2), or raw protocol text (`,nan\r\n`, a RESP3 double).
 */
export type Resp =
  | number
  | string
  | null
  | Resp[]
  | { map: [string, Resp][] }
  | { raw: string };

/** Encodes `value` in RESP `protocol` (2 or 3). */
export function encodeResp(value: Resp, protocol: 2 | 3): string {
  if (value === null) return protocol === 3 ? "_\r\n" : "$-1\r\n";
  if (typeof value === "number") return `:${value}\r\n`;
  if (typeof value === "string") {
    return `$${new TextEncoder().encode(value).byteLength}\r\n${value}\r\n`;
  }
  const all = (values: Resp[]) => values.map((v) => encodeResp(v, protocol)).join("");
  if (Array.isArray(value)) return `*${value.length}\r\n${all(value)}`;
  if ("map" in value) {
    return protocol === 3
      ? `%${value.map.length}\r\n${all(value.map.flat())}`
      : `*${value.map.length * 2}\r\n${all(value.map.flat())}`;
  }
  return value.raw;
}

/** A running fake server. */
export interface FakeRedis extends AsyncDisposable {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The reply to the next `EVALSHA`/`EVAL` commands. */
  scriptReply: Resp;
  /** Names of the commands received, in order (upper case). */
  readonly received: string[];
  close(): Promise<void>;
}

/** Reads the RESP arrays of bulk strings that clients send; yields each command's words. */
async function* commands(connection: Deno.Conn): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let buffer = "";
  const chunk = new Uint8Array(64 * 1024);
  for (;;) {
    // Parse every complete command in the buffer.
    for (;;) {
      const parsed = parseCommand(buffer);
      if (parsed === null) break;
      buffer = buffer.slice(parsed.length);
      yield parsed.words;
    }
    const n = await connection.read(chunk).catch(() => null);
    if (n === null) return;
    buffer += decoder.decode(chunk.subarray(0, n), { stream: true });
  }
}

/** One command from the start of `text` (`*N` then N bulk strings), or null when incomplete. */
function parseCommand(text: string): { words: string[]; length: number } | null {
  const header = /^\*(\d+)\r\n/.exec(text);
  if (header === null) return null;
  let at = header[0].length;
  const words: string[] = [];
  for (let i = 0; i < Number(header[1]); i++) {
    const bulk = /^\$(\d+)\r\n/.exec(text.slice(at));
    if (bulk === null) return null;
    at += bulk[0].length;
    const size = Number(bulk[1]);
    // Commands here are ASCII, so characters are bytes.
    if (text.length < at + size + 2) return null;
    words.push(text.slice(at, at + size));
    at += size + 2;
  }
  return { words, length: at };
}

/** What `HELLO` answers: the server's description. */
function hello(protocol: 2 | 3): Resp {
  return {
    map: [
      ["server", "redis"],
      ["version", "7.0.15"],
      ["proto", protocol],
      ["id", 1],
      ["mode", "standalone"],
      ["role", "master"],
      ["modules", []],
    ],
  };
}

/** The reply Redis gives to a connection-time command. */
function ordinaryReply(words: string[]): Resp {
  switch (words[0]!.toUpperCase()) {
    case "PING":
      return { raw: "+PONG\r\n" };
    case "INFO":
      return "# Server\r\nredis_version:7.0.15\r\n# Persistence\r\nloading:0\r\n";
    default:
      return { raw: "+OK\r\n" };
  }
}

/** Options of {@link startFakeRedis}. */
export interface FakeRedisOptions {
  /** The first reply to `EVALSHA`/`EVAL` (default nil). */
  scriptReply?: Resp;
  /** 3 (default): RESP3 to a client that says `HELLO 3`; 2: RESP2 only. */
  protocols?: 2 | 3;
}

/** Starts a fake Redis on a free loopback port. */
export function startFakeRedis(options: FakeRedisOptions = {}): FakeRedis {
  const { scriptReply = null, protocols = 3 } = options;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections = new Set<Deno.Conn>();
  const encoder = new TextEncoder();
  const received: string[] = [];
  const fake: FakeRedis = {
    url: `redis://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    scriptReply,
    received,
    close,
    [Symbol.asyncDispose]: close,
  };
  const serve = async (connection: Deno.Conn) => {
    connections.add(connection);
    let protocol: 2 | 3 = 2;
    try {
      for await (const words of commands(connection)) {
        const name = words[0]!.toUpperCase();
        received.push(name);
        let reply: Resp;
        if (name === "EVALSHA" || name === "EVAL") reply = fake.scriptReply;
        else if (name !== "HELLO") reply = ordinaryReply(words);
        else if (words[1] === "3" && protocols === 2) {
          reply = { raw: "-NOPROTO unsupported protocol version\r\n" };
        } else {
          if (words[1] === "3" || words[1] === "2") protocol = Number(words[1]) as 2 | 3;
          reply = hello(protocol);
        }
        await connection.write(encoder.encode(encodeResp(reply, protocol)));
      }
    } catch {
      // The client went away.
    } finally {
      connections.delete(connection);
      try {
        connection.close();
      } catch {
        // Closed already.
      }
    }
  };
  const serving: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const connection of listener) serving.push(serve(connection));
  })().catch(() => {});
  let closed: Promise<void> | undefined;
  async function close(): Promise<void> {
    closed ??= (async () => {
      listener.close();
      for (const connection of connections) {
        try {
          connection.close();
        } catch {
          // Closed already.
        }
      }
      await accepting;
      await Promise.all(serving);
    })();
    await closed;
  }
  return fake;
}
