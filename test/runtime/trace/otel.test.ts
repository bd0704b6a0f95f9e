/**
 * OpenTelemetry through the API only: with the SDK's in-memory exporters registered, a request
 * gives a server span (semantic-convention attributes, the incoming traceparent as its parent,
 * its span id in the log lines), a media call a client span under it whose id the platform saw,
 * and `http.server.request.duration` a point per function and status. Without an SDK, nothing
 * is loaded; an SDK registered after the app was created is noticed.
 */
import { metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { RunningServer } from '../../../runtime/serve/start.js';
import { serveHandlers } from '../helpers/test-servers.js';
import { loadOpenTelemetry, otelRegistered } from '../../../runtime/trace/otel.js';
import { HttpError } from '../../../runtime/errors.js';
import type { Handler } from '../../../runtime/types.js';
import { createMediaClient, type MediaClient } from '../../../src/media/index.js';
import { makeKeys, MediaServer } from '../../media/media-server.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/** A reader the test collects from on demand. */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const keys = makeKeys();
const sink = createMemorySink();
const exporter = new InMemorySpanExporter();
const reader = new TestReader();
let platform: MediaServer;
let media: MediaClient;
let server: RunningServer;

const functions: Record<string, Handler> = {
  'list-videos': async (_params, service) => {
    await media.scoped({ logger: service }).getVideoList({ page_size: 1, page_number: 0 });
    return { trace: service.trace };
  },
  fails: () => {
    throw new Error('boom');
  },
  refuses: () => {
    throw new HttpError(404, 'no such thing');
  },
};

beforeAll(async () => {
  platform = await new MediaServer(keys).start();
  media = createMediaClient({ baseUrl: platform.url, accessToken: 'tok', retries: 0, env: {} });
  // The app exists before any SDK does: registering later must be noticed.
  server = await serveHandlers(functions, sink);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await server.close();
  await platform.close();
});

describe('without an SDK', () => {
  it('loads nothing and still gives every request its trace ids', async () => {
    expect(otelRegistered()).toBe(false);
    expect(await loadOpenTelemetry()).toBeUndefined();
    const res = await fetch(`${server.url}/refuses`);
    expect(res.status).toBe(404);
    const line = sink.records.find((r) => r.logid === res.headers.get('x-platform-logid'))!;
    expect(line.trace_id).toMatch(/^[\da-f]{32}$/);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('with the SDK registered after the app was created', () => {
  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    expect(otelRegistered()).toBe(true);
    // The first request after registration starts loading the bridge; this waits for it.
    expect(await loadOpenTelemetry()).toBeDefined();
    exporter.reset();
  });

  it('makes a server span from the incoming traceparent and a client span for the media call', async () => {
    const res = await fetch(`${server.url}/list-videos?x=1`, { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
    expect(res.status).toBe(200);
    const { trace: context } = (await res.json()) as {
      trace: { traceId: string; spanId: string; parentSpanId: string };
    };
    const spans = exporter.getFinishedSpans();
    const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT)!;

    expect(serverSpan.name).toBe('GET list-videos');
    expect(serverSpan.spanContext().traceId).toBe(TRACE);
    expect(serverSpan.parentSpanContext?.spanId).toBe(PARENT);
    expect(serverSpan.parentSpanContext?.isRemote).toBe(true);
    expect(serverSpan.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': 'list-videos',
      'http.response.status_code': 200,
      'url.scheme': 'http',
      'url.path': '/list-videos',
    });
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(serverSpan.instrumentationScope.name).toBe('cloudfn');
    // The request's span id is the server span's: service.trace and every log line say so.
    expect(context).toMatchObject({ traceId: TRACE, spanId: serverSpan.spanContext().spanId, parentSpanId: PARENT });
    const logid = res.headers.get('x-platform-logid')!;
    for (const line of sink.records.filter((r) => r.logid === logid))
      expect(line).toMatchObject({ trace_id: TRACE, span_id: serverSpan.spanContext().spanId });

    expect(clientSpan.name).toBe('POST /api/cloud_voc/get_video_list');
    expect(clientSpan.spanContext().traceId).toBe(TRACE);
    expect(clientSpan.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
    expect(clientSpan.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'url.full': `${platform.url}/api/cloud_voc/get_video_list`,
      'cloudfn.media.operation': 'get_video_list',
    });
    // The platform saw the client span as its parent.
    const call = platform.received.at(-1)!;
    expect(call.headers.traceparent).toBe(`00-${TRACE}-${clientSpan.spanContext().spanId}-01`);
  });

  it('starts a root span when no traceparent comes, and marks a 5xx as an error', async () => {
    exporter.reset();
    const res = await fetch(`${server.url}/fails`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(500);
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.name).toBe('POST fails');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
    const line = sink.records.find((r) => r.logid === res.headers.get('x-platform-logid') && r.status === 500)!;
    expect(line).toMatchObject({ trace_id: span!.spanContext().traceId, span_id: span!.spanContext().spanId });
  });

  it('records http.server.request.duration per function and status, in seconds', async () => {
    await fetch(`${server.url}/refuses`);
    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const metric = resourceMetrics.scopeMetrics
      .find((s) => s.scope.name === 'cloudfn')!
      .metrics.find((m) => m.descriptor.name === 'http.server.request.duration')!;
    expect(metric.descriptor.unit).toBe('s');
    expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = metric.dataPoints.map((p) => ({
      attributes: p.attributes,
      count: (p.value as { count: number }).count,
    }));
    expect(points).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'http.request.method': 'GET',
            'http.route': 'list-videos',
            'http.response.status_code': 200,
            'url.scheme': 'http',
          },
          count: 1,
        },
        {
          attributes: {
            'http.request.method': 'POST',
            'http.route': 'fails',
            'http.response.status_code': 500,
            'error.type': '500',
            'url.scheme': 'http',
          },
          count: 1,
        },
        {
          attributes: {
            'http.request.method': 'GET',
            'http.route': 'refuses',
            'http.response.status_code': 404,
            'url.scheme': 'http',
          },
          count: 1,
        },
      ]),
    );
    const boundaries = (metric.dataPoints[0]!.value as { buckets: { boundaries: number[] } }).buckets.boundaries;
    expect(boundaries[0]).toBe(0.005);
  });

  it('stops when the SDK is disabled', async () => {
    trace.disable();
    metrics.disable();
    exporter.reset();
    expect(otelRegistered()).toBe(false);
    await fetch(`${server.url}/refuses`);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
