#!/usr/bin/env node
/**
 * `npm run bench`: cloudfn against raw node:http and node:crypto, each row a ratio against a
 * baseline measured in the same run (see docs/performance.md for how to read the table).
 * It benchmarks what `npm run build` put in dist/, prints a Markdown table and writes
 * test/bench/results.json.
 *
 *   node test/bench/run.mjs [--rounds 3] [--seconds 3] [--warmup 1] [--only get,json,...]
 *                           [--out test/bench/results.json] [--doc] [--load wrk|autocannon]
 *
 * Groups for --only: get (GET, memory and the functions-framework peer), json, upload,
 * sign, cold, reload. --doc also writes the table into docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBodies } from './lib/bodies.mjs';
import { machine, pinned } from './lib/cpu.mjs';
import { measureKinds } from './lib/http-rows.mjs';
import { formatTable, ratioRow, skippedRow } from './lib/rows.mjs';
import { coldStartRow } from './lib/cold-start.mjs';
import { reloadRow, typecheckRows } from './lib/reload.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GROUPS = ['get', 'json', 'upload', 'sign', 'cold', 'reload'];

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'test/bench/results.json') },
    doc: { type: 'boolean', default: false },
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

try {
  if (only.includes('get')) {
    log('GET /hello?name=world: raw node:http, cloudfn, functions-framework');
    const r = await measureKinds({
      ...http,
      kinds: ['raw', 'cloudfn', 'gcf'],
      path: '/hello?name=world',
      connections: 64,
    });
    const problems = problemsOf(r.raw, r.cloudfn);
    rows.push(
      ratioRow({
        id: 'get',
        benchmark: 'GET tiny function',
        baseline: 'raw node:http',
        unit: 'req/s',
        subject: r.cloudfn.map((x) => x.rps),
        base: r.raw.map((x) => x.rps),
        goal: { op: '>=', value: 0.9 },
        problems,
        cpu: cpuOf(r.cloudfn, r.raw),
      }),
      ratioRow({
        id: 'memory',
        benchmark: 'peak RSS under the GET load',
        baseline: 'raw node:http',
        unit: 'MB',
        subject: r.cloudfn.map((x) => x.maxRss / 2 ** 20),
        base: r.raw.map((x) => x.maxRss / 2 ** 20),
        goal: { op: '<=', value: 1.3 },
        problems,
      }),
      ratioRow({
        id: 'peer',
        benchmark: 'peer: the same GET on @google-cloud/functions-framework',
        baseline: 'raw node:http',
        unit: 'req/s',
        subject: r.gcf.map((x) => x.rps),
        base: r.raw.map((x) => x.rps),
        goal: undefined,
        problems: problemsOf(r.gcf),
        cpu: cpuOf(r.gcf, r.raw),
      }),
    );
  }
  if (only.includes('json')) {
    log('POST /echo, 1 KB of JSON: raw node:http, cloudfn');
    const r = await measureKinds({
      ...http,
      kinds: ['raw', 'cloudfn'],
      path: '/echo',
      request: bodies.json,
      connections: 64,
    });
    rows.push(
      ratioRow({
        id: 'json',
        benchmark: 'POST JSON echo, 1 KB',
        baseline: 'raw node:http',
        unit: 'req/s',
        subject: r.cloudfn.map((x) => x.rps),
        base: r.raw.map((x) => x.rps),
        goal: { op: '>=', value: 0.85 },
        problems: problemsOf(r.raw, r.cloudfn),
        cpu: cpuOf(r.cloudfn, r.raw),
      }),
    );
  }
  if (only.includes('upload')) {
    log('POST /upload, multipart with one 8 MiB file: raw node:http (no parsing), cloudfn');
    const r = await measureKinds({
      ...http,
      kinds: ['raw', 'cloudfn'],
      path: '/upload',
      request: bodies.upload,
      connections: 4,
    });
    const mib = bodies.upload.bytes / 2 ** 20;
    rows.push(
      ratioRow({
        id: 'upload',
        benchmark: 'multipart upload, one 8 MiB file',
        baseline: 'raw node:http, body read unparsed',
        unit: 'MiB/s',
        subject: r.cloudfn.map((x) => x.rps * mib),
        base: r.raw.map((x) => x.rps * mib),
        goal: { op: '>=', value: 0.6 },
        problems: problemsOf(r.raw, r.cloudfn),
        cpu: cpuOf(r.cloudfn, r.raw),
      }),
    );
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
        baseline: 'crypto.sign, KeyObject',
        unit: 'ops/s',
        subject: s.signRequest,
        base: s.cryptoSign,
        goal: { op: '>=', value: 0.95 },
      }),
      ratioRow({
        id: 'verify',
        benchmark: 'verifyResponse',
        baseline: 'crypto.verify, KeyObject',
        unit: 'ops/s',
        subject: s.verifyResponse,
        base: s.cryptoVerify,
        goal: { op: '>=', value: 0.9 },
      }),
    );
  }
  if (only.includes('cold')) {
    log('cold start: built hello bundle vs a bare node:http script');
    rows.push(await coldStartRow({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log }));
  }
  if (only.includes('reload')) {
    log('dev reload: save until the new code answers');
    rows.push(await reloadRow({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log }));
    log('dev reload with the type checker on, and save until the type error is shown');
    rows.push(...(await typecheckRows({ root: ROOT, work, rounds: Math.max(rounds, 10), progress: log })));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Groups left out by --only still get their rows, so the table always lists every benchmark.
const NOT_RUN = {
  get: [
    ['get', 'GET tiny function', 'raw node:http', '>= 0.9×'],
    ['memory', 'peak RSS under the GET load', 'raw node:http', '<= 1.3×'],
    ['peer', 'peer: the same GET on @google-cloud/functions-framework', 'raw node:http', undefined],
  ],
  json: [['json', 'POST JSON echo, 1 KB', 'raw node:http', '>= 0.85×']],
  upload: [['upload', 'multipart upload, one 8 MiB file', 'raw node:http, body read unparsed', '>= 0.6×']],
  sign: [
    ['sign', 'signRequest', 'crypto.sign, KeyObject', '>= 0.95×'],
    ['verify', 'verifyResponse', 'crypto.verify, KeyObject', '>= 0.9×'],
  ],
  cold: [['cold', 'cold start: node dist/hello/index.mjs to first 200', 'bare node:http script', '<= 1.25×']],
  reload: [
    ['reload', 'dev reload: save until the new code answers', '—', '<= 250 ms (median)'],
    ['reload-typecheck', 'dev reload with the type checker on', '—', '<= 50 ms'],
    ['typecheck-error', 'dev type check: save until the type error is shown', '—', '<= 2000 ms'],
  ],
};
for (const group of GROUPS) {
  if (only.includes(group)) continue;
  for (const [id, benchmark, baseline, goal] of NOT_RUN[group])
    rows.push(skippedRow({ id, benchmark, baseline, goal, reason: `not run (--only ${values.only})` }));
}
const ORDER = [
  'get',
  'json',
  'upload',
  'sign',
  'verify',
  'cold',
  'reload',
  'reload-typecheck',
  'typecheck-error',
  'memory',
  'peer',
];
rows.sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));

const info = machine();
const table = formatTable(rows);
const results = {
  date: new Date().toISOString(),
  machine: info,
  settings: {
    rounds,
    seconds,
    warmup,
    loadGenerator: load === 'wrk' ? 'wrk 4.1, 1 thread' : 'autocannon, in the runner process',
    connections: { get: 64, json: 64, upload: 4 },
  },
  durationSeconds: Math.round((Date.now() - started) / 1000),
  rows,
  table,
};
writeFileSync(values.out, JSON.stringify(results, null, 2) + '\n');
const loader = load === 'wrk' ? 'wrk (one thread)' : 'autocannon (in the runner)';
const where = `${info.nproc} cores (${info.cpu}), node ${info.node}; ${info.pinned ? `each server pinned to core ${info.nproc - 1}, ${loader} on core 0` : `no CPU pinning, ${loader} shares the cores`}`;
process.stdout.write(
  `\n${table}\n\n${where}. ${rounds} rounds of ${seconds} s per side, medians; results in ${values.out}\n`,
);

if (values.doc) {
  const doc = join(ROOT, 'docs/performance.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) fail(`docs/performance.md has no ${begin} ... ${end} markers`);
  const block = `${begin}\nMeasured ${results.date.slice(0, 10)} on ${where}; \`npm run bench\` took ${results.durationSeconds} s.\n\n${table}\n`;
  writeFileSync(doc, text.slice(0, from) + block + text.slice(to));
}
