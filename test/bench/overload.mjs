#!/usr/bin/env node
/**
 * Issue 32's misbehaving loads against a server with its default limits (not a unit test):
 * for each load, the server's peak RSS and the share of a normal client's small GETs answered
 * 200 while the load runs, and for the uploads how they were answered and how long it took.
 *
 *   npm run build && node test/bench/overload.mjs [--dist dist] [--memory-mib 512] [--loads idle,slowloris,stalled,uploads]
 *
 * - idle: 2,000 keep-alive connections each send one GET and idle; then 20 GETs from others;
 * - slowloris: 600 connections dripping header bytes and 600 silent ones; 20 GETs meanwhile;
 * - stalled: 200 clients ask for a 5 MiB answer and never read it; 16 GETs meanwhile;
 * - uploads: 100 concurrent 8 MiB uploads, a small GET every 250 ms beside them.
 * `--dist` points at another build (an older commit's dist/, for a before/after table).
 * `--memory-mib` runs the server in a memory cgroup of that size (cgroup v1, as root), the
 * limit `podman --memory` sets, and says whether it survived. Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    'memory-mib': { type: 'string' },
    loads: { type: 'string', default: 'idle,slowloris,stalled,uploads' },
    serve: { type: 'boolean', default: false },
  },
});
const DIST = resolve(ROOT, values.dist);

async function measure(load) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', '--dist', values.dist], {
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const cgroup = values['memory-mib'] === undefined ? undefined : confine(child.pid, Number(values['memory-mib']));
  let exited = false;
  child.on('exit', () => (exited = true));
  const port = await new Promise((done) => child.stdout.once('data', (chunk) => done(Number(String(chunk)))));
  const started = performance.now();
  const result = await LOADS[load](port);
  const row = {
    load,
    peakRssMiB: exited ? null : status(child.pid, 'VmHWM'),
    normal200: `${result.normal.filter((s) => s === 200).length}/${result.normal.length}`,
    normalStatuses: count(result.normal),
    ...(result.other === undefined ? {} : { load200: count(result.other) }),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    survived: !exited,
    ...(cgroup === undefined ? {} : cgroup.read()),
  };
  child.kill();
  await new Promise((done) => (exited ? done() : child.once('exit', done)));
  cgroup?.remove();
  return row;
}

const LOADS = {
  async idle(port) {
    const sockets = [];
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          const s = await opened(port);
          sockets.push(s);
          s.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\n');
          await answered(s, 5000);
        }),
      );
    }
    const normal = await normalClient(port, 20, 100);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  async slowloris(port) {
    const sockets = [];
    for (let i = 0; i < 600; i++) {
      sockets.push(await opened(port), await opened(port));
    }
    let drip = 0;
    const timer = setInterval(() => {
      drip++;
      for (let i = 0; i < sockets.length; i += 2)
        if (!sockets[i].destroyed) sockets[i].write(drip === 1 ? 'GET /small HTTP/1.1\r\n' : `X-${drip}: a\r\n`);
    }, 1000);
    await sleep(2000);
    const normal = await normalClient(port, 20, 250);
    clearInterval(timer);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  async stalled(port) {
    const sockets = [];
    for (let i = 0; i < 200; i++) {
      const s = await opened(port);
      s.pause();
      s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
      sockets.push(s);
    }
    await sleep(1000);
    const normal = await normalClient(port, 16, 250);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  async uploads(port) {
    const body = Buffer.alloc(8 * MIB, 0x61);
    let done = false;
    const uploads = Promise.all(
      Array.from({ length: 100 }, async () => {
        const s = await opened(port);
        s.write(
          `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        );
        s.write(body);
        return answered(s, 60_000);
      }),
    ).finally(() => (done = true));
    const normal = [];
    while (!done) {
      normal.push(ask(port));
      await sleep(250);
    }
    return { normal: await Promise.all(normal), other: await uploads };
  },
};

function opened(port) {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    s.once('connect', () => done(s));
    s.once('close', () => done(s));
  });
}

/** The status of the first answer on `s`, or 0 when none came within `ms`. */
function answered(s, ms) {
  return new Promise((done) => {
    let head = '';
    const finish = () => {
      clearTimeout(timer);
      done(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
    };
    const timer = setTimeout(finish, ms);
    s.on('data', (chunk) => {
      if (head.length < 16) head += chunk.toString('latin1', 0, 16);
      if (head.length >= 12) finish();
    });
    s.once('close', finish);
  });
}

async function ask(port) {
  const s = await opened(port);
  s.write('GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const got = await answered(s, 10_000);
  s.destroy();
  return got;
}

async function normalClient(port, n, everyMs) {
  const asked = [];
  for (let i = 0; i < n; i++) {
    asked.push(ask(port));
    await sleep(everyMs);
  }
  return Promise.all(asked);
}

function count(statuses) {
  const out = {};
  for (const s of statuses) out[s || 'none'] = (out[s || 'none'] ?? 0) + 1;
  return out;
}

/** Puts `pid` in a new cgroup v1 memory group of `mib`; its peak and OOM kills are read back. */
function confine(pid, mib) {
  const dir = `/sys/fs/cgroup/memory/cloudfn-bench-${process.pid}-${pid}`;
  mkdirSync(dir);
  writeFileSync(`${dir}/memory.limit_in_bytes`, String(mib * MIB));
  writeFileSync(`${dir}/cgroup.procs`, String(pid));
  return {
    read: () => ({
      cgroupPeakMiB: Math.round(Number(readFileSync(`${dir}/memory.max_usage_in_bytes`, 'utf8')) / MIB),
      oomKills: Number(/oom_kill (\d+)/.exec(readFileSync(`${dir}/memory.oom_control`, 'utf8'))?.[1] ?? 0),
    }),
    remove: () => {
      if (existsSync(dir)) rmdirSync(dir);
    },
  };
}

function status(pid, field) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN) / 1024);
}

function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}

// Last: the loads table above must be initialized before the top-level await uses it.
if (values.serve) {
  const { serve } = await import(pathToFileURL(`${DIST}/runtime/serve/start.js`).href);
  const { Logger } = await import(pathToFileURL(`${DIST}/runtime/log/logger.js`).href);
  const big = 'x'.repeat(5 * MIB);
  const running = await serve(
    [
      { name: 'small', handler: () => 'ok' },
      { name: 'big', handler: () => big },
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
  for (const load of values.loads.split(',')) rows.push(await measure(load));
  console.log(JSON.stringify({ dist: values.dist, memoryMiB: values['memory-mib'] ?? null, rows }, null, 2));
}
