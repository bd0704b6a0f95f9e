/**
 * Where a push call goes locally. A gateway of this process registers its push API under a
 * base: `cloudfn dev` under its own URL (`http://127.0.0.1:<port>/_cloudfn/ws-push`, which
 * `CLOUDFN_WS_PUSH_URL` names), `cloudfn/testing` as `memory:<id>`. A push to a registered base
 * is answered in process, without a socket; any other base is fetched (a gateway of another
 * process). This file keeps the registered gateways (process-wide by nature: the function and
 * the server share the process, and `Symbol.for` finds the same table when two copies of
 * cloudfn are loaded) and sends the stand-in's `openApiInvoke` calls of the push hosts to
 * whichever the variable names.
 */
import type { PushAnswer, PushRequest } from './push-api.js';
import { PUSH_HOSTS } from './names.js';

type PushHandler = (request: PushRequest) => PushAnswer;

const REGISTRY = Symbol.for('cloudfn.gateway.memoryPush');

function registry(): Map<string, PushHandler> {
  const holder = globalThis as { [REGISTRY]?: Map<string, PushHandler> };
  return (holder[REGISTRY] ??= new Map());
}

/** A base as the registry keys it: without trailing slashes; a bare id is `memory:<id>`. */
const keyOf = (base: string): string => (base.includes(':') ? base.replace(/\/+$/, '') : `memory:${base}`);

/**
 * Makes a push handler reachable in process at `base` (an id, reached as `memory:<id>`, or the
 * push API's URL); returns how to remove it.
 * @example const remove = registerMemoryPush('t1', (req) => handlePush(gateway, req)); process.env.CLOUDFN_WS_PUSH_URL = 'memory:t1'
 */
export function registerMemoryPush(base: string, handler: PushHandler): () => void {
  const key = keyOf(base);
  registry().set(key, handler);
  return () => {
    if (registry().get(key) === handler) registry().delete(key);
  };
}

/**
 * True when `url` names one of the platform's push hosts (`ws-push.dyc.ivolces.com`,
 * `ws-push.dycloud-api.service`), over http or https.
 * @example isPushUrl('http://ws-push.dycloud-api.service/ws/push_data') // true
 */
export function isPushUrl(url: URL): boolean {
  return (url.protocol === 'http:' || url.protocol === 'https:') && PUSH_HOSTS.includes(url.hostname);
}

/**
 * Sends one push call to the local push API at `base` (`CLOUDFN_WS_PUSH_URL`) and answers the
 * parsed envelope: in process when a gateway of this process is registered there, else by fetch.
 * @example await sendPush('http://127.0.0.1:8000/_cloudfn/ws-push', { method: 'POST', path: '/ws/push_data', headers, body })
 */
export async function sendPush(base: string, request: PushRequest): Promise<unknown> {
  const handler = registry().get(keyOf(base));
  if (handler !== undefined) return handler(request).body;
  if (base.startsWith('memory:'))
    throw new Error(`CLOUDFN_WS_PUSH_URL is ${base}, but that in-process gateway was closed; open a new one`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  const response = await fetch(base.replace(/\/+$/, '') + request.path, {
    method: request.method,
    headers,
    ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: new Uint8Array(request.body) }),
  });
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
