/**
 * The hook that makes the platform's intranet hosts answer locally, with no change to the code
 * that calls them: `fetch` (the global undici dispatcher, wrapped) and `node:http`/`node:https`
 * (`http.request`, `http.get`, and so axios and every client on them: the agents'
 * `createConnection`, wrapped). A request to a host the router takes is sent to the local
 * address it gives, with its `Host` header, method, path, headers and body unchanged; one it
 * refuses fails as a connection error whose message says why. Every other request takes the
 * original path after one `endsWith` test per connection (fetch: per request), so code that
 * calls no such host pays nothing measurable.
 *
 * A routed request made while a request of this process runs (inside the pipeline's request
 * context) carries that request's trace as `traceparent`, with a span id of its own, unless the
 * caller set one: the callee's request line then shows the same trace.
 */
import type { Agent, ClientRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { requestContext } from '../log/console-capture.js';
import { ids } from '../trace/ids.js';
import { formatTraceparent } from '../trace/traceparent.js';
import { maybeIntranet } from './hosts.js';

// Builtins through process.getBuiltinModule rather than ESM imports, as in serve/http-server.ts:
// on node 24 the namespace of node:http loads undici and the web streams.
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');
const net = process.getBuiltinModule('node:net');

/**
 * Where an intranet request goes: a local address (with `connect`, a server of this process,
 * which an http agent's request reaches over an in-memory connection), or a refusal and its reason.
 */
export type IntranetRoute =
  | { readonly host: string; readonly port: number; readonly connect?: () => Duplex }
  | { readonly refuse: string };

/** Decides for each intranet request; undefined leaves it untouched. */
export type IntranetRouter = (target: {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
}) => IntranetRoute | undefined;

/**
 * The keys under which Node's fetch finds undici's dispatcher: `.1` up to Node 24 (Node 24 also
 * sets `.2`), `.2` from Node 26 (where `.1` wraps it). Each one present is wrapped.
 */
const DISPATCHERS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];

/** An undici dispatcher, as far as this hook uses one. */
interface Dispatcher {
  dispatch(options: { origin?: string | URL; headers?: unknown; [key: string]: unknown }, handler: unknown): boolean;
}

/** What the hook tells its installer. */
export interface InterceptHooks {
  /** A request was refused (once per request, with the router's reason); e.g. a log line. @default nothing */
  onRefused?(reason: string, target: Parameters<IntranetRouter>[0]): void;
  /**
   * The server of this process answering a platform host, which the installed hook tells any
   * copy of cloudfn that asks (`installedLookup`). @default none
   */
  lookup?(hostname: string): unknown;
}

/** The wrapped dispatcher's own question: who of this process answers a host (host-table.ts). */
interface Lookup {
  lookupHost?(hostname: string): unknown;
}

/**
 * What the installed hook (of whichever copy of cloudfn installed it) knows of a platform host:
 * the server of this process that answers it, or undefined.
 * @example installedLookup('ws-push.dyc.ivolces.com')
 */
export function installedLookup<T>(hostname: string): T | undefined {
  for (const key of DISPATCHERS) {
    const found = (slot(key) as Lookup | undefined)?.lookupHost?.(hostname);
    if (found !== undefined) return found as T;
  }
  return undefined;
}

/** The error a refused request fails with (as a connection error, e.g. fetch's `cause`). */
export class IntranetRefusedError extends Error {
  readonly code = 'CLOUDFN_INTRANET_REFUSED';
}

const slot = (key: symbol): Dispatcher | undefined =>
  (globalThis as Record<symbol, unknown>)[key] as Dispatcher | undefined;

/** The dispatchers there are; Node 20 makes its one on the first fetch, so one fetch to a local socket makes it now. */
async function globalDispatchers(): Promise<Array<[symbol, Dispatcher]>> {
  if (DISPATCHERS.every((key) => slot(key) === undefined)) {
    const server = http.createServer((_req, res) => res.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } })).arrayBuffer();
    } finally {
      server.close();
    }
  }
  return DISPATCHERS.flatMap((key) => {
    const found = slot(key);
    return found === undefined ? [] : [[key, found] as [symbol, Dispatcher]];
  });
}

/** The `traceparent` of a call made now: a child of the running request's span, or undefined outside one. */
function currentTraceparent(): string | undefined {
  const x = requestContext.getStore();
  return x === undefined ? undefined : formatTraceparent(x.traceId, ids.spanId(), (x.traceFlags & 1) === 1);
}

/** `headers` with `host` set, and `traceparent` added when there is one and the caller set none. */
function withHost(headers: unknown, host: string): unknown {
  const traceparent = currentTraceparent();
  if (headers === undefined || headers === null) return traceparent === undefined ? { host } : { host, traceparent };
  if (Array.isArray(headers)) {
    const out: unknown[] = [];
    let traced = false;
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = String(headers[i]).toLowerCase();
      if (name === 'traceparent') traced = true;
      if (name !== 'host') out.push(headers[i], headers[i + 1]);
    }
    return [...out, 'host', host, ...(traced || traceparent === undefined ? [] : ['traceparent', traceparent])];
  }
  const entries =
    typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function'
      ? [...(headers as Iterable<[string, string]>)]
      : Object.entries(headers as Record<string, string>);
  const kept = entries.filter(([name]) => name.toLowerCase() !== 'host');
  const traced = kept.some(([name]) => name.toLowerCase() === 'traceparent');
  return {
    ...Object.fromEntries(kept),
    host,
    ...(traced || traceparent === undefined ? {} : { traceparent }),
  };
}

