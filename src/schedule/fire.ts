/**
 * One timer firing: a POST to the function's own path, written through the app's real
 * pipeline on an in-memory connection marked `timer` (runtime/request/socket-trigger.ts), so
 * the handler gets `service.trigger === 'timer'`, the request has a logid, limits, timeout,
 * metrics and the usual request line, and no port or network is involved.
 */
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { markSocketTrigger } from '../../runtime/request/socket-trigger.js';
import { memoryConnection } from '../memory-connection.js';

/** The params a timer-fired handler receives (the JSON body of its POST). */
export interface TimerEvent {
  /** Always `timer`, as `service.trigger`. */
  trigger: 'timer';
  /** The function's `config.schedule`. */
  schedule: string;
  /** The time the firing was due, ISO 8601 in UTC (for `manual`, the time it was asked for). */
  scheduledTime: string;
  /** True when fired on demand (`cloudfn trigger`, the console's button), false on schedule. */
  manual: boolean;
}

/** What a firing answered. */
export interface FireResult {
  status: number;
  /** The logid of the request the firing made. */
  logid: string;
  /** The response body as text. */
  body: string;
}

/**
 * Sends one timer request to `name` through `server` (an http server of the app, listening or not).
 * @example await fireTimer(server, 'cleanup', { trigger: 'timer', schedule, scheduledTime, manual: false }, 'x-platform-logid')
 */
export function fireTimer(server: Server, name: string, event: TimerEvent, logidHeader: string): Promise<FireResult> {
  const [client, serverEnd] = memoryConnection();
  markSocketTrigger(serverEnd, 'timer');
  server.emit('connection', serverEnd);
  const body = JSON.stringify(event);
  return new Promise<FireResult>((resolve, reject) => {
    const req = httpRequest(
      {
        createConnection: () => client as never,
        method: 'POST',
        path: name === 'index' ? '/' : `/${name.split('/').map(encodeURIComponent).join('/')}`,
        headers: {
          host: 'cloudfn.timer',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'cloudfn-timer',
        },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            logid: String(res.headers[logidHeader] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  }).finally(() => client.destroy());
}
