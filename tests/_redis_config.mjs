// The redis-server configuration of the tests (Deno's tests/enforce/redis_server.ts
// and Node's tests/node/enforce.test.mjs): loopback only, a password so that no
// other client gets in, nothing persisted.

/**
 * @param {string} dir folder for the log (and nothing else: nothing is saved)
 * @param {number} port loopback port
 * @param {string} password what clients must give (`requirepass`)
 * @param {string[]} [extra] more lines (a cluster node's settings)
 * @returns {string} the configuration file's text
 */
export function redisConfig(dir, port, password, extra = []) {
  return [
    "bind 127.0.0.1",
    `port ${port}`,
    "protected-mode yes",
    `requirepass ${password}`,
    'save ""',
    "appendonly no",
    `dir ${dir}`,
    `logfile ${dir}/redis.log`,
    "daemonize no",
    "databases 1",
    ...extra,
    "",
  ].join("\n");
}
