/**
 * The metrics endpoint over a real socket: its text parses with an independent Prometheus
 * parser (parse-prometheus-text-format), and its counters match a known run of 200s, 404s,
 * a 413, a 504 timeout, a 499 disconnect and a 500. Off by default, and refused under a route
 * written in /_cloudfn/.
 */
import { request } from 'node:http';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const never = (): Promise<never> => new Promise(() => undefined);
const functions: FunctionSpec[] = [
  { name: 'a', handler: () => ({ ok: true }) },
  { name: 'boom', handler: () => Promise.reject(new Error('boom')) },
  { name: 'slow', handler: never, config: { timeout: 30 } },
  {
    name: 'hang',
    handler: (_p, service) => new Promise((resolve) => service.signal.addEventListener('abort', resolve)),
  },
  { name: 'small', handler: () => 'ok', config: { maxBodySize: 8 } },
];

async function start(metrics: boolean | undefined, routes?: Record<string, string>) {
  running = await serve(functions, {
    flags: { port: '0', host: '127.0.0.1' },
    env: metrics === undefined ? {} : { CLOUDFN_METRICS: String(metrics) },
    routes,
    logger: new Logger(createMemorySink()),
    handleSignals: false,
    keepServing: false,
  });
  return running.url.replace('localhost', '127.0.0.1');
}

/** A request given up before its answer: the server logs it 499. */
function disconnect(url: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url);
    req.on('error', () => undefined);
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 50);
  });
}

function family(text: string, name: string) {
  const found = parsePrometheusTextFormat(text).find((f) => f.name === name);
  if (found === undefined) throw new Error(`no ${name} in:\n${text}`);
  return found;
}

function value(text: string, name: string, labels: Record<string, string> = {}): number {
  const sample = family(text, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? 0 : Number(sample.value);
}

/** The value of the sample line `series value`, checked against the text format's grammar. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in:\n${text}`);
  expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? [-+0-9.eEInfNa]+$/);
  return Number(line.slice(series.length + 1));
}

describe('the metrics endpoint', () => {
  it('counts a known run, in text a Prometheus parser reads', async () => {
    const url = await start(true);
    const finished = new Promise<void>((resolve) => {
      let n = 0;
      running!.app.observers.add(() => {
        if (++n === 10) resolve();
      });
    });
    for (let i = 0; i < 4; i++) expect((await fetch(`${url}/a`)).status).toBe(200);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    expect((await fetch(`${url}/nope/deeper`)).status).toBe(404);
    expect((await fetch(`${url}/small`, { method: 'POST', body: 'more than eight bytes' })).status).toBe(413);
    expect((await fetch(`${url}/slow`)).status).toBe(504);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    await disconnect(`${url}/hang`);
    await finished;

    const response = await fetch(`${url}/_cloudfn/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();

    expect(family(text, 'cloudfn_requests_total').type).toBe('COUNTER');
    expect(value(text, 'cloudfn_requests_total', { function: 'a', status: '200' })).toBe(4);
    expect(value(text, 'cloudfn_requests_total', { function: '', status: '404' })).toBe(2);
    expect(value(text, 'cloudfn_requests_total', { function: 'small', status: '413' })).toBe(1);
    expect(value(text, 'cloudfn_requests_total', { function: 'slow', status: '504' })).toBe(1);
    expect(value(text, 'cloudfn_requests_total', { function: 'hang', status: '499' })).toBe(1);
    expect(value(text, 'cloudfn_request_errors_total', { function: 'boom', status: '500' })).toBe(1);
    expect(value(text, 'cloudfn_request_errors_total', { function: 'slow', status: '504' })).toBe(1);
    expect(value(text, 'cloudfn_request_errors_total', { function: 'a' })).toBe(0);
    expect(value(text, 'cloudfn_timeouts_total', { function: 'slow' })).toBe(1);
    expect(value(text, 'cloudfn_client_disconnects_total', { function: 'hang' })).toBe(1);
    expect(value(text, 'cloudfn_body_limit_refusals_total', { function: 'small' })).toBe(1);
    // The scrape itself is not a request: nothing is in flight while it is answered.
    expect(value(text, 'cloudfn_requests_in_flight')).toBe(0);

    expect(family(text, 'cloudfn_request_duration_seconds').type).toBe('HISTOGRAM');
    // parse-prometheus-text-format folds a labelled histogram's series into one: read those
    // samples by the exposition format's line grammar instead.
    expect(sample(text, 'cloudfn_request_duration_seconds_count{function="slow",status="504"}')).toBe(1);
    // Its 30 ms timeout: Node's timers run on the event loop's millisecond clock, so the measured
    // duration may be a fraction of a millisecond under 30 ms (29.8 seen under load).
    expect(sample(text, 'cloudfn_request_duration_seconds_sum{function="slow",status="504"}')).toBeGreaterThan(0.025);
    expect(sample(text, 'cloudfn_request_duration_seconds_bucket{le="0.025",function="slow",status="504"}')).toBe(0);
    expect(sample(text, 'cloudfn_request_duration_seconds_bucket{le="+Inf",function="slow",status="504"}')).toBe(1);
    expect(sample(text, 'cloudfn_request_duration_seconds_count{function="a",status="200"}')).toBe(4);

    const cold = value(text, 'cloudfn_cold_start_seconds');
    expect(cold).toBeGreaterThan(0);
    expect(cold).toBeLessThan(process.uptime());
    expect(family(text, 'cloudfn_event_loop_delay_p99_seconds').type).toBe('GAUGE');
    expect(value(text, 'cloudfn_event_loop_delay_max_seconds')).toBeGreaterThanOrEqual(0);

    // A scrape is not counted, and a second one reads the same counters.
    const again = await (await fetch(`${url}/_cloudfn/metrics?x=1`)).text();
    expect(value(again, 'cloudfn_requests_total', { function: 'a', status: '200' })).toBe(4);
  });

  it('is off by default: the path goes to routing like any other', async () => {
    const url = await start(undefined);
    const response = await fetch(`${url}/_cloudfn/metrics`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('CLOUDFN_NOT_FOUND');
    expect(running!.app.metrics).toBeUndefined();
  });

  it('refuses at start-up a custom route written under /_cloudfn/, which it would shadow', async () => {
    await expect(start(true, { '/_cloudfn/metrics': 'a' })).rejects.toThrow(
      'cloudfn.config routes "/_cloudfn/metrics": routes to a under /_cloudfn/, where cloudfn answers /_cloudfn/metrics before routing; choose a path outside /_cloudfn/',
    );
    // A catch-all is meant for every other path: the metrics path still wins.
    const url = await start(true, { '/{*path}': 'a' });
    expect((await fetch(`${url}/anything`)).status).toBe(200);
    expect((await fetch(`${url}/_cloudfn/metrics`)).headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