function refusedSocket(reason: string): Socket {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(new IntranetRefusedError(reason)));
  return socket;
}

type CreateConnection = (this: Agent, options: Record<string, unknown>, callback?: unknown) => Socket;
type AddRequest = (this: Agent, req: ClientRequest, options: Record<string, unknown>) => void;

/** Adds the running request's `traceparent` to an outgoing request whose head is not yet written. */
function addTraceparent(req: ClientRequest): void {
  if (req.headersSent || (req as unknown as { _header: unknown })._header) return;
  if (req.getHeader('traceparent') !== undefined) return;
  const traceparent = currentTraceparent();
  if (traceparent !== undefined) req.setHeader('traceparent', traceparent);
}

/**
 * Turns the hook on; returns the function that turns it off (restoring exactly what was there).
 * The host table (host-table.ts) alone turns it on, with its one router, while it holds anything.
 * @example
 * const router: IntranetRouter = ({ hostname }) =>
 *   hostname === 'ws-push.dyc.ivolces.com' ? { host: '127.0.0.1', port: 8000 } : undefined;
 */
export async function interceptIntranet(router: IntranetRouter, hooks: InterceptHooks = {}): Promise<() => void> {
  const refuse = (reason: string, target: Parameters<IntranetRouter>[0]): void => hooks.onRefused?.(reason, target);
  const wrapped = (await globalDispatchers()).map(([key, original]) => {
    const wrapper = Object.create(original) as Dispatcher & Lookup;
    // Asked by a copy of cloudfn that did not install the hook; an older hook's answer otherwise.
    wrapper.lookupHost = (hostname) =>
      hooks.lookup?.(hostname) ?? (original as Dispatcher & Lookup).lookupHost?.(hostname);
    wrapper.dispatch = (options, handler) => {
      const origin = options.origin === undefined ? undefined : new URL(String(options.origin));
      if (origin === undefined || !maybeIntranet(origin.hostname)) return original.dispatch(options, handler);
      const protocol = origin.protocol === 'https:' ? 'https:' : 'http:';
      const port = origin.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(origin.port);
      const route = router({ protocol, hostname: origin.hostname, port });
      if (route === undefined) return original.dispatch(options, handler);
      // Thrown from dispatch, fetch rejects with TypeError('fetch failed', { cause }) on every Node.
      if ('refuse' in route) {
        refuse(route.refuse, { protocol, hostname: origin.hostname, port });
        throw new IntranetRefusedError(route.refuse);
      }
      return original.dispatch(
        { ...options, origin: `http://${route.host}:${route.port}`, headers: withHost(options.headers, origin.host) },
        handler,
      );
    };
    (globalThis as Record<symbol, unknown>)[key] = wrapper;
    return { key, original, wrapper };
  });

  const patched: Array<[Agent, CreateConnection, AddRequest]> = [];
  for (const [agent, protocol] of [
    [http.Agent.prototype, 'http:'],
    [https.Agent.prototype, 'https:'],
  ] as const) {
    const slots = agent as unknown as { createConnection: CreateConnection; addRequest: AddRequest };
    const create = slots.createConnection;
    const add = slots.addRequest;
    patched.push([agent, create, add]);
    // The request itself is seen only here, before its socket is made: where its trace is added.
    slots.addRequest = function (req, options) {
      const hostname = String(options['host'] ?? options['hostname'] ?? '');
      if (maybeIntranet(hostname)) {
        const port = Number(options['port'] ?? (protocol === 'https:' ? 443 : 80));
        const route = router({ protocol, hostname, port });
        if (route !== undefined && !('refuse' in route)) addTraceparent(req);
      }
      return add.call(this, req, options);
    };
    (agent as unknown as { createConnection: CreateConnection }).createConnection = function (options, callback) {
      const hostname = String(options['host'] ?? options['hostname'] ?? '');
      if (!maybeIntranet(hostname)) return create.call(this, options, callback);
      const port = Number(options['port'] ?? (protocol === 'https:' ? 443 : 80));
      const route = router({ protocol, hostname, port });
      if (route === undefined) return create.call(this, options, callback);
      if ('refuse' in route) {
        refuse(route.refuse, { protocol, hostname, port });
        return refusedSocket(route.refuse);
      }
      // A server of this process: in memory. Else plain TCP to the stand-in, also for an https
      // agent's request the router takes.
      return (route.connect?.() as Socket | undefined) ?? net.createConnection({ host: route.host, port: route.port });
    };
  }
  return () => {
    for (const { key, original, wrapper } of wrapped)
      if (slot(key) === wrapper) (globalThis as Record<symbol, unknown>)[key] = original;
    for (const [agent, create, add] of patched) Object.assign(agent, { createConnection: create, addRequest: add });
  };
}
