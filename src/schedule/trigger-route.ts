/**
 * Firing a scheduled function on demand over HTTP: `POST ${CLOUDFN_PREFIX}/trigger/<function>` runs
 * it now as its timer would (`trigger: 'timer'`, its params as the body, `x-cloudfn-manual: true`)
 * and answers `{ function, status, logid, body, cut }`, the firing's own answer inside. `cloudfn trigger` and
 * the console's buttons call it. It exists under `cloudfn dev`, and under `cloudfn start` only
 * with `--trigger-endpoint` (anyone who reaches the port could fire the timers otherwise).
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler } from '../../runtime/serve/extension.js';
import { sendJson, sendJsonError } from '../../runtime/serve/hook-io.js';
import { createScheduleError } from './errors.js';
import type { Scheduler } from './scheduler.js';
import type { TriggerAnswer } from './protocol.js';

/** Where the endpoint lives; the function's name follows. */
export const TRIGGER_PREFIX = `${CLOUDFN_PREFIX}/trigger/`;

/**
 * The trigger endpoint's route (`trigger` under the prefix): `path` is `/<function>[?…]`.
 * @example const extension = { name: 'timers', routes: () => ({ trigger: triggerRoute(scheduler) }) }
 */
export function triggerRoute(scheduler: Scheduler): RouteHandler {
  return (req: IncomingMessage, res: ServerResponse, path: string) => {
    const q = path.indexOf('?');
    const raw = path.slice(1, q === -1 ? undefined : q);
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    if (req.method !== 'POST') {
      sendJsonError(res, createScheduleError('CLOUDFN_TRIGGER_METHOD', req.method ?? ''), { allow: 'POST' });
      return;
    }
    // The body, if any, is not read: drain it so the connection stays usable.
    req.resume();
    scheduler.fire(name).then(
      (result) =>
        sendJson(res, 200, {
          function: name,
          status: result.status,
          logid: result.logid,
          body: result.body,
          cut: result.cut,
        } satisfies TriggerAnswer),
      (error: unknown) => sendJsonError(res, error),
    );
  };
}

/** Declared in the console's protocol, which the page imports too. */
