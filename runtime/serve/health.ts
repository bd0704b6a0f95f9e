/**
 * The health path of a server: `GET /_cloudfn/health` (the `healthPath` option) answers 200
 * while the server takes requests and 503 once it is shutting down, so a load balancer or
 * Knative stops sending traffic before the process exits. It is answered before routing and
 * never logged (probes every few seconds would drown the request log). No function can be
 * served there: names starting with `_` are never functions, and `/_cloudfn/` is also where
 * `cloudfn dev` keeps its console.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the health answer reads of the app. */
export interface HealthSource {
  readonly closing: boolean;
  readonly inflight: number;
}

/**
 * A before-routing hook answering `path` for GET and HEAD: `{"status":"ok","inflight":n}`
 * with 200, or `{"status":"closing",...}` with 503 and `connection: close` while draining.
 * @example createHttpServer(app) // installs it when app.options.healthPath is set
 */
export function healthHook(app: HealthSource, path: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Built once: this runs ahead of every request, and most are not for it.
  const withQuery = `${path}?`;
  // Named, as every before hook is (http-server.ts's beforeHookNames).
  const health = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    if (!(url === path || url.startsWith(withQuery)) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const closing = app.closing;
    const body = JSON.stringify({ status: closing ? 'closing' : 'ok', inflight: app.inflight });
    res.writeHead(closing ? 503 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...(closing ? { connection: 'close' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
  return health;
}
