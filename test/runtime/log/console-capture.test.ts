/**
 * console.* inside a function under cloudfn start: each call made while a request runs is a
 * log line with that request's logid, function and trace ids, also when requests interleave;
 * outside a request a line without them; `captureConsole: false` leaves console alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../runtime/serve/create-app.js';
import { captureConsole, consoleCaptured, requestContext } from '../../../runtime/log/console-capture.js';
import { Logger } from '../../../runtime/log/logger.js';
import type { LogRecord } from '../../../runtime/log/record.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { createHttpServer, listen } from '../../../runtime/serve/http-server.js';
import { startProject } from '../../../runtime/serve/start.js';

const temps: string[] = [];
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-console-'));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

// Each request logs at every level, yielding between calls (timers and promises), so the
// calls of concurrent requests interleave.
const chatty = `
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export default async function (params) {
  const id = params.id;
  console.log('start', id);
  await pause(Number(id) % 3);
  console.info({ step: 'info', id });
  await Promise.resolve();
  console.warn('warn', id);
  await pause((Number(id) * 7) % 4);
  console.error('error', id);
  console.debug('debug', id);
  setTimeout(() => console.log('later', id), 1);
  await pause(5);
  return { id };
}
`;

async function start(dir: string, env: NodeJS.ProcessEnv) {
  const sink = createMemorySink();
  const server = await startProject(dir, {
    flags: { port: '0', host: '127.0.0.1' },
    env,
    logger: new Logger(sink),
    handleSignals: false,
    keepServing: false,
  });
  return { server, records: sink.records };
}

describe('console capture', () => {
  it('gives each console call of concurrent requests its own request logid, function, trace ids and level', async () => {
    const dir = project({ 'functions/chatty.mjs': chatty });
    const { server, records } = await start(dir, {});
    const answers: { id: string; logid: string; traceparent: string }[] = [];
    try {
      await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          const traceId = (i + 1).toString(16).padStart(32, '0');
          const traceparent = `00-${traceId}-00000000000000aa-01`;
          const res = await fetch(`${server.url}/chatty?id=${i}`, { headers: { traceparent } });
          expect(await res.json()).toEqual({ id: String(i) });
          answers.push({ id: String(i), logid: res.headers.get('x-platform-logid')!, traceparent: traceId });
        }),
      );
    } finally {
      await server.close();
    }
    const byId = new Map<string, LogRecord[]>();
    for (const record of records) {
      if (record.function !== 'chatty' || record.method !== undefined) continue;
      const id = String(record['id'] ?? String(record.msg).split(' ')[1]);
      byId.set(id, [...(byId.get(id) ?? []), record]);
    }
    expect(byId.size).toBe(24);
    for (const { id, logid, traceparent } of answers) {
      const lines = byId.get(id)!;
      expect(lines.map((r) => [r.level, r.msg ?? r['step']])).toEqual([
        ['log', `start ${id}`],
        ['info', 'info'],
        ['warn', `warn ${id}`],
        ['error', `error ${id}`],
        ['debug', `debug ${id}`],
        ['log', `later ${id}`],
      ]);
      for (const line of lines) {
        expect(line.logid).toBe(logid);
        expect(line.trace_id).toBe(traceparent);
        expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
      }
    }
  });

  it('writes a call outside any request without logid, function or trace ids, and restores console on close', async () => {
    const dir = project({ 'functions/hello.mjs': 'export default () => "hi";' });
    const before = console.info;
    const { server, records } = await start(dir, {});
    try {
      expect(console.info).not.toBe(before);
      console.info('outside', 1);
    } finally {
      await server.close();
    }
    expect(console.info).toBe(before);
    const line = records.find((r) => r.msg === 'outside 1');
    expect(line).toMatchObject({ level: 'info', msg: 'outside 1' });
    expect(Object.keys(line!).sort()).toEqual(['level', 'msg', 'time']);
  });

  it('is off with CLOUDFN_CAPTURE_CONSOLE=false: console is left as it was', async () => {
    const dir = project({ 'functions/hello.mjs': 'export default () => { console.log("not captured"); return 1; };' });
    const before = console.log;
    const printed: unknown[][] = [];
    console.log = (...values: unknown[]) => printed.push(values);
    try {
      const { server, records } = await start(dir, { CLOUDFN_CAPTURE_CONSOLE: 'false' });
      try {
        await (await fetch(`${server.url}/hello`)).text();
      } finally {
        await server.close();
      }
      expect(records.some((r) => r.msg === 'not captured')).toBe(false);
      expect(printed).toContainEqual(['not captured']);
    } finally {
      console.log = before;
    }
  });
});

describe('the request context', () => {
  // Entering it turns on async_hooks' promise tracking on node 20 and 22 (a cost on every
  // request), so the pipeline enters it only while console is captured.
  const seen = (): { hello: string; inside: boolean } => ({
    hello: 'x',
    inside: requestContext.getStore() !== undefined,
  });

  it('is not entered by an app embedded with createApp alone, and is once console is captured', async () => {
    const sink = createMemorySink();
    const app = createApp({ functions: [{ name: 'seen', handler: seen }], logger: new Logger(sink) });
    expect(app.options.captureConsole).toBe(true);
    const server = createHttpServer(app);
    const url = await listen(server, 0, '127.0.0.1').then((bound) => bound.url);
    try {
      expect(consoleCaptured()).toBe(false);
      expect(await (await fetch(`${url}/seen`)).json()).toEqual({ hello: 'x', inside: false });
      const restore = captureConsole(app.logger);
      try {
        expect(consoleCaptured()).toBe(true);
        expect(await (await fetch(`${url}/seen`)).json()).toEqual({ hello: 'x', inside: true });
      } finally {
        restore();
      }
      expect(consoleCaptured()).toBe(false);
      expect(await (await fetch(`${url}/seen`)).json()).toEqual({ hello: 'x', inside: false });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
