/**
 * What `cloudfn dev` adds to the runtime's server before routing (after the health and metrics
 * paths): the dev user's headers, the trigger endpoint, the live-room simulator and its push
 * API, the WebSocket push API, the OpenAPI document, the console, and the wait for a save being
 * applied; and the live rooms, whose pushes go into the app in memory.
 */
import type { App } from '../../runtime/app.js';
import { generateLogid } from '../../runtime/log/logid.js';
import type { DevUser } from '../../runtime/options.js';
import { type BeforeHook, createHttpServer } from '../../runtime/serve/http-server.js';
import { inject } from '../../runtime/serve/inject.js';
import type { readLiveDataConfig } from '../platform/live/config.js';
import { liveHook } from '../platform/live/dev-routes.js';
import { LiveRooms } from '../platform/live/rooms.js';
import type { Scheduler } from '../schedule/scheduler.js';
import { triggerHook } from '../schedule/trigger-route.js';
import type { ConsoleAssets } from './console/assets.js';
import type { EventHub } from './console/event-hub.js';
import { createConsoleHandler, isConsolePath } from './console/routes.js';
import { openApiHook } from './contract.js';
import { devUserHook } from './dev-user.js';
import type { Reloader } from './reloader.js';
import type { DevGateway } from './ws-gateway.js';

/**
 * The request header the dev server trusts to set `service.trigger` (the runtime's
 * `triggerHeader` option); the console page sends `console_debug` in it. `cloudfn start`
 * trusts no such header unless configured to.
 */
export const DEV_TRIGGER_HEADER = 'x-cloudfn-trigger';

/** What the dev server's hooks before routing read. */
export interface DevHooksOptions {
  app: App;
  root: string;
  loader: Reloader;
  hub: EventHub;
  scheduler: Scheduler;
  live: ReturnType<typeof startLiveRooms>;
  devUser: DevUser;
  ws: () => DevGateway | undefined;
  assets: () => Promise<ConsoleAssets>;
}

/**
 * The hooks the dev server adds before routing, after the health and metrics paths: the dev
 * user's headers, the trigger endpoint, the live-room and push APIs, the OpenAPI document, the
 * console, and, while a save is being applied, the wait for it.
 */
export function devHooks(options: DevHooksOptions): BeforeHook[] {
  const { app, loader, scheduler, live } = options;
  const consoleHandler = createConsoleHandler({
    app,
    hub: options.hub,
    functions: () => loader.list(),
    schedules: () => scheduler.list(),
    assets: options.assets,
    triggerHeader: DEV_TRIGGER_HEADER,
    devUser: options.devUser,
    connections: () => options.ws()?.gateway.sessions() ?? [],
  });
  return [
    devUserHook(options.devUser),
    triggerHook(scheduler),
    liveHook({ rooms: live, config: () => live.config }),
    (req, res) => options.ws()?.pushHook(req, res) ?? false,
    openApiHook(app, options.root),
    (req, res) => {
      if (!isConsolePath(req.url ?? '/')) return false;
      consoleHandler(req, res);
      return true;
    },
    (req, res) => {
      const pending = loader.pending;
      if (pending === undefined) return false;
      // A save is being applied: this request runs the saved code, not the old one.
      void pending.then(() => app.handle(req, res));
      return true;
    },
  ];
}

/**
 * The live rooms of a dev server: pushes go into the app in memory, through a server without
 * the dev server's hooks (the platform's push carries no caller headers), each with a fresh
 * `x-tt-logid`, which the dev server (trusting the gateway) adopts as the request's logid.
 */
export function startLiveRooms(
  app: App,
  config: ReturnType<typeof readLiveDataConfig>,
  anchor: string,
): LiveRooms & { config: typeof config } {
  const server = createHttpServer(app);
  const rooms = new LiveRooms({
    config: () => config,
    defaultAnchor: anchor,
    deliver: async (push) => {
      const answer = await inject(server, {
        method: 'POST',
        path: push.path,
        headers: { ...push.headers, host: 'cloudfn.live', 'x-tt-logid': generateLogid() },
        body: push.body,
      });
      const logid = answer.headers[app.options.logidHeader];
      return {
        status: answer.status,
        logid: typeof logid === 'string' ? logid : '',
        body: answer.body.toString('utf8'),
      };
    },
  });
  app.onShutdown(() => server.closeAllConnections());
  return Object.assign(rooms, { config });
}
