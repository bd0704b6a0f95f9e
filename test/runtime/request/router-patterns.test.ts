/**
 * path-to-regexp loads only for a custom route: the router refuses to compile a pattern before
 * `loadRoutePatterns`, the catch-all of a one-function bundle never loads it, and
 * `cloudfn/runtime` provides it so `createApp` with routes stays synchronous. Its own file:
 * the module's state must start unloaded.
 */
import { describe, expect, it } from 'vitest';
import { EVERY_PATH, loadRoutePatterns, Router, routePatterns } from '../../../runtime/request/router.js';
import type { LoadedFunction } from '../../../runtime/types.js';

const only = { name: 'only' } as LoadedFunction;

describe('loading path-to-regexp for routes', () => {
  it('does not load it for no routes or the catch-all, and routes without it', async () => {
    await loadRoutePatterns({});
    await loadRoutePatterns({ [EVERY_PATH]: 'only' });
    expect(routePatterns.value).toBeUndefined();
    const router = new Router([only], { [EVERY_PATH]: 'only' });
    expect(router.match('/a/b', '/a/b')).toEqual({ fn: only, params: { path: ['a', 'b'] } });
  });

  it('refuses a pattern before the load, and compiles it after', async () => {
    expect(() => new Router([only], { '/v/:vid': 'only' })).toThrow(/path-to-regexp is not loaded/);
    await loadRoutePatterns({ '/v/:vid': 'only' });
    expect(typeof routePatterns.value).toBe('function');
    expect(new Router([only], { '/v/:vid': 'only' }).match('/v/x%20y', '/v/x y')).toEqual({
      fn: only,
      params: { vid: 'x y' },
    });
  });

  it('is provided by cloudfn/runtime, where createApp with routes is synchronous', async () => {
    const runtime = await import('../../../runtime/index.js');
    const app = runtime.createApp({
      functions: [{ name: 'get', handler: () => 'ok' }],
      routes: { '/items/:id': 'get' },
      logger: new runtime.Logger(runtime.createMemorySink()),
    });
    expect(app.router.match('/items/7', '/items/7')?.params).toEqual({ id: '7' });
  });
});
