/**
 * A request's trace crosses the function into the platform, checked at real sockets: the
 * request comes over HTTP with a `traceparent`, its log lines carry the trace, and the media
 * call the function makes reaches a platform stand-in (signed, verified) with a `traceparent`
 * of the same trace and the request's logid; `callContainer` carries both to another function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../runtime/log/record.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { RunningServer } from '../../../runtime/serve/start.js';
import { serveHandlers } from '../helpers/test-servers.js';
import type { Handler } from '../../../runtime/types.js';
import { createContainerClient } from '../../../src/client/index.js';
import { createMediaClient, type MediaClient } from '../../../src/media/index.js';
import { makeKeys, MediaServer } from '../../media/media-server.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;

const keys = makeKeys();
let platform: MediaServer;
let media: MediaClient;
let server: RunningServer;
const sink = createMemorySink();

const functions: Record<string, Handler> = {
  'list-videos': async (_params, service) => {
    service.info('listing');
    const page = await media.scoped({ logger: service, signal: service.signal }).getVideoList({
      page_size: 1,
      page_number: 0,
    });
    return { total: page.total_num, trace: service.trace };
  },
  caller: async (_params, service) => {
    const { callContainer } = createContainerClient({ baseUrl: server.url });
    const res = await callContainer<{ trace: unknown; logid: string }>({ path: '/callee', from: service });
    return { callee: res.data, trace: service.trace };
  },
  callee: (_params, service) => {
    service.log({ step: 'callee' });
    return { trace: service.trace, logid: service.logid };
  },
};

beforeAll(async () => {
  platform = await new MediaServer(keys).start();
  media = createMediaClient({
    baseUrl: platform.url,
    accessToken: 'tok',
    signing: { appid: 'tt-app', privateKey: keys.appPrivatePem, keyVersion: '7' },
    platformPublicKey: keys.platformPublicPem,
    retries: 0,
    env: {},
  });
  server = await serveHandlers(functions, sink);
});
afterAll(async () => {
  await server.close();
  await platform.close();
});

function linesOf(logid: string): LogRecord[] {
  return sink.records.filter((r) => r.logid === logid);
}

describe('a traceparent that comes with a request', () => {
  it('reaches the log lines, service.trace and the platform call, at real sockets', async () => {
    const before = platform.received.length;
    const res = await fetch(`${server.url}/list-videos`, {
      headers: { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { trace: Record<string, unknown> };
    const logid = res.headers.get('x-platform-logid')!;
    const { spanId } = body.trace as { spanId: string };
    expect(body.trace).toEqual({
      traceId: TRACE,
      spanId: expect.stringMatching(/^[\da-f]{16}$/),
      parentSpanId: PARENT,
      sampled: true,
      traceparent: `00-${TRACE}-${spanId}-01`,
      tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    });
    expect(spanId).not.toBe(PARENT);

    // Every line of the request: the handler's, the media client's, the request line.
    const lines = linesOf(logid);
    expect(lines.map((r) => r.msg ?? r.media)).toEqual([
      'listing',
      'get_video_list',
      'GET /list-videos 200 ' + lines[2]!.durationMs + ' ms ' + lines[2]!.bytes + ' B',
    ]);
    for (const line of lines)
      expect(line).toMatchObject({ logid, trace_id: TRACE, span_id: spanId, function: 'list-videos' });

    // The platform saw a child of the request's span, in the same trace, and the logid.
    const call = platform.received.slice(before).find((r) => r.path === '/api/cloud_voc/get_video_list')!;
    expect(call.verified).not.toBeInstanceOf(Error);
    const sent = String(call.headers.traceparent);
    expect(sent).toMatch(new RegExp(`^00-${TRACE}-[\\da-f]{16}-01$`));
    const childSpan = sent.slice(36, 52);
    expect(childSpan).not.toBe(spanId);
    expect(childSpan).not.toBe(PARENT);
    expect(call.headers.tracestate).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
    expect(call.headers['x-platform-logid']).toBe(logid);
    // The media line names the platform's log_id beside the trace and the span the platform saw.
    expect(lines[1]).toMatchObject({ media: 'get_video_list', log_id: expect.any(String), client_span_id: childSpan });
    expect(lines[1]!.log_id).not.toBe('');
  });

  it.each([
    ['no traceparent', undefined],
    ['a malformed traceparent', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['a trace id of zeros', `00-${'0'.repeat(32)}-${PARENT}-01`],
  ])('starts a new trace for %s, and the request still succeeds', async (_name, traceparent) => {
    const res = await fetch(`${server.url}/callee`, {
      headers: traceparent === undefined ? {} : { traceparent, tracestate: 'foo=1' },
    });
    expect(res.status).toBe(200);
    const { trace, logid } = (await res.json()) as { trace: Record<string, unknown>; logid: string };
    expect(trace.traceId).toMatch(/^[\da-f]{32}$/);
    expect(trace.traceId).not.toBe(TRACE.toLowerCase());
    expect(trace.traceId).not.toBe('0'.repeat(32));
    expect(trace).not.toHaveProperty('parentSpanId');
    expect(trace).not.toHaveProperty('tracestate');
    expect(trace.sampled).toBe(true);
    for (const line of linesOf(logid)) expect(line).toMatchObject({ trace_id: trace.traceId, span_id: trace.spanId });
  });

  it('gives each request a new span id and each new trace a new trace id', async () => {
    const seen = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await fetch(`${server.url}/callee`, { headers: { traceparent: TRACEPARENT } });
        return ((await res.json()) as { trace: { traceId: string; spanId: string } }).trace;
      }),
    );
    expect(new Set(seen.map((t) => t.traceId))).toEqual(new Set([TRACE]));
    expect(new Set(seen.map((t) => t.spanId)).size).toBe(5);
  });

  it('goes on through callContainer to another function, with the logid', async () => {
    const res = await fetch(`${server.url}/caller`, { headers: { traceparent: TRACEPARENT } });
    expect(res.status).toBe(200);
    const { callee, trace } = (await res.json()) as {
      callee: { trace: { traceId: string; parentSpanId: string; spanId: string }; logid: string };
      trace: { spanId: string };
    };
    const logid = res.headers.get('x-platform-logid')!;
    // The callee continues the trace as a child of the call's span, under the caller's logid.
    expect(callee.trace.traceId).toBe(TRACE);
    expect(callee.trace.parentSpanId).not.toBe(trace.spanId);
    expect(callee.logid).toBe(logid);
    const callLine = sink.records.find((r) => r.logid === logid && r['call'] === '/callee')!;
    expect(callLine).toMatchObject({
      status: 200,
      log_id: logid,
      trace_id: TRACE,
      span_id: trace.spanId,
      client_span_id: callee.trace.parentSpanId,
      function: 'caller',
    });
    const calleeLines = sink.records.filter((r) => r.function === 'callee' && r.logid === logid);
    expect(calleeLines.length).toBe(2);
    for (const line of calleeLines) expect(line).toMatchObject({ trace_id: TRACE, span_id: callee.trace.spanId });
  });

  it('refuses a trace option that is not one, naming it', async () => {
    const { callContainer } = createContainerClient({ baseUrl: server.url });
    await expect(
      callContainer({ path: '/callee', from: { trace: { traceId: 'nope', spanId: PARENT, sampled: true } } }),
    ).rejects.toMatchObject({ code: 'CLIENT_BAD_OPTIONS', errMsg: expect.stringContaining('from.trace must be') });
    await expect(
      media.getVideoList({ page_size: 1, page_number: 0 }, { trace: { traceId: TRACE } as never }),
    ).rejects.toMatchObject({ code: 'MEDIA_OPTIONS', message: expect.stringContaining('trace must be') });
  });
});
