/**
 * The live-room simulator as a local service of `cloudfn dev` (its extension): the rooms and
 * their data tasks, whose pushes reach `liveData.path` through the app's pipeline in memory
 * (runtime/serve/inject.ts) with the platform's headers and a fresh `x-tt-logid` (which the dev
 * server, trusting the gateway, adopts as the request's logid); the routes under
 * `${CLOUDFN_PREFIX}/live/` (dev-routes.ts) and the webcast hosts (`webcast.bytedance.com`), which the
 * stand-in's `openApiInvoke` of the task calls finds in the process's host table.
 */
import { SERVICE_CONFIG_KEYS } from '../../config/config-keys.js';
import type { Server } from 'node:http';
import { generateLogid } from '../../../runtime/log/logid.js';
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { markSocketTrigger } from '../../../runtime/request/socket-trigger.js';
import { inject } from '../../../runtime/serve/inject.js';
import type { ServiceContext, ServiceExtension } from '../../local-service.js';
import { readSdkOptions } from '../sdk/sdk-options.js';
import { type LiveDataConfig, readLiveDataConfig } from './config.js';
import { liveRoute } from './dev-routes.js';
import { LiveRooms } from './rooms.js';
import { RoomsStore, roomsFile } from './task-store.js';

/** The live rooms' extension, and the rooms once `prepare` ran. */
export interface LiveExtension extends ServiceExtension {
  rooms(): LiveRooms | undefined;
}

/**
 * The live rooms' extension for one dev server. The room's anchor is the dev user's room's
 * anchor when it has one, as start_game reads it.
 * @example const extensions = [liveService(context)]
 */
export function liveService(context: ServiceContext): LiveExtension {
  let rooms: LiveRooms | undefined;
  let config: LiveDataConfig | undefined;
  let server: Server | undefined;
  // The anchor's own WebSocket names its room's anchor (the gateway tells it).
  context.onPublished('ws-room', (room) => rooms?.claimFrom(room));
  // One handler for the route and the hosts: their traffic runs and tokens are the same.
  let handler: RouteHandler | undefined;
  const route = (): RouteHandler => (handler ??= liveRoute({ rooms: rooms!, config: () => config }));
  return {
    name: 'live',
    configKeys: SERVICE_CONFIG_KEYS.live,
    rooms: () => rooms,
    prepare(app) {
      // A bad liveData stops start-up here, naming the key.
      config = readLiveDataConfig(context.config);
      rooms = new LiveRooms({
        // Kept beside the database the SDK stand-in uses, so a restart keeps the tasks with the rooms.
        store: new RoomsStore(roomsFile(readSdkOptions().dataDir)),
        config: () => config,
        defaultAnchor: context.devUser.anchorOpenid ?? context.devUser.openid,
        deliver: async (push) => {
          // Through the running server, marked as its own request: the platform's push carries
          // no caller headers, so the dev user's are not added (runtime/serve/dispatch.ts).
          if (server === undefined) throw new Error('the dev server is not running yet; push again');
          const answer = await inject(server, {
            method: 'POST',
            path: push.path,
            headers: { ...push.headers, host: 'cloudfn.live', 'x-tt-logid': generateLogid() },
            body: push.body,
            mark: (end) => markSocketTrigger(end, app.options.trigger),
          });
          const logid = answer.headers[app.options.logidHeader];
          return {
            status: answer.status,
            logid: typeof logid === 'string' ? logid : '',
            body: answer.body.toString('utf8'),
          };
        },
      });
    },
    routes: () => ({ live: route() }),
    hosts: () => ({ webcast: route() }),
    upgrade: (running) => {
      server = running;
    },
    close() {
      rooms?.stopAll();
    },
  };
}
