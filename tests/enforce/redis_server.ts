/**
 * Runs Debian's redis-server for the enforcement tests and benchmark: a
 * generated configuration (loopback only, a random password so no other
 * client gets in, no persistence), a temporary folder for its log, a free
 * loopback port, and a restart on the same port.
 *
 * Needs `--allow-run=redis-server`, `--allow-net=127.0.0.1`, and
 * read/write of the temporary folder.
 *
 * @module
 */
import { freePort, listening } from "../_loopback.ts";
import { redisConfig } from "../_redis_config.mjs";
import { whyNotRunnable } from "../_program.ts";

/** redis-server when it can be run, or the reason it cannot. */
export async function findRedisServer(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const reason = await whyNotRunnable("redis-server", "apt-get install redis-server");
  return reason === null ? { ok: true } : { ok: false, reason };
}

/** A running redis-server. */
export interface RedisServer extends AsyncDisposable {
  /** Its loopback port. */
  readonly port: number;
  /** The password clients must give. */
  readonly password: string;
  /** `redis://:<password>@127.0.0.1:<port>`. */
  readonly url: string;
  /** Whether it was started and not stopped since. */
  readonly running: boolean;
  /**
   * Stops it (SIGTERM, or SIGKILL: a crash, nothing flushed) and waits for it
   * to exit. Idempotent.
   */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as with a hung host. */
  pause(): void;
  /** Thaws what {@link RedisServer.pause} froze (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port, empty (nothing was persisted). */
  start(): Promise<void>;
}

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** The password (default: a random one). Nodes of one cluster share theirs. */
  password?: string;
  /**
   * More configuration lines (a cluster node's settings), or what makes them:
   * called again for each new attempt when a port was taken (a cluster
   * node's bus port is drawn there), and not on a restart, which keeps them.
   */
  config?: string[] | (() => string[]);
  /**
   * Picks the port (default: `freePort`, in the ephemeral range); a server
   * that other nodes keep calling while it is down needs one outside it.
   */
  pickPort?: () => number;
}

/** Starts redis-server in `dir` on a free port and waits until it accepts connections. */
export async function startRedisServer(
  dir: string,
  options: RedisServerOptions = {},
): Promise<RedisServer> {
  const password = options.password ?? crypto.randomUUID().replaceAll("-", "");
  let child: Deno.ChildProcess | null = null;
  let port = 0;
  let extra: string[] = [];

  async function stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    if (child === null) return;
    const running = child;
    child = null;
    try {
      running.kill("SIGCONT"); // a paused server would not act on SIGTERM
      running.kill(signal);
    } catch {
      // Already exited.
    }
    await running.status;
  }

  async function launch(fixedPort?: number): Promise<void> {
    for (let attempt = 1;; attempt++) {
      port = fixedPort ?? (options.pickPort ?? freePort)();
      if (fixedPort === undefined) {
        extra = typeof options.config === "function" ? options.config() : options.config ?? [];
      }
      const config = `${dir}/redis.conf`;
      await Deno.writeTextFile(config, redisConfig(dir, port, password, extra));
      const started = new Deno.Command("redis-server", {
        args: [config],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      child = started;
      if (await listening(port, started)) return;
      await stop();
      const log = await Deno.readTextFile(`${dir}/redis.log`).catch(() => "");
      // Another process may have taken a port between its draw and redis-server: new ones. A
      // restart keeps its port (others know it), so it has nothing else to try.
      if (fixedPort === undefined && attempt < 3 && /Address already in use/.test(log)) continue;
      throw new Error(`redis-server did not start:\n${log}`);
    }
  }

  await launch();
  return {
    get port() {
      return port;
    },
    password,
    get url() {
      return `redis://:${password}@127.0.0.1:${port}`;
    },
    get running() {
      return child !== null;
    },
    stop,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    start: () => launch(port),
    [Symbol.asyncDispose]: stop,
  };
}
