// This module is browser compatible.
/**
 * The one thing the Redis store needs from a Redis client.
 *
 * @module
 */

/**
 * Sends Redis commands: what `nodeRedisCommands`, `nodeRedisClusterCommands`
 * and `ioredisCommands` make of a client.
 */
export interface RedisCommands {
  /**
   * Sends one command (`["EVALSHA", sha, …]`); resolves with the reply,
   * rejects with the error. `key` is the one key the command reads or
   * writes, when it has one: a cluster client sends the command to the
   * master that serves the key's hash slot (docs/enforcement.md "Redis
   * Cluster"); a client of one server may ignore it.
   */
  send(command: readonly string[], key?: string): Promise<unknown>;
}
