/**
 * The health path of a server: `GET /_cloudfn/health` answers 200 while the server takes
 * requests and 503 once it is shutting down, so a load balancer or Knative stops sending
 * traffic before the process exits. It is answered before routing and never logged (probes
 * every few seconds would drown the request log). No function can be served there: names
 * starting with `_` are never functions, and `/_cloudfn/` is also where `cloudfn dev` keeps
 * its console.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunningServer } from '../../runtime/start.js';

/** The default health path; `CLOUDFN_HEALTH_PATH` changes it, `off` turns it off. */
export const DEFAULT_HEALTH_PATH = '/_cloudfn/health';

/**
 * Reads the health path from the environment.
 * @example healthPathFrom(process.env) // '/_cloudfn/health'
 */
export function healthPathFrom(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.CLOUDFN_HEALTH_PATH?.trim();
  if (value === undefined || value === '') return DEFAULT_HEALTH_PATH;
  if (value === 'off') return undefined;
  if (!value.startsWith('/')) throw new TypeError(`CLOUDFN_HEALTH_PATH must be a path starting with "/" (or "off"), got ${JSON.stringify(value)}`);
  return value;
}

/**
 * Answers `path` on a running server before its functions see the request.
 * @example answerHealth(await serve(functions), '/_cloudfn/health')
 */
export function answerHealth(running: RunningServer, path: string): void {
  const { server, app } = running;
  // serve() installed the app's listener; put the health check in front of it. This runs in the
  // same turn as listen()'s callback, before any connection is read, so no request is missed.
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if ((url === path || url.startsWith(path + '?')) && (req.method === 'GET' || req.method === 'HEAD')) {
      const closing = app.closing;
      const body = JSON.stringify({ status: closing ? 'closing' : 'ok', inflight: app.inflight });
      res.writeHead(closing ? 503 : 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...(closing ? { connection: 'close' } : {}) });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}
