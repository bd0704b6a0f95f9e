#!/usr/bin/env node
/**
 * An A/B micro-benchmark of the POST body read (issue 25): what each piece of a 1 KB body read
 * costs, raw-body's own (the AsyncResource its callback form makes per read, the
 * process.nextTick it defers early errors with, the Buffer.concat of a single chunk) and the
 * runtime's around it (runtime/body/read-body.ts: its two listeners, the lazy load, the reader
 * object, the error mapping). Each pair of variants runs in alternated turns in this process
 * and is measured by CPU time (process.cpuUsage), so a machine loaded by other work moves both
 * sides alike; the figures are medians over turns, in ns per operation. Needs npm run build.
 *
 *   node test/bench/post-path.mjs [--turns 15] [--ops 20000]
 */
import { AsyncResource } from 'node:async_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: { turns: { type: 'string', default: '15' }, ops: { type: 'string', default: '20000' } },
});
const turns = Number(values.turns);
const ops = Number(values.ops);

const { readBodyThen, rawBody } = await import(`${ROOT}dist/runtime/body/read-body.js`);
const { createError } = await import(`${ROOT}dist/runtime/errors.js`);
const getRawBody = await rawBody.load();

const CHUNK = Buffer.alloc(1024, 0x61);
const noop = () => {};

/** CPU ns per op of `run(n)` (sync or async). */
async function cpuNsPerOp(run) {
  const before = process.cpuUsage();
  await run(ops);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / ops;
}

/** A, B alternated `turns` times (A first on even turns): medians and B − A. */
async function ab(name, a, b) {
  await a(Math.min(ops, 2000));
  await b(Math.min(ops, 2000));
  const times = { a: [], b: [] };
  for (let turn = 0; turn < turns; turn++)
    for (const side of turn % 2 === 0 ? ['a', 'b'] : ['b', 'a'])
      times[side].push(await cpuNsPerOp(side === 'a' ? a : b));
  const ma = median(times.a);
  const mb = median(times.b);
  const line = `${name}: A ${ma.toFixed(0)} ns, B ${mb.toFixed(0)} ns, B − A ${(mb - ma).toFixed(0)} ns per op`;
  process.stdout.write(`${line}\n`);
  return { name, a: ma, b: mb, delta: mb - ma };
}

/** A request-like stream carrying a 1 KB body in one chunk, as node's parser gives it. */
function request() {
  const req = new Readable({ read: noop });
  req.headers = { 'content-length': '1024', 'content-type': 'application/json' };
  req.push(CHUNK);
  req.push(null);
  return req;
}

/** Reads `n` bodies one after another with `read(req, callback)`. */
function serially(read) {
  return (n) =>
    new Promise((resolve) => {
      let left = n;
      const next = () => {
        if (left-- === 0) return resolve();
        read(request(), next);
      };
      next();
    });
}

/** The smallest correct reader: collect, concat, one callback. */
function handReader(req, callback) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => callback(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
}

const results = [];
process.stdout.write(`node ${process.version}, ${turns} alternated turns of ${ops} ops, CPU time (process.cpuUsage)\n`);

// The whole read, outside in.
results.push(
  await ab(
    'read 1 KB: A raw-body callback form alone, B through readBodyThen (ours around it)',
    serially((req, next) => getRawBody(req, { length: '1024', limit: 1e7 }, next)),
    serially((req, next) => readBodyThen(req, 1e7, 'maxBodySize', next, (cb) => cb(), noop)),
  ),
  await ab(
    'read 1 KB: A hand reader (no AsyncResource, no concat), B raw-body callback form',
    serially(handReader),
    serially((req, next) => getRawBody(req, { length: '1024', limit: 1e7 }, next)),
  ),
  await ab(
    'read 1 KB: A raw-body Promise form, B raw-body callback form',
    serially((req, next) => getRawBody(req, { length: '1024', limit: 1e7 }).then(() => next())),
    serially((req, next) => getRawBody(req, { length: '1024', limit: 1e7 }, next)),
  ),
);

// raw-body's pieces, alone.
let sink;
results.push(
  await ab(
    'AsyncResource per read: A plain callback, B new AsyncResource + bind (raw-body wrap)',
    (n) => {
      for (let i = 0; i < n; i++) sink = noop;
    },
    (n) => {
      for (let i = 0; i < n; i++) {
        const res = new AsyncResource('done');
        sink = res.runInAsyncScope.bind(res, noop, null);
      }
    },
  ),
  await ab(
    'process.nextTick deferral (early errors only): A direct call, B nextTick',
    (n) =>
      new Promise((resolve) => {
        for (let i = 0; i < n; i++) noop();
        resolve();
      }),
    (n) =>
      new Promise((resolve) => {
        let left = n;
        for (let i = 0; i < n; i++)
          process.nextTick(() => {
            if (--left === 0) resolve();
          });
      }),
  ),
  await ab(
    'Buffer.concat of one 1 KB chunk: A the chunk, B Buffer.concat([chunk])',
    (n) => {
      for (let i = 0; i < n; i++) sink = [CHUNK][0];
    },
    (n) => {
      for (let i = 0; i < n; i++) sink = Buffer.concat([CHUNK]);
    },
  ),
);

// Ours, alone.
const emitterOf = () => {
  const r = new Readable({ read: noop });
  return r;
};
function onError() {}
function onClose() {}
results.push(
  await ab(
    "our listeners: A none, B on('error') + on('close') + off('close')",
    (n) => {
      for (let i = 0; i < n; i++) sink = emitterOf();
    },
    (n) => {
      for (let i = 0; i < n; i++) {
        const r = emitterOf();
        r.on('error', onError);
        r.on('close', onClose);
        r.off('close', onClose);
        sink = r;
      }
    },
  ),
  await ab(
    'error mapping: A a plain Error, B createError(CLOUDFN_BODY_TOO_LARGE) (413 path only)',
    (n) => {
      for (let i = 0; i < n; i++) sink = new Error('too large');
    },
    (n) => {
      for (let i = 0; i < n; i++) sink = createError('CLOUDFN_BODY_TOO_LARGE', 1024, 'maxBodySize');
    },
  ),
);
void sink;
process.stdout.write(`${JSON.stringify({ node: process.version, turns, ops, results })}\n`);
