#!/usr/bin/env node
/**
 * The ablation in process: what each part of lib/ablation-variants.mjs costs cloudfn's own code
 * on a GET `/hello?name=a` and a POST `/echo` of 1 KB of JSON, without sockets, the kernel or a
 * load generator. One worker process per variant (cloudfn with everything on, and with one part
 * off: a patched copy of dist/) serves requests made of node's own IncomingMessage and
 * ServerResponse on a stand-in connection that drops what is written, 64 at a time and then a
 * turn of the event loop (the request lines are written, to /dev/null, once per turn as under load); the parent
 * asks the workers for batches in alternated order, many times, and each reports the CPU time
 * (process.cpuUsage: user and system, every thread) its batch took. Short alternated batches
 * keep a machine shared with other work from landing on one side only. Medians and ranges of
 * the per-batch differences, in ns per request. Needs npm run build. Bench only; see
 * docs/performance-history.md#the-ablation.
 *
 *   node test/bench/request-path.mjs [--node 24] [--requests get,json] [--parts log,trace,...]
 *                                    [--batches 40] [--requests-per-batch 20000]
 */
import { fork, spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { jsonBody } from './lib/bodies.mjs';
import { resolveNode } from './lib/node-versions.mjs';
import { median } from './lib/stats.mjs';
import { ABLATION_PARTS, ablatedDist, partsOf } from './lib/ablation-variants.mjs';

const SELF = fileURLToPath(import.meta.url);
const PARTS = [...ABLATION_PARTS, 'all'];

if (process.argv[2] === '--worker') await worker(process.argv[3]);
else await parent();

/** The parent: starts one worker per variant and alternates their batches. */
async function parent() {
  const { values } = parseArgs({
    options: {
      node: { type: 'string', default: 'current' },
      requests: { type: 'string', default: 'get,json' },
      parts: { type: 'string', default: PARTS.join(',') },
      batches: { type: 'string', default: '40' },
      'requests-per-batch': { type: 'string', default: '20000' },
    },
  });
  if (values.node !== 'current') {
    const node = resolveNode(values.node, { progress: (line) => process.stderr.write(`${line}\n`) });
    const args = process.argv.slice(2);
    const at = args.findIndex((a) => a === '--node' || a.startsWith('--node='));
    args.splice(at, args[at] === '--node' ? 2 : 1);
    process.exit(spawnSync(node.path, [SELF, ...args], { stdio: 'inherit' }).status ?? 1);
  }
  const batches = Number(values.batches);
  const perBatch = Number(values['requests-per-batch']);
  const parts = values.parts.split(',').map((p) => p.trim());
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`--parts takes ${PARTS.join(', ')}; got ${p}`);
  const out = [`node ${process.version}; ${batches} alternated batches of ${perBatch} requests per variant`];
  for (const request of values.requests.split(',')) {
    const variants = ['', ...parts];
    const workers = new Map(variants.map((v) => [v, start(v, request)]));
    await Promise.all([...workers.values()].map((w) => w.ask(perBatch))); // warm-up
    const cpu = new Map(variants.map((v) => [v, []]));
    for (let b = 0; b < batches; b++) {
      // The full cloudfn next to each variant, in an order that rotates.
      const order = b % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) cpu.get(v).push((await workers.get(v).ask(perBatch)) / perBatch);
    }
    for (const w of workers.values()) w.stop();
    const on = cpu.get('');
    const ns = (us) => `${Math.round(us * 1000)}`;
    out.push(
      '',
      `**${request === 'get' ? 'GET /hello?name=a' : 'POST /echo, JSON 1 KB'}**: cloudfn's own request path, ${ns(median(on))} ns of CPU per request (median over batches; ${ns(Math.min(...on))}-${ns(Math.max(...on))}).`,
      '',
      '| part turned off | ns per request without it | saved, ns per request (median, range over batches) |',
      '|---|---|---|',
    );
    for (const part of parts) {
      const off = cpu.get(part);
      const saved = on.map((v, i) => (v - off[i]) * 1000);
      out.push(
        `| ${part} | ${ns(median(off))} | ${Math.round(median(saved))} (${Math.round(Math.min(...saved))} to ${Math.round(Math.max(...saved))}) |`,
      );
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/** A worker process serving batches on demand; `ask(n)` resolves with the CPU µs of n requests. */
function start(ablate, request) {
  const child = fork(SELF, ['--worker', request], {
    env: { ...process.env, BENCH_CLOUDFN_DIST: ablatedDist(partsOf(ablate)) },
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit', 'ipc'],
  });
  return {
    ask: (n) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(n);
      }),
    stop: () => child.kill(),
  };
}

/** A worker: an app with the bench's functions, serving in-memory requests when asked. */
async function worker(request) {
  const http = process.getBuiltinModule('node:http');
  const { createApp } = await import(pathToFileURL(`${process.env.BENCH_CLOUDFN_DIST}/runtime/index.js`).href);
  const { hello, echo } = await import('./servers/functions.mjs');
  const app = createApp({
    functions: [
      { name: 'hello', handler: hello },
      { name: 'echo', handler: echo },
    ],
  });
  const body = Buffer.from(jsonBody());
  const { Duplex } = process.getBuiltinModule('node:stream');
  /** A connection that takes every byte written and never sends any. */
  class Connection extends Duplex {
    remoteAddress = '127.0.0.1';
    _read() {}
    _write(_chunk, _encoding, callback) {
      callback();
    }
    _writev(_chunks, callback) {
      callback();
    }
    setTimeout() {
      return this;
    }
  }
  // One connection per request of a batch: node's ServerResponse writes the head and the body
  // to it, and lets it go once finished, before the next batch.
  const connections = Array.from({ length: 64 }, () => new Connection());
  let answered = 0;
  function onFinish() {
    this.detachSocket(this.socket);
    answered++;
  }
  const headers = { host: '127.0.0.1:8080' };
  const post = { host: '127.0.0.1:8080', 'content-type': 'application/json', 'content-length': String(body.length) };
  const makeRequest = (socket) => {
    const req = new http.IncomingMessage(socket);
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    if (request === 'get') {
      req.method = 'GET';
      req.url = '/hello?name=a';
      req.headers = { ...headers };
    } else {
      req.method = 'POST';
      req.url = '/echo';
      req.headers = { ...post };
      req.push(body);
      req.push(null);
      // As node's parser marks a request whose body it has read whole.
      req.complete = true;
    }
    return req;
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const serve = async (n) => {
    answered = 0;
    for (let sent = 0; sent < n; ) {
      for (let i = 0; i < 64 && sent < n; i++, sent++) {
        const socket = connections[i];
        const req = makeRequest(socket);
        const res = new http.ServerResponse(req);
        res.assignSocket(socket);
        res.on('finish', onFinish);
        app.handle(req, res);
      }
      while (answered < sent) await turn();
    }
  };
  process.on('message', async (n) => {
    const before = process.cpuUsage();
    await serve(n);
    const used = process.cpuUsage(before);
    process.send(used.user + used.system);
  });
}
