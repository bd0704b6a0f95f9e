#!/usr/bin/env node
/**
 * Allocation per request: what cloudfn's server process allocates for one GET `/hello?name=a`
 * and one POST `/echo` of 1 KB of JSON, against fastify (logger off) and raw node:http on the
 * same requests: bytes on the JavaScript heap, bytes outside it (ArrayBuffers and Buffers), and
 * the scavenges and mark-compacts per 10,000 requests, from V8's own counters (lib/allocation.mjs).
 * A fixed number of requests per turn, fresh servers per turn, kinds alternated per round;
 * medians with ranges. See docs/performance.md#allocation-per-request.
 *
 *   node test/bench/allocation.mjs [--node 24] [--requests 10000] [--rounds 3] [--kinds cloudfn,fastify,raw]
 *                                  [--node-flags=--max-semi-space-size=16] [--json]
 *                                  [--upload 200]
 *
 * --upload N adds a row for N multipart uploads of one 8 MiB file (POST /upload), for cloudfn,
 * raw node:http (the body read unparsed) and the --node-flags kind; fastify has no upload route.
 *
 * --node-flags adds a kind `cloudfn@<flags>`: cloudfn under those node flags.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBodies } from './lib/bodies.mjs';
import { allocationMedians, measureAllocation } from './lib/allocation-rows.mjs';
import { resolveNode } from './lib/node-versions.mjs';

const { values } = parseArgs({
  options: {
    node: { type: 'string', default: 'current' },
    requests: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    kinds: { type: 'string', default: 'cloudfn,fastify,raw' },
    'node-flags': { type: 'string' },
    upload: { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});
const fail = (message) => {
  process.stderr.write(`allocation: ${message}\n`);
  process.exit(1);
};

if (values.node !== 'current') {
  let node;
  try {
    node = resolveNode(values.node, { progress: (line) => process.stderr.write(`${line}\n`) });
  } catch (error) {
    fail(error.message);
  }
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === '--node' || a.startsWith('--node='));
  args.splice(at, args[at] === '--node' ? 2 : 1);
  const child = spawnSync(node.path, [fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

if (!existsSync(fileURLToPath(new URL('../../dist/runtime/index.js', import.meta.url))))
  fail('dist/ is missing: run npm run build first');
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
if (!Number.isInteger(requests) || requests < 100)
  fail(`--requests must be an integer of at least 100, got ${values.requests}`);
if (!Number.isInteger(warmup) || warmup < 0) fail(`--warmup must be a whole number, got ${values.warmup}`);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds must be a positive integer, got ${values.rounds}`);
const uploads = Number(values.upload);
if (!Number.isInteger(uploads) || uploads < 0) fail(`--upload must be a whole number of uploads, got ${values.upload}`);
const kinds = values.kinds.split(',').map((k) => k.trim());
if (values['node-flags'] !== undefined) kinds.push(`cloudfn@${values['node-flags'].split(/\s+/).join('@')}`);

const work = mkdtempSync(join(tmpdir(), 'cloudfn-allocation-'));
const bodies = writeBodies(work);
const REQUESTS = {
  get: { label: 'GET /hello?name=a', path: '/hello?name=a' },
  json: { label: 'POST /echo, JSON 1 KB', path: '/echo', request: bodies.json },
};
if (uploads > 0)
  REQUESTS.upload = {
    label: 'POST /upload, multipart 8 MiB',
    path: '/upload',
    request: bodies.upload,
    requests: uploads,
    warmup: Math.ceil(uploads / 4),
    kinds: kinds.filter((kind) => kind !== 'fastify'),
  };
const results = { node: process.version, requests, rounds, rows: {} };
try {
  for (const [key, row] of Object.entries(REQUESTS)) {
    const { label, path, request } = row;
    const measured = await measureAllocation({
      kinds: row.kinds ?? kinds,
      path,
      request,
      requests: row.requests ?? requests,
      warmup: row.warmup ?? warmup,
      rounds,
      logFile: join(work, 'server.log'),
    });
    results.rows[key] = { label, kinds: {} };
    for (const kind of row.kinds ?? kinds) {
      if (measured[kind].problems > 0)
        fail(`${kind} answered ${measured[kind].problems} requests of ${label} with an error`);
      results.rows[key].kinds[kind] = { ...allocationMedians(measured[kind]), rounds: measured[kind] };
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
else {
  const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;
  const out = [
    `node ${process.version}; ${requests} requests per turn after ${warmup}, ${rounds} rounds (medians)`,
    '',
    '| request | server | heap per request | outside the heap | total | against fastify | scavenges per 10k | mark-compacts per 10k |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { label, kinds: row } of Object.values(results.rows)) {
    const fastify = row.fastify?.total;
    const base = fastify ?? row.raw?.total;
    for (const [kind, m] of Object.entries(row))
      out.push(
        `| ${label} | ${kind} | ${kB(m.heap)} | ${kB(m.external)} | ${kB(m.total)} | ${base ? `${(m.total / base).toFixed(2)}×${fastify ? '' : ' raw'}` : '—'} | ${m.scavenges.toFixed(1)} | ${m.markCompacts.toFixed(1)} |`,
      );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
