/**
 * The one extension shape of `serve()` (runtime/serve/extension.ts): each part runs at its step
 * and in list order (prepare before the routes are read, routes after the health path, upgrade
 * with the server before it listens, env once the URL is known), `close` runs in reverse and
 * puts the variables back, a throwing `prepare` stops start-up, and `startProject` accepts the
 * config keys the extensions name.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { Extension } from '../../../runtime/serve/extension.js';
import { sendJson } from '../../../runtime/serve/hook-io.js';
import { serve, startProject, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';

const hello: FunctionSpec = { name: 'hello', handler: () => 'hi' };
const quiet = { env: {}, logger: new Logger(createMemorySink()), handleSignals: false, keepServing: false } as const;
const flags = { port: '0', host: '127.0.0.1' };

/** An extension that records each of its steps in `steps`, and answers `/_cloudfn/<name>`. */
function recording(name: string, steps: string[]): Extension {
  return {
    name,
    prepare: () => void steps.push(`${name}.prepare`),
    routes: () => {
      steps.push(`${name}.routes`);
      return { [name]: (_req, res) => sendJson(res, 200, { name }) };
    },
    upgrade: (server) => void steps.push(`${name}.upgrade:${server.listening}`),
    env: (url) => {
      steps.push(`${name}.env`);
      return { [`CLOUDFN_TEST_EXT_${name.toUpperCase()}`]: url };
    },
    close: () => void steps.push(`${name}.close`),
  };
}

describe('serve() with extensions', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('runs each part at its step, in list order, and closes in reverse', async () => {
    const steps: string[] = [];
    running = await serve([hello], { ...quiet, flags, extensions: [recording('a', steps), recording('b', steps)] });
    expect(steps).toEqual([
      'a.prepare',
      'b.prepare',
      'a.routes',
      'b.routes',
      'a.upgrade:false',
      'b.upgrade:false',
      'a.env',
      'b.env',
    ]);
    expect(process.env['CLOUDFN_TEST_EXT_A']).toBe(running.url);
    expect(await (await fetch(`${running.url}/_cloudfn/b`)).json()).toEqual({ name: 'b' });
    expect((await fetch(`${running.url}/hello`)).status).toBe(200);
    await running.close();
    running = undefined;
    expect(steps.slice(-2)).toEqual(['b.close', 'a.close']);
    expect(process.env['CLOUDFN_TEST_EXT_A']).toBeUndefined();
  });

  it('keeps the health path ahead of every extension route', async () => {
    const greedy: Extension = { name: 'greedy', routes: () => ({ '': (_req, res) => sendJson(res, 418, {}) }) };
    running = await serve([hello], { ...quiet, flags, extensions: [greedy] });
    expect((await fetch(`${running.url}/_cloudfn/health`)).status).toBe(200);
    expect((await fetch(`${running.url}/_cloudfn/anything`)).status).toBe(418);
    expect((await fetch(`${running.url}/hello`)).status).toBe(200);
  });

  it('stops start-up when a prepare throws, before the port opens', async () => {
    const steps: string[] = [];
    const failing: Extension = {
      name: 'failing',
      prepare: () => {
        throw new Error('bad schedule in functions/cleanup.ts');
      },
    };
    await expect(serve([hello], { ...quiet, flags, extensions: [failing, recording('after', steps)] })).rejects.toThrow(
      /bad schedule/,
    );
    expect(steps).toEqual([]);
  });
});

describe('startProject with extensions', () => {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-ext-'));
  mkdirSync(join(root, 'functions'));
  writeFileSync(join(root, 'functions', 'hello.mjs'), 'export default () => "hi";\n');
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ counter: { start: 1 } }));

  it('accepts the config keys an extension names, and refuses them otherwise', async () => {
    await expect(startProject(root, { ...quiet, flags })).rejects.toThrow(/counter is not an option/);
    const running = await startProject(root, {
      ...quiet,
      flags,
      extensions: [{ name: 'counter', configKeys: ['counter'] }],
    });
    try {
      expect((await fetch(`${running.url}/hello`)).status).toBe(200);
    } finally {
      await running.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
