/**
 * A running server's place in the process's host table (intranet/host-table.ts): the platform
 * hosts its extensions declare (`ws-push`, `webcast`), with how to reach it in memory (a
 * connection through node's own parser, memory-connection.ts) and over loopback. Imported by
 * `serve()` only when an extension declares hosts, and by the in-memory server.
 */
import type { Server } from 'node:http';
import type { App } from '../app.js';
import type { Extension } from './extension.js';
import { serveHosts } from '../intranet/host-table.js';
import { memoryConnection } from './memory-connection.js';

/**
 * Adds `server` as the answer to the platform hosts `kinds`; resolves with how to remove it.
 * @example const remove = await addServedHosts(app, server, ['ws-push'], 8000)
 */
export function addServedHosts(
  app: App,
  server: Server,
  kinds: readonly string[],
  port: number,
): Promise<() => Promise<void>> {
  // A server on every address is reached on loopback; one on a given address, there.
  const bound = app.options.host;
  return serveHosts(kinds, {
    app,
    server,
    host: bound === undefined || bound === '' || bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound,
    port,
    connect: () => {
      const [client, serverEnd] = memoryConnection();
      server.emit('connection', serverEnd);
      return client;
    },
  });
}

/**
 * Adds `server` as the answer to the platform hosts `extensions` declare (the client gateway,
 * reached by its header, is not a host of the table); resolves with how to remove them, or
 * undefined when they declare none. `port` is where fetch reaches it (9, refused, for a server
 * that never listens).
 * @example const remove = await addExtensionHosts(app, server, extensions, 8000)
 */
export function addExtensionHosts(
  app: App,
  server: Server,
  extensions: readonly Extension[],
  port: number,
): Promise<() => Promise<void>> | undefined {
  const kinds = extensions.flatMap((extension) =>
    Object.keys(extension.hosts?.(app) ?? {}).filter((kind) => kind !== 'gateway'),
  );
  return kinds.length === 0 ? undefined : addServedHosts(app, server, kinds, port);
}
