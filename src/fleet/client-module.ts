/**
 * The Redis client's module (ioredis): the one place that loads it. `cloudfn build` bundles it
 * into a chunk read only when a Redis setting is used, so an image built from the project's
 * Dockerfile carries it without a step of its own; when it was not installed at build time
 * the build says so and the import fails here, with the same message wherever it is asked.
 */
import { createFleetError } from './errors.js';
import type { RedisLike } from './settings.js';

/** What this project uses of ioredis' module. */
export interface RedisClientModule {
  default: new (
    url: string,
    options: Record<string, unknown>,
  ) => RedisLike & {
    on(event: string, listener: (...args: unknown[]) => void): unknown;
    quit(): Promise<unknown>;
    disconnect(): void;
  };
}

/**
 * Imports the Redis client, or rejects with FLEET_NO_CLIENT naming `source` (the setting that
 * asked for it, e.g. `CLOUDFN_REDIS_URL`) and the fix.
 * @example const { default: Redis } = await loadRedisClientModule('CLOUDFN_REDIS_URL')
 */
export async function loadRedisClientModule(source: string): Promise<RedisClientModule> {
  try {
    return (await import('ioredis')) as unknown as RedisClientModule;
  } catch (error) {
    throw createFleetError('FLEET_NO_CLIENT', source, (error as Error).message.split('\n')[0] ?? 'not found');
  }
}
