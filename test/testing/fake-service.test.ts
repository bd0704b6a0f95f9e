import { describe, expect, it } from 'vitest';
import { createFakeService } from '../../src/testing/index.js';

/** Every member of the platform's service table, and cloudfn's own. */
const DOCUMENT_MEMBERS = [
  'headers',
  'httpMethod',
  'path',
  'url',
  'query',
  'cookies',
  'trigger',
  'set',
  'remove',
  'setCookie',
  'clearCookie',
  'status',
  'log',
  'debug',
  'warn',
  'error',
  'info',
];
const OWN_MEMBERS = ['logid', 'functionName', 'rawBody', 'signal', 'routeParams'];

describe('createFakeService', () => {
  it("has every member of the platform's service and cloudfn's, with request defaults", () => {
    const service = createFakeService();
    for (const member of [...DOCUMENT_MEMBERS, ...OWN_MEMBERS])
      expect(service[member as keyof typeof service], member).toBeDefined();
    expect(service.httpMethod).toBe('GET');
    expect(service.path).toBe('/');
    expect(service.url).toBe('/');
    expect({ ...service.query }).toEqual({});
    expect(service.headers).toEqual({});
    expect({ ...service.cookies }).toEqual({});
    expect(service.trigger).toBe('online');
    expect(service.logid).toMatch(/^[0-9a-f]{24}$/);
    expect(service.functionName).toBe('index');
    expect(service.rawBody.length).toBe(0);
    expect(service.signal.aborted).toBe(false);
    expect(service.routeParams).toEqual({});
    expect(service.recorded).toEqual({ status: 200, headers: {}, cookies: {}, logs: [] });
  });

  it('reads path and query from url, and names the function as the router would', () => {
    const service = createFakeService({ httpMethod: 'post', url: '/videos/list?tag=a&tag=b&q=x%20y' });
    expect(service.httpMethod).toBe('POST');
    expect(service.path).toBe('/videos/list');
    expect({ ...service.query }).toEqual({ tag: ['a', 'b'], q: 'x y' });
    expect(service.functionName).toBe('videos/list');
  });

  it('builds url from path and query', () => {
    const service = createFakeService({ path: '/search', query: { q: 'a b', tag: ['x', 'y'] } });
    expect(service.url).toBe('/search?q=a+b&tag=x&tag=y');
    expect(service.query).toEqual({ q: 'a b', tag: ['x', 'y'] });
  });

  it('lower-cases header names, takes Headers, and keeps cookies and the Cookie header in step', () => {
    const service = createFakeService({
      headers: { 'Content-Type': 'application/json', 'X-Two': ['a', 'b'] },
      cookies: { sid: 'abc', theme: 'dark mode' },
    });
    expect(service.headers['content-type']).toBe('application/json');
    expect(service.headers['x-two']).toEqual(['a', 'b']);
    expect(service.headers.cookie).toBe('sid=abc; theme=dark%20mode');
    expect({ ...service.cookies }).toEqual({ sid: 'abc', theme: 'dark mode' });
    const fromHeaders = createFakeService({ headers: new Headers({ 'X-Id': '7', Cookie: 'a=1' }) });
    expect(fromHeaders.headers['x-id']).toBe('7');
    expect(fromHeaders.cookies.a).toBe('1');
  });

  it('takes the trigger, logid, name, raw body, signal and route params it is given', () => {
    const controller = new AbortController();
    const service = createFakeService({
      trigger: 'ide_debug',
      logid: 'L1',
      functionName: 'f',
      rawBody: '{"a":1}',
      signal: controller.signal,
      routeParams: { vid: 'v1' },
    });
    expect(service.trigger).toBe('ide_debug');
    expect(service.logid).toBe('L1');
    expect(service.functionName).toBe('f');
    expect(service.rawBody.toString()).toBe('{"a":1}');
    controller.abort();
    expect(service.signal.aborted).toBe(true);
    expect(service.routeParams).toEqual({ vid: 'v1' });
  });

  it('records status, headers, cookies and logs as the runtime formats them', () => {
    const service = createFakeService({ logid: 'L2', functionName: 'hello' });
    service.status(201).set('X-A', '1').set('X-B', 2).set('X-C', ['c1', 'c2']).set('X-Gone', 'x').remove('x-gone');
    service.setCookie('sid', 'abc', { httpOnly: true, maxAge: 60 }).clearCookie('old', { path: '/app' });
    const { log } = service;
    log({ user: 1, logid: 'spoof', function: 'spoof' });
    service.warn('{"json":"text"}');
    service.error('failed', 2, { x: 1 });
    const recorded = service.recorded;
    expect(recorded.status).toBe(201);
    expect(recorded.headers).toEqual({ 'x-a': '1', 'x-b': '2', 'x-c': ['c1', 'c2'] });
    expect(recorded.cookies.sid).toEqual({ name: 'sid', value: 'abc', httpOnly: true, maxAge: 60 });
    expect(recorded.cookies.old).toMatchObject({ name: 'old', value: '', path: '/app', expires: new Date(0) });
    const { traceId: trace_id, spanId: span_id } = service.trace;
    expect(recorded.logs.map(({ time: _t, ...r }) => r)).toEqual([
      { level: 'log', user: 1, logid: 'L2', trace_id, span_id, function: 'hello' },
      { level: 'warn', json: 'text', logid: 'L2', trace_id, span_id, function: 'hello' },
      { level: 'error', logid: 'L2', trace_id, span_id, function: 'hello', msg: 'failed 2 { x: 1 }' },
    ]);
    expect(typeof recorded.logs[0]?.time).toBe('number');
  });

  it('validates like the runtime: bad header values, status codes and cookies throw TypeErrors', () => {
    const service = createFakeService();
    expect(() => service.set('X-Bad', 'a\r\nb')).toThrow(/header X-Bad has an invalid character/);
    expect(() => service.set('bad name', 'x')).toThrow(TypeError);
    expect(() => service.status(600)).toThrow('status code must be an integer from 100 to 599, got 600');
    expect(() => service.setCookie('bad name', 'x')).toThrow(TypeError);
    expect(service.recorded.status).toBe(200);
  });

  it('lets a test replace any method; a replaced method records nothing', () => {
    const calls: unknown[][] = [];
    const service = createFakeService({ log: (...values) => void calls.push(values) });
    service.log('hi', 1);
    expect(calls).toEqual([['hi', 1]]);
    expect(service.recorded.logs).toEqual([]);
  });

  it('gives a fresh snapshot on each read', () => {
    const service = createFakeService();
    const before = service.recorded;
    service.status(404);
    expect(before.status).toBe(200);
    expect(service.recorded.status).toBe(404);
  });
});
