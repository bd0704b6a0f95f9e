/**
 * Where a push call goes locally. `cloudfn dev` sets `CLOUDFN_WS_PUSH_URL` to its own push API
 * (`http://127.0.0.1:<port>/_cloudfn/ws-push`); `cloudfn/testing` sets it to `memory:<id>`, a
 * gateway of this process reached without a socket. This file keeps those in-process gateways
 * (process-wide by nature: the function under test and its test share the process, and
 * `Symbol.for` finds the same table when two copies of cloudfn are loaded) and sends the stand-in's
 * `openApiInvoke` calls of the push hosts to whichever the variable names.
 */
import type { PushAnswer, PushRequest } from './push-api.js';
import { PUSH_HOSTS } from './names.js';

type PushHandler = (request: PushRequest) => PushAnswer;

const REGISTRY = Symbol.for('cloudfn.gateway.memoryPush');

function registry(): Map<string, PushHandler> {
  const holder = globalThis as { [REGISTRY]?: Map<string, PushHandler> };
  return (holder[REGISTRY] ??= new Map());
}

/**
 * Makes a push handler reachable as `memory:<id>`; returns how to remove it.
 * @example const remove = registerMemoryPush('t1', (req) => handlePush(gateway, req)); process.env.CLOUDFN_WS_PUSH_URL = 'memory:t1'
 */
export function registerMemoryPush(id: string, handler: PushHandler): () => void {
  registry().set(id, handler);
  return () => void registry().delete(id);
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
 * parsed envelope.
 * @example await sendPush('http://127.0.0.1:8000/_cloudfn/ws-push', { method: 'POST', path: '/ws/push_data', headers, body })
 */
export async function sendPush(base: string, request: PushRequest): Promise<unknown> {
  if (base.startsWith('memory:')) {
    const handler = registry().get(base.slice('memory:'.length));
    if (handler === undefined)
      throw new Error(`CLOUDFN_WS_PUSH_URL is ${base}, but that in-process gateway was closed; open a new one`);
    return handler(request).body;
  }
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
