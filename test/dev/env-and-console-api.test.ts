import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadEvent, startProject, until, type DevProject } from './project.js';

describe('.env in cloudfn dev', () => {
  let p: DevProject;
  const saved = { both: process.env['DEV_FIXTURE_BOTH'], injected: process.env['DEV_FIXTURE_INJECTED'] };
  beforeAll(async () => {
    process.env['DEV_FIXTURE_BOTH'] = 'from the shell';
    process.env['DEV_FIXTURE_INJECTED'] = 'from the shell too';
    p = await startProject({ env: { DEV_FIXTURE_INJECTED: 'injected' } });
  });
  afterAll(() => {
    for (const [key, value] of [
      ['DEV_FIXTURE_BOTH', saved.both],
      ['DEV_FIXTURE_INJECTED', saved.injected],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('loads .env under the real environment, under injected values', async () => {
    expect((await p.get('/env')).json).toEqual({ fromFile: 'from .env', both: 'from the shell', injected: 'injected' });
  });

  it('reloads every function when .env changes', async () => {
    const reloaded = p.next(reloadEvent('reloaded', 'env'));
    p.write('.env', 'DEV_FIXTURE_FROM_FILE=changed\nDEV_FIXTURE_BOTH=ignored\n');
    await reloaded;
    expect((await p.get('/env')).json).toEqual({ fromFile: 'changed', both: 'from the shell', injected: 'injected' });
  });

  it('puts the environment back on close', async () => {
    await p.close();
    expect(process.env['DEV_FIXTURE_FROM_FILE']).toBeUndefined();
    expect(process.env['DEV_FIXTURE_BOTH']).toBe('from the shell');
    expect(process.env['DEV_FIXTURE_INJECTED']).toBe('from the shell too');
  });
});

interface SseEvent {
  event: string;
  data: any;
}

/** Reads server-sent events from a fetch body into an array. */
function readEvents(body: ReadableStream<Uint8Array>): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
        }
      }
    } catch {
      // The stream ends when the server closes.
    }
  })();
  return events;
}

describe('the console API', () => {
  let p: DevProject;
  beforeAll(async () => {
    p = await startProject();
  });
  afterAll(() => p.close());

  it('lists the functions with their state and the headers the page needs', async () => {
    const answer = await p.get('/_cloudfn/api/functions');
    expect(answer.status).toBe(200);
    expect(answer.json.logidHeader).toBe('x-platform-logid');
    expect(answer.json.triggerHeader).toBe('x-cloudfn-trigger');
    expect(answer.json.consoleTrigger).toBe('console_debug');
    expect(answer.json.functions.find((fn: { name: string }) => fn.name === 'hello')).toMatchObject({
      file: 'functions/hello.ts',
      path: '/hello',
      status: 'ok',
      version: 1,
    });
  });

  it('serves the page, its script and style', async () => {
    const page = await p.get('/_cloudfn/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script src="/_cloudfn/main.js"');
    const script = await p.get('/_cloudfn/main.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('sourceMappingURL=data:application/json');
    expect((await p.get('/_cloudfn/style.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const redirect = await fetch(p.dev.url + '/_cloudfn', { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/_cloudfn/']);
  });

  it('answers the health path as cloudfn start does, ahead of the console', async () => {
    const health = await p.get('/_cloudfn/health');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok', inflight: 0 });
  });

  it('answers unknown paths 404 and other methods 405, in the error shape', async () => {
    const missing = await p.get('/_cloudfn/api/nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({
      code: 'CLOUDFN_DEV_CONSOLE_NOT_FOUND',
      message: expect.stringContaining('/_cloudfn/api/nope'),
    });
    const post = await p.get('/_cloudfn/api/functions', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('streams log lines, request summaries and list changes as server-sent events', async () => {
    const controller = new AbortController();
    const res = await fetch(p.dev.url + '/_cloudfn/api/events', { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = readEvents(res.body!);
    try {
      await p.get('/hello?name=sse', {
        headers: { 'x-platform-logid': 'sse-1', 'x-cloudfn-trigger': 'console_debug' },
      });
      await until(
        () => (events.some((e) => e.event === 'request' && e.data.logid === 'sse-1') ? true : undefined),
        3000,
        'the request event',
      );
      const mine = events.filter((e) => e.data.logid === 'sse-1');
      expect(mine.map((e) => [e.event, e.data.msg ?? e.data.status])).toEqual([
        ['log', 'greeting sse'],
        ['log', expect.stringMatching(/^GET \/hello 200 /)],
        ['request', 200],
      ]);
      expect(mine[2]!.data).toMatchObject({ functionName: 'hello', method: 'GET', trigger: 'console_debug' });
      // Each record carries the server's sequence number, increasing, and /api/logs gives the same.
      const seqs = mine.filter((e) => e.event === 'log').map((e) => e.data.seq as number);
      expect(seqs[1]).toBeGreaterThan(seqs[0]!);
      const kept = await p.get('/_cloudfn/api/logs?logid=sse-1');
      expect(kept.json.records.map((r: { seq: number }) => r.seq)).toEqual(seqs);

      p.write('functions/added.ts', 'export default () => 1;\n');
      const list = await until(() => events.find((e) => e.event === 'functions')?.data, 3000, 'the functions event');
      expect(list.map((fn: { name: string }) => fn.name)).toContain('added');
    } finally {
      controller.abort();
    }
  });

  it('keeps the recent requests, newest first, for a page that opens later', async () => {
    await p.get('/hello?name=first', { headers: { 'x-platform-logid': 'recent-1' } });
    await p.get('/nowhere', { headers: { 'x-platform-logid': 'recent-2' } });
    const answer = await p.get('/_cloudfn/api/requests');
    expect(answer.status).toBe(200);
    const logids = answer.json.requests.map((r: { logid: string }) => r.logid);
    expect(logids.indexOf('recent-2')).toBe(0);
    expect(logids.indexOf('recent-1')).toBe(1);
    expect(answer.json.requests[1]).toMatchObject({ method: 'GET', url: '/hello?name=first', status: 200 });
  });

  it('tells which functions answer the WebSocket gateway', async () => {
    p.write(
      'functions/socket.ts',
      "export default (_p: unknown, s: { headers: Record<string, string> }) => ({ event: s.headers['x-tt-event-type'] });\n",
    );
    await p.next((r) => /socket/.test(r.msg ?? ''), 10_000).catch(() => undefined);
    const fns = (await p.get('/_cloudfn/api/functions')).json.functions as { name: string; websocket: boolean }[];
    expect(fns.find((fn) => fn.name === 'hello')?.websocket).toBe(false);
    expect(fns.find((fn) => fn.name === 'socket')?.websocket).toBe(true);
  });

  it('keeps the lines of recent requests for the page to fetch by logid', async () => {
    await p.get('/hello?name=kept', { headers: { 'x-platform-logid': 'kept-1' } });
    const answer = await p.get('/_cloudfn/api/logs?logid=kept-1');
    expect(answer.json.records.map((r: { msg: string }) => r.msg)).toEqual([
      'greeting kept',
      expect.stringMatching(/^GET \/hello 200/),
    ]);
  });
});
