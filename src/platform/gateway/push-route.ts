/**
 * The push API over HTTP, as one handler of a gateway's extension: its route under the dev
 * server's prefix (`ws-push`) and its hosts (`ws-push.dyc.ivolces.com`,
 * `ws-push.dycloud-api.service`), which a function's plain `fetch` reaches through the intranet
 * hook and the SDK stand-in's `openApiInvoke` in process (runtime/intranet/host-table.ts).
 */
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { readBodyUpTo, sendJson } from '../../../runtime/serve/hook-io.js';
import { failure } from './envelope.js';
import type { Gateway } from './gateway.js';
import { handlePush } from './push-api.js';

/** The largest push body read, as the runtime's default body limit. */
const MAX_PUSH_BODY = 10 * 1024 * 1024;

/**
 * The handler answering the push API of `gateway()` (undefined until the server exists).
 * @example const push = pushRoute(() => gateway); const extension = { name: 'gateway', routes: () => ({ 'ws-push': push }) }
 */
export function pushRoute(gateway: () => Gateway | undefined): RouteHandler {
  return (req, res, path) => {
    const bound = gateway();
    // The routes are read before the server exists; a request comes only once it does.
    if (bound === undefined) return sendJson(res, 503, failure(50300, 'the gateway is not running yet; retry'));
    void readBodyUpTo(req, MAX_PUSH_BODY).then(
      async (body) => {
        if (body === undefined)
          return sendJson(res, 413, failure(41300, `the body is larger than ${MAX_PUSH_BODY} bytes; send less`));
        try {
          const answer = await handlePush(bound, { method: req.method ?? 'GET', path, headers: req.headers, body });
          sendJson(res, answer.status, answer.body);
        } catch (error) {
          // The directory could not answer (another process's, Redis): the caller may retry.
          const detail = error instanceof Error ? error.message : String(error);
          sendJson(res, 503, failure(50300, `the gateway's session directory failed: ${detail}; retry`));
        }
      },
      (error: unknown) => sendJson(res, 400, failure(40000, error instanceof Error ? error.message : String(error))),
    );
  };
}
