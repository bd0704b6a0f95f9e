/**
 * What keeps a Node 14 process alive after a check's answers: the sockets, servers and child
 * processes of `process._getActiveHandles()`, and the timers an async hook saw made and not yet
 * done (Node 14 lists no timers there). Runs inside the harness, under Node 14.
 */
import { createHook } from 'node:async_hooks';

interface TimerLike {
  hasRef?(): boolean;
  _idleTimeout?: number;
  _repeat?: number | null;
  _destroyed?: boolean;
}

/** Well-known ports, to name what a socket talks to. */
const PORTS: Record<number, string> = { 6379: 'Redis', 3306: 'MySQL', 27017: 'MongoDB', 5432: 'PostgreSQL' };

/** The components' addresses the check set (`REDIS_ADDRESS=127.0.0.1:6380`), by `host:port`. */
function componentAddresses(): Map<string, string> {
  const found = new Map<string, string>();
  for (const [variable, name] of [
    ['REDIS_ADDRESS', 'Redis'],
    ['MYSQL_ADDRESS', 'MySQL'],
  ] as const) {
    const address = process.env[variable];
    if (address) found.set(address.replace(/^localhost:/, '127.0.0.1:'), `${name}, ${variable}`);
  }
  return found;
}

/** Starts watching timers; returns the function that describes what is open now. */
export function watchOpenHandles(): () => string[] {
  const timers = new Set<TimerLike>();
  createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'Timeout') timers.add(resource as TimerLike);
    },
    destroy() {},
  }).enable();
  return () => {
    const open: string[] = [];
    const components = componentAddresses();
    for (const handle of (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles()) {
      if (handle === process.stdout || handle === process.stderr || handle === process.stdin) continue;
      const h = handle as {
        constructor: { name: string };
        remoteAddress?: string;
        remotePort?: number;
        address?: () => unknown;
        pid?: number;
        fd?: number;
      };
      const kind = h.constructor.name;
      if (kind === 'Socket' && h.remotePort !== undefined) {
        const what = components.get(`${h.remoteAddress}:${h.remotePort}`) ?? PORTS[h.remotePort];
        open.push(`a socket to ${h.remoteAddress}:${h.remotePort}${what === undefined ? '' : ` (${what})`}`);
      } else if (kind === 'Socket' && (h.fd === 0 || h.fd === 1 || h.fd === 2)) continue;
      else if (kind === 'Server') {
        const address = h.address?.() as { port?: number } | null | undefined;
        open.push(`a server listening${address?.port === undefined ? '' : ` on port ${address.port}`}`);
      } else if (kind === 'ChildProcess') open.push(`a child process${h.pid === undefined ? '' : ` (pid ${h.pid})`}`);
      else open.push(`a ${kind}`);
    }
    for (const timer of timers) {
      if (timer._destroyed === true || timer.hasRef?.() !== true) continue;
      const ms = timer._idleTimeout ?? 0;
      if (ms < 0) continue;
      open.push(timer._repeat ? `a setInterval of ${ms} ms` : `a setTimeout of ${ms} ms`);
    }
    return open;
  };
}
