/**
 * A server that never listens, for `startLiveRooms` of cloudfn/testing, which is synchronous:
 * the same App, http server and extension dispatcher as `serve()` (the
 * extensions' routes, hosts and `onRequest`, their `upgrade`), reached only in memory: through
 * `inject`, and as the answer to the platform hosts its extensions declare, in the process's
 * host table. Made at once (no port to wait for), so a helper that was synchronous stays so.
 */
import type { Server } from 'node:http';
import { App, type AppInit } from '../app.js';
import { compileDispatcher } from './dispatch.js';
import type { Extension } from './extension.js';
import { createHttpServer } from './http-server.js';
import { type InjectRequest, type InjectResponse, inject } from './inject.js';
import { addExtensionHosts } from './serve-hosts.js';

/**
 * A server of `app` without hooks that never listens: where a `Scheduler` made apart from a
 * running server (a test's, a library's) writes its firings. A server's own timers use it.
 * @example const server = appServer(app); await inject(server, { path: '/cleanup' })
 */
export function appServer(app: App): Server {
  return createHttpServer(app);
}

/** A server in memory. */
export interface InMemoryServer {
  app: App;
  server: Server;
  /** Sends one request through it, as `RunningServer.inject` does. */
  inject(request: InjectRequest): Promise<InjectResponse>;
  /** Takes its hosts out of the host table and closes its extensions, the last first. */
  close(): Promise<void>;
}

/**
 * Makes the app of `init` and its server with `extensions`, whose `prepare` must not wait.
 * @example const stand = serveInMemory({ functions: [] }, [liveExtension]); await stand.close()
 */
export function serveInMemory(init: AppInit, extensions: readonly Extension[]): InMemoryServer {
  const app = new App(init);
  for (const extension of extensions) void extension.prepare?.(app);
  const dispatcher = compileDispatcher(app, extensions);
  const server = createHttpServer(app, { before: dispatcher === undefined ? [] : [dispatcher] });
  for (const extension of extensions) extension.upgrade?.(server, app);
  // In the table at once (the stand-in finds it now), reached as serve()'s servers are; never
  // listening, a fetch of its hosts is refused by the port (9), the stand-in uses memory.
  const removing = addExtensionHosts(app, server, extensions, 9);
  return {
    app,
    server,
    inject: (request) => inject(server, request),
    async close() {
      await (await removing)?.();
      for (const extension of [...extensions].reverse()) await extension.close?.();
      server.closeAllConnections();
    },
  };
}
