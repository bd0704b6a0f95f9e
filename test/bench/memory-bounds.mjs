#!/usr/bin/env node
/**
 * The memory bounds under the two loads of issue 20, with and without them (not a unit test):
 *
 *   npm run build && node test/bench/memory-bounds.mjs [--clients 200] [--uploads 300]
 *
 * - unread: `clients` connections each ask for a 5 MiB answer and never read it;
 * - uploads: `uploads` concurrent 8 MiB uploads, each answered.
 * Each load runs against a fresh `serve()` of dist/ in a child process, once with the defaults
 * and once with the three bounds off (CLOUDFN_MEMORY_BUDGET=0, CLOUDFN_SEND_TIMEOUT=0,
 * CLOUDFN_MAX_CONNECTIONS=0), and reports the child's peak RSS (VmHWM), its RSS once the
 * clients are gone, and how the requests were answered. Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    uploads: { type: 'string', default: '300' },
    serve: { type: 'boolean', default: false },
  },
});

if (values.serve) {
  // The child: a server of dist/ with one function per load.
  const { serve } = await import(`${ROOT}dist/runtime/serve/start.js`);
  const { Logger } = await import(`${ROOT}dist/runtime/log/logger.js`);
  const running = await serve(
    [
      { name: 'big', handler: () => 'x'.repeat(5 * MIB) },
      { name: 'upload', handler: (params) => ({ size: params.length }) },
    ],
    {
      flags: { port: '0', host: '127.0.0.1' },
      env: process.env,
      overrides: { limits: { maxBodySize: 10 * MIB, maxFileSize: 10 * MIB } },
      logger: new Logger({ write() {} }),
      handleSignals: false,
      keepServing: false,
    },
  );
  process.stdout.write(`${running.port}\n`);
} else {
  const rows = [];
  for (const load of ['unread', 'uploads']) {
    for (const bounded of [true, false]) rows.push(await measure(load, bounded));
  }
  console.log(JSON.stringify(rows, null, 2));
}

/** Starts a child server, runs one load against it, and returns its figures. */
async function measure(load, bounded) {
  const env = bounded
    ? { ...process.env }
    : { ...process.env, CLOUDFN_MEMORY_BUDGET: '0', CLOUDFN_SEND_TIMEOUT: '0', CLOUDFN_MAX_CONNECTIONS: '0' };
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(Number(String(chunk)))));
  const baseline = status(child.pid, 'VmRSS');
  const answers =
    load === 'unread' ? await unread(port, Number(values.clients)) : await uploads(port, Number(values.uploads));
  await sleep(2000);
  const row = {
    load,
    bounds: bounded ? 'defaults' : 'off',
    baselineMiB: baseline,
    peakMiB: status(child.pid, 'VmHWM'),
    afterMiB: status(child.pid, 'VmRSS'),
    answers,
  };
  child.kill();
  return row;
}

/** `clients` connections ask for the 5 MiB answer and read nothing for 15 s, then leave. */
async function unread(port, clients) {
  const sockets = [];
  for (let i = 0; i < clients; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.pause();
    socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    sockets.push(socket);
  }
  await sleep(15_000);
  // Now read what is there: the status of each answer, or none when the server closed first.
  const statuses = {};
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          let head = '';
          socket.on('data', (chunk) => {
            if (head.length < 12) head += chunk.toString('latin1', 0, 12);
            socket.destroy();
          });
          socket.on('close', () => {
            const key = head.slice(9, 12) || 'closed';
            statuses[key] = (statuses[key] ?? 0) + 1;
            resolve();
          });
          socket.resume();
          setTimeout(() => socket.destroy(), 2000);
        }),
    ),
  );
  return statuses;
}

/** `count` concurrent 8 MiB uploads; resolves with the count of each answer status. */
async function uploads(port, count) {
  const body = Buffer.alloc(8 * MIB, 0x61);
  const statuses = {};
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve) => {
          const socket = connect(port, '127.0.0.1');
          let head = '';
          socket.on('error', () => undefined);
          socket.on('data', (chunk) => {
            if (head.length < 12) head += chunk.toString('latin1', 0, 12);
          });
          socket.on('close', () => {
            const key = head.slice(9, 12) || 'closed';
            statuses[key] = (statuses[key] ?? 0) + 1;
            resolve();
          });
          socket.on('connect', () => {
            socket.write(
              `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
            );
            socket.write(body);
          });
          setTimeout(() => socket.destroy(), 60_000);
        }),
    ),
  );
  return statuses;
}

/** A field of /proc/<pid>/status in MiB. */
function status(pid, field) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
