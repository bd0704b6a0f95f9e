/**
 * The intranet hook: the platform's hostnames answered by local servers for code that calls
 * them with `fetch`, `http.get`, `http.request`, `https.get` or axios, unchanged. A real local server
 * stands in for the other service and records what reached it: method, path, query, headers,
 * `Host` and body. A refused target fails as a connection error with the router's reason; other
 * hosts take the original path; turning the hook off restores exactly what was there.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyHost } from '../../runtime/intranet/hosts.js';
import { interceptIntranet, type IntranetRouter } from '../../runtime/intranet/intercept.js';

interface Seen {
  method: string;
  url: string;
  host: string;
  custom: string | undefined;
  body: string;
}

let seen: Seen[] = [];
let server: http.Server;
let port = 0;
let off: () => void;
let routed: string[] = [];

const router: IntranetRouter = ({ protocol, hostname }) => {
  routed.push(`${protocol}//${hostname}`);
  const host = classifyHost(hostname);
  if (host === undefined) return undefined;
  if (host.kind === 'inner-call' && protocol === 'https:')
    return { refuse: `https://${hostname}: service-to-service calls are HTTP only; call http://${hostname}` };
  if (host.kind === 'inner-call' && host.pair !== 'game-profile')
    return { refuse: `${hostname}: service game has not enabled ${host.pair}; add it to innerCall` };
  return { host: '127.0.0.1', port };
};

const collect = (res: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      host: req.headers.host!,
      custom: req.headers['x-game'] as string | undefined,
      body: await collect(req),
    });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  off = await interceptIntranet(router);
});

afterAll(() => {
  off();
  server.close();
});

const PROFILE = 'game-profile.inner-call.dyc.ivolces.com';

describe('classifyHost', () => {
  it.each([
    ['game-profile.inner-call.dyc.ivolces.com', { kind: 'inner-call', pair: 'game-profile' }],
    ['Game-Profile.INNER-CALL.dyc.ivolces.com.', { kind: 'inner-call', pair: 'game-profile' }],
    ['game-profile.dycloud.service', { kind: 'inner-call', pair: 'game-profile' }],
    ['ws-push.dyc.ivolces.com', { kind: 'ws-push' }],
    ['ws-push.dycloud-api.service', { kind: 'ws-push' }],
    ['webcast-bytedance-com.openapi.dyc.ivolces.com', { kind: 'webcast' }],
    ['tos-cn-beijing.volces.com', { kind: 'tos', region: 'cn-beijing' }],
    ['tos-cn-beijing.ivolces.com', { kind: 'tos', region: 'cn-beijing' }],
    ['media.tos-cn-beijing.volces.com', { kind: 'tos', region: 'cn-beijing', bucket: 'media' }],
    ['my-bucket.tos-cn-beijing.ivolces.com', { kind: 'tos', region: 'cn-beijing', bucket: 'my-bucket' }],
    ['tos-s3-cn-beijing.volces.com', undefined],
    ['a.b.tos-cn-beijing.volces.com', undefined],
    ['game.inner-call.dyc.ivolces.com', undefined],
    ['a.b-c.inner-call.dyc.ivolces.com', undefined],
    ['example.com', undefined],
    ['ivolces.com.example.org', undefined],
  ])('%s', (host, expected) => {
    expect(classifyHost(host)).toEqual(expected);
  });
});

describe('the intranet hook', () => {
  it('sends fetch to the local stand-in with method, path, query, headers, Host and body intact', async () => {
    seen = [];
    const res = await fetch(`http://${PROFILE}/leaderboard?top=3&room=7001`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-game': 'g1' },
      body: JSON.stringify({ score: 42 }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual([
      { method: 'POST', url: '/leaderboard?top=3&room=7001', host: PROFILE, custom: 'g1', body: '{"score":42}' },
    ]);
  });

  it('sends http.get and http.request the same way', async () => {
    seen = [];
    const got = await new Promise<string>((resolve, reject) =>
      http
        .get(`http://${PROFILE}/ping?x=1`, { headers: { 'x-game': 'g2' } }, (res) => collect(res).then(resolve, reject))
        .on('error', reject),
    );
    expect(JSON.parse(got)).toEqual({ ok: true });
    const posted = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: PROFILE, port: 80, path: '/score', method: 'PUT', headers: { 'x-game': 'g3' } },
        (res) => collect(res).then(() => resolve(res.statusCode!), reject),
      );
      req.on('error', reject);
      req.end('raw body');
    });
    expect(posted).toBe(200);
    expect(seen).toEqual([
      { method: 'GET', url: '/ping?x=1', host: PROFILE, custom: 'g2', body: '' },
      { method: 'PUT', url: '/score', host: PROFILE, custom: 'g3', body: 'raw body' },
    ]);
  });

  it('sends axios (its Node adapter, on node:http) the same way', async () => {
    seen = [];
    const res = await axios.post(`http://${PROFILE}/rank?season=2`, { player: 'ada' }, { headers: { 'x-game': 'g4' } });
    expect(res.data).toEqual({ ok: true });
    expect(seen).toEqual([
      { method: 'POST', url: '/rank?season=2', host: PROFILE, custom: 'g4', body: '{"player":"ada"}' },
    ]);
    const refused = await axios.get('http://profile-game.inner-call.dyc.ivolces.com/x').catch((error: Error) => error);
    expect((refused as Error).message).toContain('add it to innerCall');
  });

  it('answers the push host over https too, as plain HTTP to the stand-in', async () => {
    seen = [];
    const status = await new Promise<number>((resolve, reject) =>
      https
        .get('https://ws-push.dyc.ivolces.com/ws/push_data', (res) => collect(res).then(() => resolve(res.statusCode!)))
        .on('error', reject),
    );
    expect(status).toBe(200);
    expect(seen.map((s) => [s.url, s.host])).toEqual([['/ws/push_data', 'ws-push.dyc.ivolces.com']]);
  });

  it('fails a refused call as a connection error carrying the reason, for fetch and for http', async () => {
    seen = [];
    const failure = await fetch('http://profile-game.inner-call.dyc.ivolces.com/x').catch((error: Error) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error & { cause: Error }).cause.message).toBe(
      'profile-game.inner-call.dyc.ivolces.com: service game has not enabled profile-game; add it to innerCall',
    );
    const https_ = await fetch(`https://${PROFILE}/x`).catch((error: Error) => error);
    expect((https_ as Error & { cause: Error }).cause.message).toContain('service-to-service calls are HTTP only');
    const viaHttp = await new Promise<Error>((resolve) => {
      https.get(`https://${PROFILE}/x`, () => resolve(new Error('answered'))).on('error', resolve);
    });
    expect(viaHttp).toMatchObject({ code: 'CLOUDFN_INTRANET_REFUSED' });
    expect(viaHttp.message).toContain('call http://game-profile.inner-call.dyc.ivolces.com');
    expect(seen).toEqual([]);
  });

  it('leaves other hosts alone: the router is not even asked', async () => {
    routed = [];
    seen = [];
    const res = await fetch(`http://127.0.0.1:${port}/direct`);
    expect(res.status).toBe(200);
    await new Promise<void>((resolve, reject) =>
      http.get(`http://localhost:${port}/direct2`, (r) => collect(r).then(() => resolve())).on('error', reject),
    );
    expect(routed).toEqual([]);
    expect(seen.map((s) => s.url)).toEqual(['/direct', '/direct2']);
  });

  it('turned off, restores the dispatchers and the agents it found', async () => {
    const keys = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];
    const read = () => keys.map((key) => (globalThis as Record<symbol, unknown>)[key]);
    const during = read();
    const create = http.Agent.prototype.createConnection;
    off();
    const after = read();
    for (const [i, wrapper] of during.entries())
      if (wrapper !== undefined) expect(Object.getPrototypeOf(wrapper)).toBe(after[i]);
    expect(http.Agent.prototype.createConnection).not.toBe(create);
    off = await interceptIntranet(router);
    expect(read()).not.toEqual(after);
  });
});
