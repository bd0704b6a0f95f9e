/**
 * The one dispatcher of the extensions (runtime/serve/dispatch.ts): a platform host goes to the
 * extension that declares it whatever the path, a path under the prefix to the route its first
 * segments name (the longest key first, then the catch-all), a request to a function passes
 * every `onRequest` (which may add to it or make it wait, never answer it), two extensions that
 * declare one key stop start-up naming both, and the order of the list changes no answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { Extension } from '../../../runtime/serve/extension.js';
import { sendJson } from '../../../runtime/serve/hook-io.js';
import { beforeHookNames } from '../../../runtime/serve/http-server.js';
import { type RunningServer, serve } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';

const echo: FunctionSpec = {
  name: 'echo',
  handler: (_params, service) => ({ added: service.headers['x-added'] ?? null }),
};
const quiet = { env: {}, logger: new Logger(createMemorySink()), handleSignals: false, keepServing: false } as const;
const flags = { port: '0', host: '127.0.0.1' };

/** Each extension answers with its own name and the path it was given. */
const named =
  (name: string) =>
  (_req: unknown, res: Parameters<typeof sendJson>[0], path: string): void =>
    sendJson(res, 200, { name, path });

const live: Extension = {
  name: 'live',
  routes: () => ({ live: named('live') }),
  hosts: () => ({ webcast: named('live') }),
};
const push: Extension = {
  name: 'gateway',
  routes: () => ({ 'ws-push': named('gateway') }),
  hosts: () => ({ 'ws-push': named('gateway') }),
  onRequest: (req) => {
    req.headers['x-added'] ??= 'dev-user';
    return undefined;
  },
};
const database: Extension = { name: 'sdk', routes: () => ({ 'api/database': named('sdk') }) };
const page: Extension = { name: 'console', routes: () => ({ '': named('console'), api: named('console-api') }) };

describe('the dispatcher', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  /** What each of a table of requests answered, as `status name path`. */
  async function answers(list: readonly Extension[]): Promise<string[]> {
    running = await serve([echo], { ...quiet, flags, extensions: list });
    const table: [string, Record<string, string>][] = [
      ['/_cloudfn/live/7001/token?x=1', {}],
      ['/_cloudfn/ws-push/ws/push_data', {}],
      ['/ws/push_data?a=b', { host: 'ws-push.dyc.ivolces.com' }],
      ['/api/live_data/task/start', { host: 'webcast.bytedance.com:443' }],
      ['/_cloudfn/api/database/collections/todos', {}],
      ['/_cloudfn/api/functions', {}],
      ['/_cloudfn/', {}],
      ['/_cloudfn/style.css', {}],
      ['/echo', {}],
      ['/echo', { 'x-added': 'own' }],
    ];
    const out: string[] = [];
    for (const [path, headers] of table) {
      const res = await running.inject({ path, headers });
      out.push(`${res.status} ${res.body.toString('utf8')}`);
    }
    await running.close();
    running = undefined;
    return out;
  }

  it('answers by host first, then by the longest route, then passes onRequest to the functions', async () => {
    expect(await answers([live, push, database, page])).toEqual([
      '200 {"name":"live","path":"/7001/token?x=1"}',
      '200 {"name":"gateway","path":"/ws/push_data"}',
      '200 {"name":"gateway","path":"/ws/push_data?a=b"}',
      '200 {"name":"live","path":"/api/live_data/task/start"}',
      '200 {"name":"sdk","path":"/collections/todos"}',
      '200 {"name":"console-api","path":"/functions"}',
      '200 {"name":"console","path":"/"}',
      '200 {"name":"console","path":"/style.css"}',
      '200 {"added":"dev-user"}',
      '200 {"added":"own"}',
    ]);
  });

  it('gives the same answers with the list reversed: order carries no meaning', async () => {
    const forward = await answers([live, push, database, page]);
    expect(await answers([page, database, push, live])).toEqual(forward);
  });

  it('holds a request to a function while an onRequest waits, and answers it after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting: Extension = { name: 'reload', onRequest: () => gate };
    running = await serve([echo], { ...quiet, flags, extensions: [waiting] });
    let done = false;
    const answer = running.inject({ path: '/echo' }).then((res) => {
      done = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    release();
    expect((await answer).status).toBe(200);
  });

  it('gives a call addressed to the client gateway to its host, which answers it or hands it on', async () => {
    // The client gateway in front of the service (services/service.ts): a call for another
    // service is answered in the platform's place; one for this service goes on to the function
    // through every onRequest, which adds the dev user's header.
    const gateway: Extension = {
      name: 'services',
      hosts: () => ({
        gateway: (req, res, _path, next) => {
          if (req.headers['x-cloudfn-service'] === 'self') next?.();
          else sendJson(res, 200, { status_code: 13005 });
        },
      }),
    };
    for (const list of [
      [gateway, push],
      [push, gateway],
    ]) {
      running = await serve([echo], { ...quiet, flags, extensions: list });
      const ask = async (headers: Record<string, string>) =>
        JSON.parse((await running!.inject({ path: '/echo', headers })).body.toString('utf8'));
      expect(await ask({ 'x-cloudfn-service': 'other' })).toEqual({ status_code: 13005 });
      expect(await ask({ 'x-cloudfn-service': 'self' })).toEqual({ added: 'dev-user' });
      expect(await ask({})).toEqual({ added: 'dev-user' });
      // The routes still come before it.
      expect(
        (await running.inject({ path: '/_cloudfn/ws-push/x', headers: { 'x-cloudfn-service': 'x' } })).status,
      ).toBe(200);
      await running.close();
      running = undefined;
    }
  });

  it('leaves a path under the prefix that no route declares to the router (404)', async () => {
    running = await serve([echo], { ...quiet, flags, extensions: [live] });
    expect((await running.inject({ path: '/_cloudfn/nothing' })).status).toBe(404);
    expect((await running.inject({ path: '/_cloudfn/health' })).status).toBe(200);
  });

  it('refuses two extensions declaring one route, naming both', async () => {
    const again: Extension = { name: 'second-live', routes: () => ({ live: named('x') }) };
    await expect(serve([echo], { ...quiet, flags, extensions: [live, again] })).rejects.toThrow(
      /second-live and live both declare the route "live"; give it to one of them/,
    );
    const host: Extension = { name: 'other-push', hosts: () => ({ 'ws-push': named('x') }) };
    await expect(serve([echo], { ...quiet, flags, extensions: [push, host] })).rejects.toThrow(
      /other-push and gateway both declare the host "ws-push"/,
    );
  });

  it('is one hook after health and ping, however many extensions there are', async () => {
    running = await serve([echo], { ...quiet, flags, extensions: [live, push, database, page] });
    expect(beforeHookNames(running.app)).toEqual(['health', 'health', 'dispatch']);
  });
});
