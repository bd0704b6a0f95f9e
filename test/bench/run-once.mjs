#!/usr/bin/env node
/**
 * One run of the benchmark on the Node that runs this script: cloudfn against raw node:http,
 * node:crypto and its peers (fastify, hono, express, functions-framework), each row a ratio
 * against a baseline measured in the same run (see docs/performance.md for how to read the
 * tables). It benchmarks what `npm run build` put in dist/, prints two Markdown tables (the
 * goals, the peers) and writes its results to --out. `npm run bench` (run.mjs) calls it once
 * per Node version and run, and combines the runs.
 *
 *   node test/bench/run-once.mjs [--rounds 3] [--seconds 3] [--warmup 1] [--only get,json,...]
 *                                [--out test/bench/results.json] [--load wrk|autocannon]
 *
 * Groups for --only:
 *   get      GET against raw and fastify (logger off), its p99 latency and peak RSS
 *   json     POST JSON 1 KB against raw and fastify (logger off), and its peak RSS against fastify's
 *   contract POST JSON 1 KB with a zod 4 params schema against none; tsc on a 50-function client
 *   unused   costs nothing when unused: GET and POST JSON to a function without a schema in an
 *            app whose other functions declare zod schemas, against the same functions and
 *            schemas, not declared (zod loaded on both sides); GET with
 *            trustGatewayHeaders on (no x-tt-logid sent) against off
 *   peers    the peers table: every peer in the GET and JSON rounds (run without get or json,
 *            those rounds still run, for the peers table only)
 *   upload   multipart 8 MiB against reading the body unparsed: 4 uploads in flight (the goal
 *            row) and one at a time (upload-serial)
 *   sign     signRequest and verifyResponse against bare node:crypto
 *   cold     cold start of the built hello bundle against a bare node:http script, and with
 *            its compile cache on against off (Node >= 22.1)
 *   bundle   bytes of the hello bundle built with --minify
 *   build    cloudfn build of 10, 100 and 300 generated functions, and of 10 and 50 for the
 *            function service, against esbuild's own one-pass time on the same code (lib/build-scale.mjs)
 *   workers  cloudfn start --workers auto against --workers 1: req/s and CPU per request
 *   reload   the dev server's reload and type check
 *   console  console.log captured in a request against service.log, and GET with capture on
 *            against capture off (no console call)
 *   gateway  the dev server's WebSocket gateway against a bare ws server: 1,000 connections
 *            opened and held, one group push reaching all of them, memory per connection
 *   alloc    bytes allocated per GET and per POST JSON 1 KB (heap and outside it, V8's own
 *            counters: lib/allocation.mjs) against fastify (logger off)
 * A group left out still has its rows in the tables, marked "not run".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBodies } from './lib/bodies.mjs';
import { machine, pinned } from './lib/cpu.mjs';
import { measureKinds } from './lib/http-rows.mjs';
import { formatPeerTable, formatTable, peerRow, ratioRow, skippedPeerRow, skippedRow } from './lib/rows.mjs';
import { bundleSizeRow } from './lib/bundle-size.mjs';
import { BUILD_ROWS, buildRows } from './lib/build-scale.mjs';
import { coldStartRows } from './lib/cold-start.mjs';
import { workersRows, WORKERS_BASELINE, WORKERS_BENCHMARK, WORKERS_CPU_BENCHMARK } from './lib/workers.mjs';
import { PEER_LABELS, PEERS, peerVersions } from './servers/peers.mjs';
import { reloadRow, typecheckRows } from './lib/reload.mjs';
import { measureAllocation } from './lib/allocation-rows.mjs';

const JSON_MEMORY_BENCHMARK = 'peak RSS under the POST JSON 1 KB load, against fastify';
const SIGN_BASELINE = 'crypto.sign, KeyObject, lines encoded and signature to base64 per call';
const VERIFY_BASELINE = 'crypto.verify, KeyObject, signature decoded and lines encoded per call';
const SIGN_PREPARED_BENCHMARK = 'signRequest, against the earlier baseline';
const VERIFY_PREPARED_BENCHMARK = 'verifyResponse, against the earlier baseline';
const SIGN_PREPARED_BASELINE = 'crypto.sign, KeyObject, bytes prepared once, signature left binary';
const VERIFY_PREPARED_BASELINE = 'crypto.verify, KeyObject, bytes and signature prepared once';
const CONSOLE_CALL_BENCHMARK = 'console.log in a request, captured as a JSON line';
const CONSOLE_REQUEST_BENCHMARK = 'GET tiny function with console capture on, no console call';
const GATEWAY_CONNECTIONS = 1000;
const GATEWAY_BASELINE = 'bare ws server on node:http';
const GATEWAY_OPEN_BENCHMARK = `dev WebSocket gateway: open and hold ${GATEWAY_CONNECTIONS.toLocaleString('en-US')} connections (connect calls the function)`;
const GATEWAY_PUSH_BENCHMARK = `dev WebSocket gateway: one group push reaching all ${GATEWAY_CONNECTIONS.toLocaleString('en-US')}`;
const GATEWAY_MEMORY_BENCHMARK = 'dev WebSocket gateway: memory kept per held connection (heap + external, after gc)';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UPLOAD_ROWS = [
  ['upload', 'multipart upload, one 8 MiB file', 4, { op: '>=', value: 0.85 }],
  ['upload-serial', 'multipart upload, one 8 MiB file, one upload at a time', 1, undefined],
];
const CONTRACT_JSON_BENCHMARK = 'POST JSON echo, 1 KB, params declared with zod 4';
const CONTRACT_CLIENT_BENCHMARK = 'tsc --noEmit on the client of 50 functions (cloudfn client) and 50 calls';
const UNUSED_PARAMS_GET_BENCHMARK = 'GET tiny function without a schema, other functions declare params';
const UNUSED_PARAMS_JSON_BENCHMARK = 'POST JSON echo, 1 KB, without a schema, other functions declare params';
const UNUSED_LOGID_BENCHMARK = 'GET tiny function, trustGatewayHeaders on, no x-tt-logid sent';
const UNUSED_PARAMS_BASELINE = 'the same app, the same zod schemas built but not declared';
const UNUSED_LOGID_BASELINE = 'the same app, trustGatewayHeaders off';
const UNUSED_NOTE = 'goal: a feature the function does not use costs nothing (>= 0.98×)';
const ALLOC_GET_BENCHMARK = 'bytes allocated per GET tiny function (heap and outside it)';
const ALLOC_JSON_BENCHMARK = 'bytes allocated per POST JSON 1 KB (heap and outside it)';
const GROUPS = [
  'get',
  'json',
  'peers',
  'upload',
  'sign',
  'cold',
  'bundle',
  'build',
  'workers',
  'reload',
  'console',
  'gateway',
  'contract',
  'unused',
  'alloc',
];

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'test/bench/results.json') },
    quiet: { type: 'boolean', default: false },
    load: { type: 'string', default: 'wrk' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
if (!Number.isInteger(rounds) || rounds < 3)
  fail(`--rounds must be an integer of at least 3 (the table shows medians), got ${values.rounds}`);
const load = values.load;
if (load !== 'wrk' && load !== 'autocannon') fail(`--load must be wrk or autocannon, got ${load}`);
// wrk counts whole seconds only.
const whole = (n) => load === 'autocannon' || Number.isInteger(n);
if (!(seconds > 0) || !whole(seconds))
  fail(`--seconds must be a positive ${load === 'wrk' ? 'whole ' : ''}number, got ${values.seconds}`);
if (!(warmup >= 0) || !whole(warmup))
  fail(`--warmup must be zero or more ${load === 'wrk' ? 'whole ' : ''}seconds, got ${values.warmup}`);
const only = values.only === undefined ? GROUPS : values.only.split(',').map((g) => g.trim());
for (const group of only) if (!GROUPS.includes(group)) fail(`--only takes ${GROUPS.join(', ')}; got ${group}`);
if (!existsSync(join(ROOT, 'dist/runtime/index.js'))) fail('dist/ is missing: run npm run build first');
const stale = staleSources();
if (stale.length > 0)
  process.stderr.write(
    `bench: warning: dist/ is older than ${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ` and ${stale.length - 3} more` : ''}; run npm run build to measure them\n`,
  );

/** Sources of runtime/ and src/ newer than their build output. */
function staleSources() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const built = join(ROOT, 'dist', path.replace(/\.ts$/, '.js'));
        if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(ROOT, path)).mtimeMs) out.push(path);
      }
    }
  };
  walk('runtime');
  walk('src/sign');
  return out;
}
if (load === 'wrk') {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is a problem.
    if (error.code === 'ENOENT') fail('wrk is not installed: apt-get install wrk, or pass --load autocannon');
  }
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const log = values.quiet ? () => {} : (line) => process.stderr.write(line + '\n');
const work = mkdtempSync(join(tmpdir(), 'cloudfn-bench-'));
const logFile = join(work, 'server.log');
const bodies = writeBodies(work);
const started = Date.now();
const rows = [];
const http = { rounds, seconds, warmup, logFile, load, progress: log };

