/**
 * A dev server on a temporary copy of test/fixtures/dev-project, with its log records kept in
 * memory and helpers to edit files and wait for the reload they cause.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogRecord } from '../../runtime/log/record.js';
import { startDevServer, type DevServer, type DevServerOptions } from '../../src/dev/index.js';
import type { Gateway } from '../../src/platform/gateway/gateway.js';
import type { GatewayExtension } from '../../src/platform/gateway/service.js';

export const FIXTURE = fileURLToPath(new URL('../fixtures/dev-project', import.meta.url));

export interface DevProject {
  root: string;
  dev: DevServer;
  records: LogRecord[];
  /** Writes a file under the root (creating folders). */
  write(path: string, text: string): void;
  remove(path: string): void;
  rename(from: string, to: string): void;
  /** Resolves with the first record from now on matching `test`. */
  next(test: (record: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>;
  get(path: string, init?: RequestInit): Promise<{ status: number; text: string; json: any; headers: Headers }>;
  close(): Promise<void>;
}

/** Waits until `check` returns a value other than undefined. */
export async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function startProject(
  options: Partial<DevServerOptions> = {},
  fixture = FIXTURE,
  start: typeof startDevServer = startDevServer,
): Promise<DevProject> {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-dev-'));
  cpSync(fixture, root, { recursive: true });
  const records: LogRecord[] = [];
  const waiters = new Set<{ test: (r: LogRecord) => boolean; resolve: (r: LogRecord) => void }>();
  const sink = {
    write(record: LogRecord) {
      records.push(record);
      for (const waiter of waiters) {
        if (waiter.test(record)) {
          waiters.delete(waiter);
          waiter.resolve(record);
        }
      }
    },
  };
  let dev: DevServer;
  try {
    dev = await start({ root, port: 0, sink, ...options });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    dev,
    records,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
    remove(path) {
      unlinkSync(join(root, path));
    },
    rename(from, to) {
      mkdirSync(dirname(join(root, to)), { recursive: true });
      renameSync(join(root, from), join(root, to));
    },
    next(test, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve: (r: LogRecord) => (clearTimeout(timer), resolve(r)) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`no matching log record within ${timeoutMs} ms; last: ${JSON.stringify(records.slice(-3))}`),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async get(path, init) {
      const res = await fetch(dev.url + path, init);
      const text = await res.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, text, json, headers: res.headers };
    },
    async close() {
      await dev.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A record the reloader writes when it (re)loaded, added or removed a function. */
export function reloadEvent(event: 'reloaded' | 'added' | 'removed', name: string): (r: LogRecord) => boolean {
  return (r) => r['event'] === event && r['name'] === name;
}

/** A record the reloader writes when a function failed to compile or load. */
export function failure(name: string): (r: LogRecord) => boolean {
  return (r) => r.level === 'error' && r['name'] === name && typeof r['code'] === 'string';
}

/**
 * Runs `fn` with Node's own stack traces: vitest installs an Error.prepareStackTrace, which
 * turns off Node's source maps; a dev server's process has none.
 */
export async function withNodeStacks<T>(fn: () => Promise<T>): Promise<T> {
  const holder = Error as { prepareStackTrace?: unknown };
  const own = holder.prepareStackTrace;
  holder.prepareStackTrace = undefined;
  try {
    return await fn();
  } finally {
    holder.prepareStackTrace = own;
  }
}

/** The WebSocket gateway of a running dev server (its extension's). */
export function gatewayOf(dev: DevServer): Gateway {
  const gateway = dev.extension<GatewayExtension>('gateway')?.gateway();
  if (gateway === undefined) throw new Error('the dev server has no WebSocket gateway');
  return gateway;
}
