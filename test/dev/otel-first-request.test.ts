/**
 * `cloudfn dev` loads the OpenTelemetry bridge before its port opens, as `cloudfn start` does
 * (both are the runtime's `serve()`): start-up awaits `loadOpenTelemetry`, so with an SDK
 * registered before start-up the very first request already has its server span. Without the
 * wait that would depend on how fast the bridge's import is, so the load is slowed here and the
 * test checks that it had finished when the server was handed back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it, vi } from 'vitest';
import * as otel from '../../runtime/trace/otel.js';
import { startDevServer } from '../../src/dev/index.js';

vi.mock('../../runtime/trace/otel.js', async (original) => {
  const actual = await original<typeof otel>();
  return {
    ...actual,
    loadOpenTelemetry: vi.fn(async () => {
      loads.started++;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const bridge = await actual.loadOpenTelemetry();
      loads.finished++;
      return bridge;
    }),
  };
});
const loads = vi.hoisted(() => ({ started: 0, finished: 0 }));

const root = mkdtempSync(join(tmpdir(), 'cloudfn-dev-otel-'));
afterAll(() => {
  trace.disable();
  rmSync(root, { recursive: true, force: true });
});

it('gives the first request its server span', async () => {
  mkdirSync(join(root, 'functions'));
  writeFileSync(join(root, 'functions', 'hello.ts'), 'export default () => ({ hello: true });\n');
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  const dev = await startDevServer({ root, port: 0, sink: { write() {} } });
  try {
    expect(otel.loadOpenTelemetry).toHaveBeenCalled();
    expect(loads).toEqual({ started: loads.started, finished: loads.started });
    const answer = await fetch(`${dev.url}/hello`);
    expect(answer.status).toBe(200);
    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(spans.map((span) => span.name)).toEqual(['GET hello']);
  } finally {
    await dev.close();
  }
});
