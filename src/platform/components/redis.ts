/**
 * `components.redis: true`: a redis-server for the session, its data in `<dir>/redis/` (an
 * append-only file, so every write survives a restart), listening on 127.0.0.1 only, with the
 * account of account.ts as its one user (the default user is off, so code that forgets
 * `REDIS_USERNAME`/`REDIS_PASSWORD` fails here as it would on the platform).
 */
import { join } from 'node:path';
import { createComponentError } from './errors.js';
import type { LocalServer } from './running.js';
import { installed, spawnServer } from './server-process.js';
import { exampleUrl } from './settings.js';

export const REDIS_INSTALL = 'apt-get install redis-server, or brew install redis';

export const redisServer: LocalServer = {
  name: 'redis',
  check() {
    if (!installed('redis-server'))
      throw createComponentError(
        'CLOUDFN_COMPONENT_NOT_INSTALLED',
        'redis',
        'redis-server',
        REDIS_INSTALL,
        exampleUrl('redis'),
      );
  },
  url: (account, port) => `redis://${account.user}:${encodeURIComponent(account.password)}@127.0.0.1:${port}`,
  start: (dir, account, port, times) =>
    spawnServer(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no'],
        ...['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''],
        ...['--user', 'default', 'off'],
        ...['--user', account.user, 'on', `>${account.password}`, '~*', '&*', '+@all'],
      ],
      { port, log: join(dir, 'redis.log'), timeoutMs: times.startMs },
    ),
};
