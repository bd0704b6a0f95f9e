/**
 * The real CLI: `cloudfn start` over a folder of functions/*.ts, answering over a real socket,
 * logging JSON lines, refusing bad options in one line, and exiting 0 on SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendHttp } from '../runtime/helpers/transport.js';
import { until } from '../testing/until.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const fixture = new URL('../fixtures/project/', import.meta.url).pathname;

interface Started {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'start', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let buffer = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        if (typeof line['url'] === 'string')
          resolve({ child, url: (line['url'] as string).replace('localhost', '127.0.0.1'), lines, exited });
      }
    });
    void exited.then((code) => reject(new Error(`cloudfn start exited ${code}: ${stderr}`)));
  });
}

describe('cloudfn start', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startCli([fixture, '--port', '0', '--host', '127.0.0.1']);
  });
  afterAll(() => {
    server.child.kill('SIGKILL');
    rmSync(new URL('.cloudfn', `file://${fixture}`), { recursive: true, force: true });
  });

  it('logs a start-up line naming the functions', () => {
    expect(server.lines[0]).toMatchObject({
      level: 'info',
      function: 'cloudfn',
      functions: ['hello', 'legacy', 'nested', 'videos/get', 'videos/list'],
    });
  });

  it('serves TypeScript, CommonJS and ESM functions and the config file routes', async () => {
    const hello = await sendHttp(server.url, { path: '/hello?name=Ada' });
    expect(JSON.parse(hello.body.toString())).toEqual({ hello: 'Ada', trigger: 'online' });
    const legacy = await sendHttp(server.url, {
      method: 'POST',
      path: '/legacy',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(JSON.parse(legacy.body.toString())).toEqual({ style: 'commonjs', method: 'POST' });
    expect(JSON.parse((await sendHttp(server.url, { path: '/v/abc' })).body.toString())).toEqual({ vid: 'abc' });
    expect((await sendHttp(server.url, { path: '/nested' })).body.toString()).toBe('nested index');
    // functions.videos/list.maxBodySize = 1024 in cloudfn.config.json
    const big = await sendHttp(server.url, {
      method: 'POST',
      path: '/videos/list',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(2000),
    });
    expect(big.status).toBe(413);
  });

  it('writes JSON lines with logid and function for logs and requests', async () => {
    const answer = await sendHttp(server.url, {
      path: '/hello?name=Log',
      headers: { 'x-platform-logid': 'e2e-log-1' },
    });
    expect(answer.headers['x-platform-logid']).toBe('e2e-log-1');
    // The request line is written after the answer: wait for it rather than a guessed delay.
    await until(
      () => (server.lines.some((l) => l['logid'] === 'e2e-log-1' && l['status'] === 200) ? true : undefined),
      20_000,
      'the request line',
    );
    const mine = server.lines.filter((l) => l['logid'] === 'e2e-log-1');
    expect(mine).toEqual([
      expect.objectContaining({ level: 'info', event: 'greet', name: 'Log', function: 'hello' }),
      expect.objectContaining({ level: 'info', method: 'GET', path: '/hello', status: 200, function: 'hello' }),
    ]);
  });

  it('on SIGTERM answers its health paths 503 while still serving for CLOUDFN_DRAIN_DELAY, then exits 0', async () => {
    const other = await startCli([fixture, '--port', '0', '--host', '127.0.0.1'], { CLOUDFN_DRAIN_DELAY: '2000' });
    expect((await sendHttp(other.url, { path: '/hello' })).status).toBe(200);
    other.child.kill('SIGTERM');
    await until(
      () => other.lines.find((l) => String(l['msg']).startsWith('lame duck for 2000 ms')),
      20_000,
      'the lame-duck line',
    );
    const [ping, served] = await Promise.all([
      sendHttp(other.url, { path: '/v1/ping' }),
      sendHttp(other.url, { path: '/hello' }),
    ]);
    // Both answered within the period: the server still listened and had not begun refusing.
    expect(other.child.exitCode).toBeNull();
    expect(ping.status).toBe(503);
    expect(served.status).toBe(200);
    expect(served.headers['connection']).toBe('close');
    expect(await other.exited).toBe(0);
    expect(other.lines.some((l) => String(l['msg']).startsWith('SIGTERM received: serving for 2000 ms'))).toBe(true);
  });
});

describe('cloudfn start stack traces', () => {
  it('name the TypeScript line of a crash, not the compiled file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cloudfn-stack-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(
      join(root, 'functions/boom.ts'),
      'type Input = { n?: number };\n\nexport default function boom(params: Input): never {\n  throw new Error(`boom ${params.n ?? 0}`);\n}\n',
    );
    const started = await startCli([root, '--port', '0', '--host', '127.0.0.1']);
    try {
      expect((await sendHttp(started.url, { path: '/boom' })).status).toBe(500);
      const crash = await until(
        () => started.lines.find((line) => typeof line['stack'] === 'string'),
        20_000,
        'the crash line',
      );
      expect(crash['stack']).toMatch(/Error: boom 0\n\s+at (Object\.)?boom \(.*functions\/boom\.ts:4:9\)/);
      expect(crash['stack']).not.toContain('.cloudfn/start');
    } finally {
      started.child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('cloudfn start refuses bad input in one line', () => {
  it.each([
    [
      [fixture, '--port', 'abc'],
      {},
      'cloudfn: option port is invalid: must be an integer from 0 to 65535, got "abc" (from --port)\n',
    ],
    [
      [fixture],
      { PORT: '99999' },
      'cloudfn: option port is invalid: must be an integer from 0 to 65535, got "99999" (from PORT)\n',
    ],
    [[fixture, '--prot', '1'], {}, /^cloudfn: unknown option --prot; did you mean --port\?\n$/],
    [['/nonexistent/project'], {}, /^cloudfn: \/nonexistent\/project\/functions: there is no functions folder/],
  ])('%j %j', (args, env, message) => {
    const result = spawnSync(process.execPath, [cli, 'start', ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    if (typeof message === 'string') expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