/** Problems that make an HTTP row meaningless: any answer that was not a 2xx, any socket error. */
function problemsOf(...runs) {
  const problems = [];
  const non2xx = runs.flat().reduce((n, r) => n + r.non2xx, 0);
  const socket = runs.flat().reduce((n, r) => n + r.socketErrors, 0);
  if (non2xx > 0) problems.push(`${non2xx} non-2xx answers`);
  if (socket > 0) problems.push(`${socket} socket errors`);
  return problems;
}

/** CPU µs per request of both sides, round by round. */
function cpuOf(subject, base) {
  return { subject: subject.map((x) => x.cpuMicrosPerRequest), base: base.map((x) => x.cpuMicrosPerRequest) };
}

/** The fastify row of a request: cloudfn against fastify with its logger off, from the same rounds. */
function fastifyRow(r, { id, benchmark }) {
  return ratioRow({
    id,
    benchmark,
    baseline: PEER_LABELS.fastify,
    unit: 'req/s',
    subject: r.cloudfn.map((x) => x.rps),
    base: r.fastify.map((x) => x.rps),
    goal: { op: '>=', value: 1.0 },
    problems: problemsOf(r.cloudfn, r.fastify),
    cpu: cpuOf(r.cloudfn, r.fastify),
  });
}

/** The requests of the peers table: the id suffix of their rows, and their label. */
const PEER_REQUESTS = { get: 'GET', json: 'POST JSON' };

