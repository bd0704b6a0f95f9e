/**
 * A bundle keeps the OpenTelemetry bridge and `@opentelemetry/api` in chunks it imports only
 * when an SDK is registered: the entry holds neither, and a bundle run with an SDK registered by
 * `node --import` loads them and reports the request's span.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/build/index.js';
import { tempProject } from '../testing/project.js';
import { until } from '../testing/until.js';
import { spawnServer } from './spawn-server.js';

const modules = resolve(import.meta.dirname, '../../node_modules');
const project = tempProject({
  'functions/hello.ts': `export default (_params: unknown, service: { trace: { traceId: string } }) => ({ trace: service.trace.traceId });`,
});

beforeAll(async () => {
  await buildProject(project.root, { minify: true, perFunction: true });
  // Registers the SDK before the bundle loads; each finished span is printed as one line.
  const sdk = (name: string): string => pathToFileURL(join(modules, name, 'build/src/index-shim.js')).href;
  writeFileSync(
    join(project.root, 'otel.mjs'),
    [
      `import { trace } from ${JSON.stringify(pathToFileURL(join(modules, '@opentelemetry/api/build/src/index.js')).href)};`,
      `import { BasicTracerProvider } from ${JSON.stringify(sdk('@opentelemetry/sdk-trace-base'))};`,
      `const exporter = { export(spans, done) { for (const s of spans) process.stdout.write(JSON.stringify({ span: s.name, traceId: s.spanContext().traceId, parent: s.parentSpanContext?.spanId ?? null }) + '\\n'); done({ code: 0 }); }, shutdown: async () => {} };`,
      `const processor = { onStart() {}, onEnd(span) { exporter.export([span], () => {}); }, forceFlush: async () => {}, shutdown: async () => {} };`,
      `trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));`,
    ].join('\n'),
  );
}, 60_000);
afterAll(() => project.remove());

describe('the OpenTelemetry bridge of a bundle', () => {
  it('sits in a chunk the entry imports only when needed', () => {
    const dir = join(project.root, 'dist/hello');
    const entry = readFileSync(join(dir, 'index.mjs'), 'utf8');
    const bridge = readdirSync(join(dir, '_chunks')).find((name) => /^otel-bridge-.*\.mjs$/.test(name));
    expect(bridge).toBeDefined();
    expect(entry).toContain(`import("./_chunks/${bridge}")`);
    expect(entry).not.toContain(`from"./_chunks/${bridge}"`);
    expect(entry).not.toContain('http.server.request.duration');
    expect(entry).not.toContain('OpenTelemetry Context Key SPAN');
  });

  it('is loaded when an SDK is registered, and the request gets its span', async () => {
    const server = await spawnServer(['--import', './otel.mjs', 'dist/hello/index.mjs'], { cwd: project.root });
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const res = await fetch(`${server.url}/hello`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      expect(await res.json()).toEqual({ trace: traceId });
      // The span is written when it ends, after the answer: wait for its line, not a guessed delay.
      await until(() => (server.stdout().includes('"span"') ? true : undefined), 20_000, 'the span line');
      const span = server
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"span"'))
        .map((line) => JSON.parse(line) as { span: string; traceId: string; parent: string | null });
      expect(span).toEqual([{ span: 'GET hello', traceId, parent: '00f067aa0ba902b7' }]);
    } finally {
      await server.stop();
    }
  });
});
