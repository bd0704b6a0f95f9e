/**
 * The one table of which platform host goes where in this process, and the one intranet hook
 * that reads it (intercept.ts, installed while the table holds anything): the hosts the
 * extensions of a running server stand in for (`ws-push`, `webcast`: `serve()` adds them from
 * their `hosts`), and the inner-call tables (`cloudfn dev`'s services, a fleet's
 * `innerCallUrls`, `startServices` of cloudfn/testing). A host served by this process is
 * answered in process (an http agent's request over an in-memory connection, the SDK stand-in
 * through `inject`), with its `Host` kept; fetch reaches it over loopback TCP. As miniflare's dev
 * registry picks in process or TCP by instance, the SDK stand-in of another copy of cloudfn
 * finds the table through the installed hook (`lookupHost`).
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from '../app.js';
import { requestContext } from '../log/console-capture.js';
import { classifyHost, type IntranetHost } from './hosts.js';
import { type InnerCallTable, innerCallRoute } from './inner-call.js';
import { type IntranetRoute, interceptIntranet, type IntranetRouter, installedLookup } from './intercept.js';

/** A platform host a server of this process answers. */
export interface LocalHost {
  /** The server, for an in-process request (`inject`). */
  readonly server: Server;
  /** Where it listens, for fetch. */
  readonly host: string;
  readonly port: number;
  /** A new in-memory connection to it. */
  connect(): Duplex;
}

interface HostEntry extends LocalHost {
  readonly kinds: readonly string[];
  readonly app: App;
}

interface InnerCallEntry {
  readonly table: InnerCallTable;
  /** Only for this app's requests (and calls made outside any request); undefined: every call. */
  readonly app?: App;
  onRefused?(reason: string): void;
}

const hosts: HostEntry[] = [];
/** The entry that refused a call, by its reason, until the hook reports the refusal. */
const refusers = new Map<string, InnerCallEntry>();
const innerCalls: InnerCallEntry[] = [];
/** How many holders keep the hook on with nothing in the table yet (`holdHook`). */
let holds = 0;
let off: Promise<() => void> | undefined;

/** Whether an entry owned by `app` answers the call being made now. */
function forNow(app: App | undefined): boolean {
  if (app === undefined) return true;
  const running = requestContext.getStore();
  return running === undefined || running.host === app;
}

/** The server answering `kind` now: the running request's own app's, else the newest. */
function hostFor(kind: string): HostEntry | undefined {
  const running = requestContext.getStore()?.host;
  const all = hosts.filter((entry) => entry.kinds.includes(kind));
  return all.find((entry) => entry.app === running) ?? all.at(-1);
}

/** The one router of the one hook. */
const router: IntranetRouter = ({ protocol, hostname }) => {
  const host = classifyHost(hostname);
  if (host === undefined) return undefined;
  if (host.kind === 'inner-call') return innerCallFor(protocol, host);
  const entry = hostFor(host.kind);
  return entry === undefined ? undefined : { host: entry.host, port: entry.port, connect: entry.connect };
};

function innerCallFor(protocol: 'http:' | 'https:', host: Extract<IntranetHost, { kind: 'inner-call' }>) {
  for (const entry of [...innerCalls].reverse()) {
    if (!forNow(entry.app)) continue;
    const route: IntranetRoute | undefined = innerCallRoute(entry.table, protocol, host.pair);
    if (route === undefined) continue;
    // Told once per request, when the hook refuses it (the router is asked more often).
    if ('refuse' in route) refusers.set(route.refuse, entry);
    return route;
  }
  return undefined;
}

/** Installs the hook with the first entry; removes it with the last. */
async function changed(): Promise<void> {
  const empty = hosts.length === 0 && innerCalls.length === 0 && holds === 0;
  if (!empty && off === undefined) {
    off = interceptIntranet(router, {
      lookup: (hostname) => lookupOwn(hostname),
      onRefused: (reason) => {
        const entry = refusers.get(reason);
        refusers.delete(reason);
        entry?.onRefused?.(reason);
      },
    });
    await off;
  } else if (empty && off !== undefined) {
    const stop = off;
    off = undefined;
    (await stop)();
  }
}

/** This copy's server for a platform host, or undefined. */
function lookupOwn(hostname: string): LocalHost | undefined {
  const kind = classifyHost(hostname)?.kind;
  return kind === undefined || kind === 'inner-call' ? undefined : hostFor(kind);
}

/**
 * Adds the platform hosts a running server answers (`serve()` calls it with its extensions'
 * `hosts`); resolves with how to remove them, once the hook is on.
 * @example const remove = await serveHosts(['ws-push'], { app, server, host: '127.0.0.1', port, connect })
 */
export async function serveHosts(
  kinds: readonly string[],
  server: LocalHost & { readonly app: App },
): Promise<() => Promise<void>> {
  const entry: HostEntry = { ...server, kinds };
  hosts.push(entry);
  await changed();
  return async () => {
    const at = hosts.indexOf(entry);
    if (at !== -1) hosts.splice(at, 1);
    await changed();
  };
}

/**
 * Turns the hook on before a server adds its hosts, and keeps it on until the returned function
 * is called. For clients that copy an agent's `createConnection` when they are made (the TOS
 * SDK's agent does, in `new TosClient()`, often at a module's top level): made before the hook,
 * they would never see it, so `cloudfn dev` holds it before the functions load.
 * @example const release = await holdHook(); ... await release()
 */
export async function holdHook(): Promise<() => Promise<void>> {
  holds++;
  await changed();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holds--;
    await changed();
  };
}

/**
 * Adds an inner-call table (the services a caller reaches); resolves with how to remove it.
 * @example const remove = await addInnerCalls({ table, app, onRefused: (reason) => log(reason) })
 */
export async function addInnerCalls(entry: InnerCallEntry): Promise<() => Promise<void>> {
  const own = { ...entry };
  innerCalls.push(own);
  await changed();
  return async () => {
    const at = innerCalls.indexOf(own);
    if (at !== -1) innerCalls.splice(at, 1);
    await changed();
  };
}

/**
 * The server of this process that answers a platform host (`ws-push.dyc.ivolces.com`,
 * `webcast.bytedance.com`), whichever copy of cloudfn added it, or undefined.
 * @example const local = lookupHost('ws-push.dyc.ivolces.com'); if (local) await inject(local.server, request)
 */
export function lookupHost(hostname: string): LocalHost | undefined {
  return lookupOwn(hostname) ?? installedLookup(hostname);
}