/** The peer rows of a request ('get' or 'json'): each peer against raw, cloudfn against each peer. */
function peerRows(r, key) {
  const request = PEER_REQUESTS[key];
  return PEERS.map((peer) =>
    peerRow({
      id: `peer-${peer}-${key}`,
      peer: PEER_LABELS[peer],
      request,
      unit: 'req/s',
      subject: r[peer].map((x) => x.rps),
      raw: r.raw.map((x) => x.rps),
      cloudfn: r.cloudfn.map((x) => x.rps),
      cpu: {
        subject: r[peer].map((x) => x.cpuMicrosPerRequest),
        raw: r.raw.map((x) => x.cpuMicrosPerRequest),
        cloudfn: r.cloudfn.map((x) => x.cpuMicrosPerRequest),
      },
      problems: problemsOf(r[peer]),
    }),
  );
}

// raw, cloudfn and fastify (logger off) always share the rounds of a request: the goal rows
// need all three. --only peers adds the other peers to the same rounds.
const withPeers = only.includes('peers');
const kindsOf = () => ['raw', 'cloudfn', ...(withPeers ? PEERS : ['fastify'])];

try {
  if (only.includes('get') || withPeers) {
    log(`GET /hello?name=world: ${kindsOf().join(', ')}`);
    const r = await measureKinds({
      ...http,
      kinds: kindsOf(),
      path: '/hello?name=world',
      connections: 64,
    });
    if (only.includes('get')) {
      const problems = problemsOf(r.raw, r.cloudfn);
      rows.push(
        ratioRow({
          id: 'get',
          benchmark: 'GET tiny function',
          baseline: 'raw node:http',
          unit: 'req/s',
          subject: r.cloudfn.map((x) => x.rps),
          base: r.raw.map((x) => x.rps),
          goal: { op: '>=', value: 0.95 },
          problems,
          cpu: cpuOf(r.cloudfn, r.raw),
        }),
        fastifyRow(r, { id: 'get-fastify', benchmark: 'GET tiny function, against fastify' }),
        ratioRow({
          id: 'latency',
          benchmark: 'p99 latency under the GET load, 64 connections',
          baseline: 'raw node:http',
          unit: 'ms',
          subject: r.cloudfn.map((x) => x.p99Ms),
          base: r.raw.map((x) => x.p99Ms),
          goal: { op: '<=', value: 1.1 },
          problems,
          note: "each round's p99 is the median of its turns' p99s (wrk --latency); the ratio is the median over rounds",
        }),
        ratioRow({
          id: 'memory',
          benchmark: 'peak RSS under the GET load',
          baseline: 'raw node:http',
          unit: 'MB',
          subject: r.cloudfn.map((x) => x.maxRss / 2 ** 20),
          base: r.raw.map((x) => x.maxRss / 2 ** 20),
          goal: { op: '<=', value: 1.1 },
          problems,
        }),
      );
    }
    if (withPeers) rows.push(...peerRows(r, 'get'));
  }
  if (only.includes('json') || withPeers) {
    log(`POST /echo, 1 KB of JSON: ${kindsOf().join(', ')}`);
    const r = await measureKinds({
      ...http,
      kinds: kindsOf(),
      path: '/echo',
      request: bodies.json,
      connections: 64,
    });
    if (only.includes('json'))
      rows.push(
        ratioRow({
          id: 'json',
          benchmark: 'POST JSON echo, 1 KB',
          baseline: 'raw node:http',
          unit: 'req/s',
          subject: r.cloudfn.map((x) => x.rps),
          base: r.raw.map((x) => x.rps),
          goal: { op: '>=', value: 0.92 },
          problems: problemsOf(r.raw, r.cloudfn),
          cpu: cpuOf(r.cloudfn, r.raw),
        }),
        fastifyRow(r, { id: 'json-fastify', benchmark: 'POST JSON echo, 1 KB, against fastify' }),
        ratioRow({
          id: 'memory-json',
          benchmark: JSON_MEMORY_BENCHMARK,
          baseline: PEER_LABELS.fastify,
          unit: 'MB',
          subject: r.cloudfn.map((x) => x.maxRss / 2 ** 20),
          base: r.fastify.map((x) => x.maxRss / 2 ** 20),
          goal: { op: '<=', value: 1.2 },
          problems: problemsOf(r.cloudfn, r.fastify),
        }),
      );
    if (withPeers) rows.push(...peerRows(r, 'json'));
  }
  if (only.includes('upload')) {
    const mib = bodies.upload.bytes / 2 ** 20;
    // 4 uploads in flight is the goal row: a function behind the gateway takes uploads from
    // several clients at once. One at a time is measured beside it (docs/performance-history.md#the-8-mib-upload-by-thread):
    // the two differ in when young-generation GCs fall inside a request.
    for (const [id, benchmark, connections, goal] of UPLOAD_ROWS) {
      log(`POST /upload, multipart with one 8 MiB file, ${connections} in flight: raw node:http (no parsing), cloudfn`);
      const r = await measureKinds({
        ...http,
        kinds: ['raw', 'cloudfn'],
        path: '/upload',
        request: bodies.upload,
        connections,
      });
      rows.push(
        ratioRow({
          id,
          benchmark,
          baseline: 'raw node:http, body read unparsed',
          unit: 'MiB/s',
          subject: r.cloudfn.map((x) => x.rps * mib),
          base: r.raw.map((x) => x.rps * mib),
          goal,
          problems: problemsOf(r.raw, r.cloudfn),
          cpu: cpuOf(r.cloudfn, r.raw),
        }),
      );
    }
  }
  if (only.includes('sign')) {
    log('signRequest vs crypto.sign, verifyResponse vs crypto.verify');
    const ms = Math.max(100, Math.round((seconds * 1000) / 3));
    const [command, args] = pinned('server', process.execPath, [
      join(ROOT, 'test/bench/sign-bench.mjs'),
      String(rounds),
      String(ms),
    ]);
    const out = execFileSync(command, args, { encoding: 'utf8' });
    const s = JSON.parse(out.trim().split('\n').pop());
    rows.push(
      ratioRow({
        id: 'sign',
        benchmark: 'signRequest',
        baseline: SIGN_BASELINE,
        unit: 'calls per CPU s',
        subject: s.signRequest,
        base: s.cryptoSign,
        goal: { op: '>=', value: 0.95 },
      }),
      ratioRow({
        id: 'verify',
        benchmark: 'verifyResponse',
        baseline: VERIFY_BASELINE,
        unit: 'calls per CPU s',
        subject: s.verifyResponse,
        base: s.cryptoVerify,
        goal: { op: '>=', value: 0.95 },
      }),
      ratioRow({
        id: 'sign-prepared',
        benchmark: SIGN_PREPARED_BENCHMARK,
        baseline: SIGN_PREPARED_BASELINE,
        unit: 'calls per CPU s',
        subject: s.signRequest,
        base: s.cryptoSignPrepared,
      }),
      ratioRow({
        id: 'verify-prepared',
        benchmark: VERIFY_PREPARED_BENCHMARK,
        baseline: VERIFY_PREPARED_BASELINE,
        unit: 'calls per CPU s',
        subject: s.verifyResponse,
        base: s.cryptoVerifyPrepared,
      }),
    );
  }
  if (only.includes('console')) {
    log('console.log captured vs service.log; GET with console capture on vs off');
    const ms = Math.max(100, Math.round((seconds * 1000) / 3));
    const [command, args] = pinned('server', process.execPath, [
      join(ROOT, 'test/bench/console-bench.mjs'),
      String(rounds),
      String(ms),
    ]);
    const c = JSON.parse(execFileSync(command, args, { encoding: 'utf8' }).trim().split('\n').pop());
    rows.push(
      ratioRow({
        id: 'console-call',
        benchmark: CONSOLE_CALL_BENCHMARK,
        baseline: 'service.log',
        unit: 'calls/s',
        subject: c.consoleLog,
        base: c.serviceLog,
      }),
      ratioRow({
        id: 'console-request',
        benchmark: CONSOLE_REQUEST_BENCHMARK,
        baseline: 'CLOUDFN_CAPTURE_CONSOLE=false',
        unit: 'req/s',
        subject: c.captureOn,
        base: c.captureOff,
      }),
    );
  }
  if (only.includes('gateway')) {
    log(`dev WebSocket gateway: ${GATEWAY_CONNECTIONS} connections, group push, memory, against a bare ws server`);
    const g = JSON.parse(
      execFileSync(
        process.execPath,
        [join(ROOT, 'test/bench/gateway-bench.mjs'), String(rounds), String(GATEWAY_CONNECTIONS)],
        {
          encoding: 'utf8',
        },
      )
        .trim()
        .split('\n')
        .pop(),
    );
    const kB = (values) => values.map((bytes) => bytes / 1024);
    rows.push(
      ratioRow({
        id: 'gateway-open',
        benchmark: GATEWAY_OPEN_BENCHMARK,
        baseline: GATEWAY_BASELINE,
        unit: 'ms',
        subject: g.cloudfn.open,
        base: g.bare.open,
      }),
      ratioRow({
        id: 'gateway-push',
        benchmark: GATEWAY_PUSH_BENCHMARK,
        baseline: GATEWAY_BASELINE,
        unit: 'ms',
        subject: g.cloudfn.push,
        base: g.bare.push,
        goal: { op: '<=', value: 2 },
      }),
      ratioRow({
        id: 'gateway-memory',
        benchmark: GATEWAY_MEMORY_BENCHMARK,
        baseline: GATEWAY_BASELINE,
        unit: 'kB',
        subject: kB(g.cloudfn.memory),
        base: kB(g.bare.memory),
      }),
    );
  }
  if (only.includes('contract')) {
    log('declared params: POST JSON 1 KB with a zod 4 schema vs none; tsc on a 50-function client');
    const [command, args] = pinned('server', process.execPath, [
      join(ROOT, 'test/bench/contract-bench.mjs'),
      String(rounds),
      String(Math.max(500, Math.round((seconds * 1000) / 2))),
    ]);
    const c = JSON.parse(execFileSync(command, args, { encoding: 'utf8' }).trim().split('\n').pop());
    rows.push(
      ratioRow({
        id: 'contract-json',
        benchmark: CONTRACT_JSON_BENCHMARK,
        baseline: 'the same function without a schema',
        unit: 'req/s',
        subject: c.withSchema,
        base: c.without,
        goal: { op: '>=', value: 0.95 },
      }),
      ratioRow({
        id: 'contract-client',
        benchmark: CONTRACT_CLIENT_BENCHMARK,
        baseline: 'tsc on the 50 functions alone',
        unit: 'ms',
        subject: c.clientCheckMs,
        base: c.functionsCheckMs,
      }),
    );
  }
  if (only.includes('unused')) {
    log('unused features: GET against apps with and without schemas elsewhere, and with trustGatewayHeaders on');
    const kinds = ['cloudfn', 'cloudfn-undeclared', 'cloudfn-schemas', 'cloudfn-trust'];
    const g = await measureKinds({ ...http, kinds, path: '/hello?name=world', connections: 64 });
    log('unused features: POST JSON 1 KB against apps with and without schemas elsewhere');
    const j = await measureKinds({
      ...http,
      kinds: ['cloudfn-undeclared', 'cloudfn-schemas'],
      path: '/echo',
      request: bodies.json,
      connections: 64,
    });
    // The params rows compare like with like: the same functions and zod loaded on both sides
    // (zod's heap alone costs a GET a few percent), only the declaration differs.
    const unusedRow = (r, id, kind, benchmark, baseline, baseKind) =>
      ratioRow({
        id,
        benchmark,
        baseline,
        unit: 'req/s',
        subject: r[kind].map((x) => x.rps),
        base: r[baseKind].map((x) => x.rps),
        goal: { op: '>=', value: 0.98 },
        problems: problemsOf(r[kind], r[baseKind]),
        cpu: cpuOf(r[kind], r[baseKind]),
        note: UNUSED_NOTE,
      });
    rows.push(
      unusedRow(
        g,
        'unused-params-get',
        'cloudfn-schemas',
        UNUSED_PARAMS_GET_BENCHMARK,
        UNUSED_PARAMS_BASELINE,
        'cloudfn-undeclared',
      ),
      unusedRow(
        j,
        'unused-params-json',
        'cloudfn-schemas',
        UNUSED_PARAMS_JSON_BENCHMARK,
        UNUSED_PARAMS_BASELINE,
        'cloudfn-undeclared',
      ),
      unusedRow(g, 'unused-logid', 'cloudfn-trust', UNUSED_LOGID_BENCHMARK, UNUSED_LOGID_BASELINE, 'cloudfn'),
    );
  }
  if (only.includes('cold')) {
    log('cold start: built hello bundle vs a bare node:http script');
    rows.push(...(await coldStartRows({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log })));
  }
  if (only.includes('bundle')) {
    log('hello bundle: buildProject({ minify: true }) on test/bench/fixtures/hello-project');
    const row = await bundleSizeRow({ root: ROOT, work });
    rows.push(row);
    if (row.note) log(`  ${row.note}`);
  }
  if (only.includes('build')) {
    log('build: 10, 100 and 300 generated functions, and 10 and 50 for the function service, against esbuild');
    rows.push(...(await buildRows({ root: ROOT, work, progress: log })));
  }
  if (only.includes('workers')) {
    log(`cloudfn start --workers auto (${machine().nproc}) against --workers 1: GET, unpinned`);
    rows.push(...(await workersRows({ root: ROOT, work, rounds, seconds, warmup, load, problemsOf, progress: log })));
  }
  if (only.includes('reload')) {
    log('dev reload: save until the new code answers');
    rows.push(await reloadRow({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log }));
    log('dev reload with the type checker on, and save until the type error is shown');
    rows.push(...(await typecheckRows({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log })));
  }
  if (only.includes('alloc')) {
    log('allocation per request: cloudfn against fastify (logger off), GET and POST JSON 1 KB');
    for (const [id, benchmark, path, request] of [
      ['alloc-get', ALLOC_GET_BENCHMARK, '/hello?name=a', undefined],
      ['alloc-json', ALLOC_JSON_BENCHMARK, '/echo', bodies.json],
    ]) {
      const measured = await measureAllocation({
        kinds: ['cloudfn', 'fastify'],
        path,
        request,
        requests: 10_000,
        warmup: 3000,
        rounds,
        logFile: join(work, 'alloc.log'),
      });
      const total = (side) => side.heap.map((heap, i) => (heap + side.external[i]) / 1000);
      rows.push(
        ratioRow({
          id,
          benchmark,
          baseline: PEER_LABELS.fastify,
          unit: 'kB',
          subject: total(measured.cloudfn),
          base: total(measured.fastify),
          goal: { op: '<=', value: 1 },
          problems:
            measured.cloudfn.problems + measured.fastify.problems > 0 ? ['requests answered with an error'] : [],
          note: 'node test/bench/allocation.mjs gives the heap and outside it apart, and the collections per 10,000 requests',
        }),
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Groups left out by --only still get their rows, so the tables always list every benchmark.
const NOT_RUN = {
  alloc: [
    ['alloc-get', ALLOC_GET_BENCHMARK, PEER_LABELS.fastify, '<= 1×'],
    ['alloc-json', ALLOC_JSON_BENCHMARK, PEER_LABELS.fastify, '<= 1×'],
  ],
  get: [
    ['get', 'GET tiny function', 'raw node:http', '>= 0.95×'],
    ['get-fastify', 'GET tiny function, against fastify', PEER_LABELS.fastify, '>= 1×'],
    ['latency', 'p99 latency under the GET load, 64 connections', 'raw node:http', '<= 1.1×'],
    ['memory', 'peak RSS under the GET load', 'raw node:http', '<= 1.1×'],
  ],
  json: [
    ['json', 'POST JSON echo, 1 KB', 'raw node:http', '>= 0.92×'],
    ['json-fastify', 'POST JSON echo, 1 KB, against fastify', PEER_LABELS.fastify, '>= 1×'],
    ['memory-json', JSON_MEMORY_BENCHMARK, PEER_LABELS.fastify, '<= 1.2×'],
  ],
  peers: [],
  upload: [
    ['upload', 'multipart upload, one 8 MiB file', 'raw node:http, body read unparsed', '>= 0.85×'],
    [
      'upload-serial',
      'multipart upload, one 8 MiB file, one upload at a time',
      'raw node:http, body read unparsed',
      undefined,
    ],
  ],
  sign: [
    ['sign', 'signRequest', SIGN_BASELINE, '>= 0.95×'],
    ['verify', 'verifyResponse', VERIFY_BASELINE, '>= 0.95×'],
    ['sign-prepared', SIGN_PREPARED_BENCHMARK, SIGN_PREPARED_BASELINE, undefined],
    ['verify-prepared', VERIFY_PREPARED_BENCHMARK, VERIFY_PREPARED_BASELINE, undefined],
  ],
  cold: [
    ['cold', 'cold start: node dist/hello/index.mjs to first 200', 'bare node:http script', '<= 1.1×'],
    [
      'cold-cache',
      'cold start, compile cache on (warm) against off, CPU time to first 200',
      'the same bundle, CLOUDFN_COMPILE_CACHE=off',
      undefined,
    ],
  ],
  bundle: [['bundle', 'hello bundle, minified (cloudfn build --minify)', '—', '<= 60 kB']],
  build: BUILD_ROWS,
  workers: [
    ['workers', WORKERS_BENCHMARK, WORKERS_BASELINE, undefined],
    ['workers-cpu', WORKERS_CPU_BENCHMARK, WORKERS_BASELINE, undefined],
  ],
  contract: [
    ['contract-json', CONTRACT_JSON_BENCHMARK, 'the same function without a schema', '>= 0.95×'],
    ['contract-client', CONTRACT_CLIENT_BENCHMARK, 'tsc on the 50 functions alone', undefined],
  ],
  unused: [
    ['unused-params-get', UNUSED_PARAMS_GET_BENCHMARK, UNUSED_PARAMS_BASELINE, '>= 0.98×'],
    ['unused-params-json', UNUSED_PARAMS_JSON_BENCHMARK, UNUSED_PARAMS_BASELINE, '>= 0.98×'],
    ['unused-logid', UNUSED_LOGID_BENCHMARK, UNUSED_LOGID_BASELINE, '>= 0.98×'],
  ],
  console: [
    ['console-call', CONSOLE_CALL_BENCHMARK, 'service.log', undefined],
    ['console-request', CONSOLE_REQUEST_BENCHMARK, 'CLOUDFN_CAPTURE_CONSOLE=false', undefined],
  ],
  gateway: [
    ['gateway-open', GATEWAY_OPEN_BENCHMARK, GATEWAY_BASELINE, undefined],
    ['gateway-push', GATEWAY_PUSH_BENCHMARK, GATEWAY_BASELINE, '<= 2×'],
    ['gateway-memory', GATEWAY_MEMORY_BENCHMARK, GATEWAY_BASELINE, undefined],
  ],
  reload: [
    ['reload', 'dev reload: save until the new code answers', '—', '<= 250 ms (median)'],
    ['reload-typecheck', 'dev reload with the type checker on', '—', '<= 50 ms'],
    ['typecheck-error', 'dev type check: save until the type error is shown', '—', '<= 2000 ms'],
  ],
};
const reason = `not run (--only ${values.only})`;
for (const group of GROUPS) {
  if (only.includes(group)) continue;
  for (const [id, benchmark, baseline, goal] of NOT_RUN[group])
    rows.push(skippedRow({ id, benchmark, baseline, goal, reason }));
}
if (!withPeers)
  for (const [key, request] of Object.entries(PEER_REQUESTS))
    for (const peer of PEERS)
      rows.push(skippedPeerRow({ id: `peer-${peer}-${key}`, peer: PEER_LABELS[peer], request, reason }));
const ORDER = [
  'get',
  'get-fastify',
  'json',
  'json-fastify',
  'upload',
  'upload-serial',
  'sign',
  'verify',
  'sign-prepared',
  'verify-prepared',
  'cold',
  'cold-cache',
  'bundle',
  ...BUILD_ROWS.map(([id]) => id),
  'latency',
  'memory',
  'memory-json',
  'workers',
  'workers-cpu',
  'reload',
  'reload-typecheck',
  'typecheck-error',
  'console-call',
  'console-request',
  'gateway-open',
  'gateway-push',
  'gateway-memory',
  'contract-json',
  'contract-client',
  'unused-params-get',
  'unused-params-json',
  'unused-logid',
  'alloc-get',
  'alloc-json',
  ...Object.keys(PEER_REQUESTS).flatMap((key) => PEERS.map((peer) => `peer-${peer}-${key}`)),
];
rows.sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));

const info = machine();
const table = formatTable(rows);
const peerTable = formatPeerTable(rows);
const results = {
  date: new Date().toISOString(),
  machine: info,
  peers: peerVersions(),
  settings: {
    rounds,
    seconds,
    warmup,
    loadGenerator: load === 'wrk' ? 'wrk 4.1, 1 thread' : 'autocannon, in the runner process',
    connections: { get: 64, json: 64, upload: 4, uploadSerial: 1, workers: 64 },
  },
  durationSeconds: Math.round((Date.now() - started) / 1000),
  rows,
  table,
  peerTable,
};
writeFileSync(values.out, JSON.stringify(results, null, 2) + '\n');
const loader = load === 'wrk' ? 'wrk (one thread)' : 'autocannon (in the runner)';
const where = `${info.nproc} cores (${info.cpu}), node ${info.node}; ${info.pinned ? `each server pinned to core ${info.nproc - 1}, ${loader} on core 0` : `no CPU pinning, ${loader} shares the cores`}`;
process.stdout.write(
  `\n${table}\n\nPeers, in the same rounds as raw node:http and cloudfn:\n\n${peerTable}\n\n${where}. ${rounds} rounds of ${seconds} s per side, medians; results in ${values.out}\n`,
);
