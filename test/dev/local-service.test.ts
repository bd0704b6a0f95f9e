/**
 * Adding a local service to `cloudfn dev` is one folder and one entry in a list: a service
 * defined here (a visit counter, standing for the next services of the platform), given as one
 * more entry beside LOCAL_SERVICES, gets its config key accepted, its hook answered before
 * routing, its console panel served, its variable set for the functions while it runs, and its
 * close called, with no change to the dev server, `serve()` or the console.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../runtime/log/record.js';
import { sendJson } from '../../runtime/serve/hook-io.js';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import type { LocalService } from '../../src/local-service.js';
import { LOCAL_SERVICES } from '../../src/local-services.js';
import { FIXTURE } from './project.js';

const VARIABLE = 'CLOUDFN_TEST_COUNTER_URL';
let closed = 0;

/** What a new service's folder would hold: its extension, made from the dev server's context. */
const counter: LocalService = {
  name: 'counter',
  configKeys: ['counter'],
  load: async () => (context) => {
    const start = (context.config['counter'] as { start?: number } | undefined)?.start ?? 0;
    let hits = 0;
    return {
      name: 'counter',
      routes: () => ({
        counter: (_req, res) => {
          hits++;
          sendJson(res, 200, { visits: start + hits });
        },
      }),
      env: (url) => ({ [VARIABLE]: `${url}/_cloudfn/counter` }),
      panel: { api: { counter: () => ({ hits }) }, meta: () => ({ counterStart: start }) },
      close: () => {
        closed++;
      },
    };
  },
};

const quiet = { write: (_record: LogRecord) => undefined };

function project(config: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-service-'));
  cpSync(FIXTURE, root, { recursive: true });
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify(config));
  return root;
}

describe('a local service added as one entry in the list', () => {
  const root = project({ counter: { start: 10 } });
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ root, port: 0, sink: quiet, services: [...LOCAL_SERVICES, counter] });
  });
  afterAll(async () => {
    await dev?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers its hook before routing, with its config key read', async () => {
    const res = await fetch(`${dev.url}/_cloudfn/counter`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ visits: 11 });
  });

  it('has its panel on the console: its answer and what it adds to the function list', async () => {
    expect(await (await fetch(`${dev.url}/_cloudfn/api/counter`)).json()).toEqual({ hits: 1 });
    expect(await (await fetch(`${dev.url}/_cloudfn/api/functions`)).json()).toMatchObject({ counterStart: 10 });
  });

  it('sets its variable for the functions while it runs, beside the built-in services', () => {
    expect(process.env[VARIABLE]).toBe(`${dev.url}/_cloudfn/counter`);
    expect(dev.extension('counter')).toBeDefined();
    expect(dev.extension('timers')).toBeDefined();
    expect(dev.extension('gateway')).toBeDefined();
  });

  it('is closed with the server, and its variable put back', async () => {
    const before = closed;
    await dev.close();
    expect(closed).toBe(before + 1);
    expect(process.env[VARIABLE]).toBeUndefined();
  });
});

describe('a config key no service reads', () => {
  it('stops the dev server, naming the key', async () => {
    const root = project({ counter: { start: 10 } });
    try {
      await expect(startDevServer({ root, port: 0, sink: quiet })).rejects.toThrow(/counter is not an option/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
