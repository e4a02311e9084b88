// This module is browser compatible.
/**
 * The one thing the Redis store needs from a Redis client.
 *
 * @module
 */

/** Sends Redis commands: what `nodeRedisCommands` and `ioredisCommands` make of a client. */
export interface RedisCommands {
  /** Sends one command (`["EVALSHA", sha, …]`); resolves with the reply, rejects with the error. */
  send(command: readonly string[]): Promise<unknown>;
}
