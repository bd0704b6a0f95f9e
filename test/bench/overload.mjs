#!/usr/bin/env node
/**
 * Issue 32's misbehaving loads against a server with its default limits (not a unit test):
 * for each load, the server's peak memory and the share of a normal client's small GETs
 * answered 200 while the load runs, and for the uploads how they were answered and how long it
 * took. The loads are in ./lib/overload-loads.mjs.
 *
 *   npm run build && node test/bench/overload.mjs [--dist dist] [--memory-mib 512] [--podman] [--loads idle,slowloris,stalled,uploads]
 *
 * - idle: 2,000 keep-alive connections each send one GET and idle; then 20 GETs from others;
 * - slowloris: 600 connections dripping header bytes and 600 silent ones; 20 GETs meanwhile;
 * - stalled: 200 clients ask for a 5 MiB answer and never read it; 16 GETs meanwhile;
 * - uploads: 100 concurrent 8 MiB uploads, a small GET every 250 ms beside them.
 * `--dist` points at another build (an older commit's dist/, for a before/after table).
 * `--memory-mib` runs the server in a memory cgroup of that size (cgroup v1, as root), the
 * limit `podman --memory` sets, and says whether it survived. `--podman` runs `cloudfn start`
 * of a small project in a podman container with `--memory <memory-mib, default 512>m` instead
 * (./lib/podman-server.mjs; `node test/setup/container-image.mjs` sets podman up), one
 * container per load, and reads the container's cgroup peak and whether it was OOM-killed.
 * Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LOADS, count } from './lib/overload-loads.mjs';
import { freePort } from './lib/probe.mjs';
import { podmanMissing, startPodmanServer } from './lib/podman-server.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    'memory-mib': { type: 'string' },
    podman: { type: 'boolean', default: false },
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
    ...answers(result),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    survived: !exited,
    ...(cgroup === undefined ? {} : cgroup.read()),
  };
  child.kill();
  await new Promise((done) => (exited ? done() : child.once('exit', done)));
  cgroup?.remove();
  return row;
}

/** The load in a podman container of `--memory-mib` (512 by default). */
async function measureInPodman(load) {
  const server = await startPodmanServer({
    repo: ROOT,
    cli: resolve(DIST, 'src/cli/index.js'),
    port: await freePort(),
    memory: `${values['memory-mib'] ?? 512}m`,
    name: `cloudfn-overload-${load}-${process.pid}`,
  });
  const started = performance.now();
  const result = await LOADS[load](server.port);
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  return { load, ...answers(result), seconds, ...server.finish() };
}

function answers(result) {
  return {
    normal200: `${result.normal.filter((s) => s === 200).length}/${result.normal.length}`,
    normalStatuses: count(result.normal),
    ...(result.other === undefined ? {} : { load200: count(result.other) }),
  };
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
  const missing = values.podman ? podmanMissing(ROOT) : undefined;
  if (missing !== undefined) {
    console.error(`overload: --podman: ${missing}`);
    process.exit(2);
  }
  const rows = [];
  for (const load of values.loads.split(',')) rows.push(await (values.podman ? measureInPodman : measure)(load));
  const memoryMiB = values['memory-mib'] ?? (values.podman ? '512' : null);
  console.log(JSON.stringify({ dist: values.dist, podman: values.podman, memoryMiB, rows }, null, 2));
}
