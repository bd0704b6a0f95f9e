/**
 * Issue 41's memory figure, measured on the real CLI: `cloudfn dev` as a child process serves
 * test/fixtures/ws-project; one client (raw TCP after a real handshake) reads nothing while
 * 200 MiB are pushed to it through the push API, and another (the `ws` client) reads. The dev
 * server's resident memory (/proc/<pid>/status) stays within 100 MiB of where it was, the
 * pushes past the bound report the stuck session failed, and the reader's push arrives in
 * under 2 s while the flood runs. The figures are printed for the closing note.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { freePort } from '../testing/free-port.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const FIXTURE = fileURLToPath(new URL('../fixtures/ws-project', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'cloudfn-slow-client-'));
cpSync(FIXTURE, root, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1024 * 1024;

function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function until<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A client that completes the handshake, then never reads again. */
function stuckClient(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = tcpConnect(Number(port), '127.0.0.1');
  socket.write(
    [
      'GET /__dycloud__/ws/connect/ HTTP/1.1',
      'Host: 127.0.0.1',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      'X-TT-SERVICE-PATH: /websocket_callback',
      'X-TT-OPENID: reads-nothing',
      '',
      '',
    ].join('\r\n'),
  );
  return new Promise((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => {
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 101')) return reject(new Error(chunk.toString('latin1')));
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function push(url: string, openid: string, body: Buffer | string) {
  const res = await fetch(`${url}/_cloudfn/ws-push/ws/push_data`, {
    method: 'POST',
    headers: { 'X-TT-WS-OPENIDS': JSON.stringify([openid]), 'content-type': 'application/octet-stream' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return (await res.json()) as { err_no: number; data: { failed_session_id_list: string[] } };
}

describe('a client that reads nothing under cloudfn dev', () => {
  it('200 MiB pushed to it leave the RSS within 100 MiB; another client still gets its push in under 2 s', async () => {
    ensureDist();
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'dev', root, '--port', String(port), '--no-typecheck'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await until(
        () => /dev server on (http:\/\/[\d.:]+)/.exec(output)?.[1],
        60_000,
        () => `the dev server (got ${output})`,
      );
      const stuck = await stuckClient(url);
      const reader = new WebSocket(`${url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
        headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', 'X-TT-OPENID': 'reads-everything' },
      });
      await new Promise((resolve, reject) => reader.once('open', resolve).once('error', reject));
      // Warm the push path, so the first measure is of a server that has served pushes.
      for (let i = 0; i < 5; i++) await push(url, 'reads-everything', 'warm');
      const before = rssOf(child.pid!);
      const chunk = Buffer.alloc(MiB, 1);
      let failedFrom = -1;
      let latency = -1;
      for (let i = 0; i < 200; i++) {
        const answer = await push(url, 'reads-nothing', chunk);
        expect(answer.err_no).toBe(0);
        const failed = answer.data.failed_session_id_list.length > 0;
        if (failed && failedFrom < 0) failedFrom = i;
        if (failedFrom >= 0) expect(failed, `push ${i}, after the first failed one (${failedFrom})`).toBe(true);
        if (i === 100) {
          const started = performance.now();
          const arrived = new Promise((resolve) => reader.once('message', resolve));
          await push(url, 'reads-everything', 'mid-flood');
          await arrived;
          latency = performance.now() - started;
        }
      }
      const after = rssOf(child.pid!);
      console.log(
        `slow client: RSS ${(before.rss / MiB).toFixed(1)} MiB before, ${(after.rss / MiB).toFixed(1)} MiB after ` +
          `(peak ${(after.peak / MiB).toFixed(1)} MiB); pushes failed from #${failedFrom} of 200 (1 MiB each); ` +
          `the reader's push arrived in ${latency.toFixed(1)} ms`,
      );
      expect(failedFrom).toBeGreaterThan(0);
      expect(after.rss - before.rss).toBeLessThan(100 * MiB);
      expect(latency).toBeGreaterThanOrEqual(0);
      expect(latency).toBeLessThan(2000);
      expect(output).toMatch(/closed \(4009\)/);
      expect(output.match(/closed \(4009\)/g)).toHaveLength(1);
      stuck.destroy();
      reader.close();
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
