/**
 * The Redis client in bundles: `ioredis`, imported by src/fleet/client-module.ts, goes into a
 * chunk read only when a Redis setting is used, so the image built from a project's
 * Dockerfile serves a fleet as built. When it is not installed where the build runs, the
 * import stays external and the build warns once: such a bundle refuses to start with a Redis
 * setting (src/fleet/preflight.ts), rather than answer 500.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

/** Whether `ioredis` resolves from `dir` the way Node (and esbuild) look it up. */
function resolvable(dir: string): boolean {
  try {
    createRequire(join(dir, 'noop.js')).resolve('ioredis');
    return true;
  } catch {
    return false;
  }
}

/**
 * The esbuild plugin; `warn` is called at most once per build.
 * @example build({ ..., plugins: [redisClient((m) => warnings.push(m))] })
 */
export function redisClient(warn: (message: string) => void): Plugin {
  let warned = false;
  return {
    name: 'cloudfn-redis-client',
    setup(build) {
      // Node's resolver rather than build.resolve, which, called from here beside the other
      // plugins' resolve calls, never settled (the build hung).
      build.onResolve({ filter: /^ioredis$/ }, (args) => {
        if (resolvable(args.resolveDir)) return undefined;
        if (!warned) {
          warned = true;
          warn(
            'ioredis is not installed, so the bundles do not carry the Redis client: with CLOUDFN_REDIS_URL or REDIS_ADDRESS set they refuse to start (FLEET_NO_CLIENT); npm install ioredis before building to share state across instances',
          );
        }
        return { path: args.path, external: true };
      });
    },
  };
}
