#!/usr/bin/env node
/**
 * The ablation: what each part of cloudfn's request path costs, as server CPU time per request,
 * with fastify (logger off) and raw node:http on the same request beside it. For each part of
 * lib/ablation-variants.mjs (and `all` of them at once), cloudfn with everything on and cloudfn
 * with that part off are loaded in interleaved one-second turns (A B, B A, ...) by the harness of
 * `npm run bench` (lib/http-rows.mjs: fresh servers per round, wrk, CPU time of the whole server
 * process); the part's cost is the per-round difference. Bench only: the parts are turned off
 * in patched copies of dist/ that the bench makes; the served code names no switch. See
 * docs/performance-history.md#the-ablation.
 *
 *   node test/bench/ablation.mjs [--node 24] [--requests get,json] [--parts log,trace,...]
 *                                [--rounds 3] [--seconds 2] [--warmup 1] [--out <file>]
 *                                [--node-flags=--max-semi-space-size=16] [--load wrk|autocannon]
 *                                [--against /path/to/an/earlier/built/checkout]
 *
 * --node: `current` (default), a major version (installed as `npm run bench` does) or a path:
 * the script runs itself again on that Node, so the servers run on it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBodies } from './lib/bodies.mjs';
import { machine } from './lib/cpu.mjs';
import { measureKinds } from './lib/http-rows.mjs';
import { resolveNode } from './lib/node-versions.mjs';
import { median } from './lib/stats.mjs';
import { ABLATION_PARTS, PART_LABELS, ablatedDist, partsOf } from './lib/ablation-variants.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PARTS = ABLATION_PARTS;
const REQUESTS = {
  get: { label: 'GET /hello?name=a', path: '/hello?name=a' },
  json: { label: 'POST /echo, JSON 1 KB', path: '/echo' },
};

const { values } = parseArgs({
  options: {
    node: { type: 'string', default: 'current' },
    requests: { type: 'string', default: 'get,json' },
    parts: { type: 'string', default: [...PARTS, 'all'].join(',') },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    out: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    'node-flags': { type: 'string' },
    against: { type: 'string' },
    load: { type: 'string', default: 'wrk' },
  },
});
const fail = (message) => {
  process.stderr.write(`ablation: ${message}\n`);
  process.exit(1);
};
const log = values.quiet ? () => {} : (line) => process.stderr.write(`${line}\n`);

if (values.node !== 'current') {
  let node;
  try {
    node = resolveNode(values.node, { progress: log });
  } catch (error) {
    fail(error.message);
  }
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === '--node' || a.startsWith('--node='));
  args.splice(at, args[at] === '--node' ? 2 : 1);
  const child = spawnSync(node.path, [fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
if (!Number.isInteger(rounds) || rounds < 3) fail(`--rounds must be an integer of at least 3, got ${values.rounds}`);
const load = values.load;
if (load !== 'wrk' && load !== 'autocannon') fail(`--load must be wrk or autocannon, got ${load}`);
// wrk counts whole seconds; autocannon (the harness test's) takes fractions.
const whole = (n) => load === 'autocannon' || Number.isInteger(n);
if (!(seconds > 0) || !whole(seconds))
  fail(`--seconds must be a positive number (whole with wrk), got ${values.seconds}`);
if (!(warmup >= 0) || !whole(warmup))
  fail(`--warmup must be zero or more seconds (whole with wrk), got ${values.warmup}`);
const requests = values.requests.split(',').map((r) => r.trim());
for (const r of requests) if (!(r in REQUESTS)) fail(`--requests takes get, json; got ${r}`);
const parts = values.parts.split(',').map((p) => p.trim());
for (const p of parts) if (!(p in PART_LABELS)) fail(`--parts takes ${Object.keys(PART_LABELS).join(', ')}; got ${p}`);
if (!existsSync(join(ROOT, 'dist/runtime/index.js'))) fail('dist/ is missing: run npm run build first');
// Every variant made (and its patches checked) before the first turn: a patch that no longer
// matches the code fails here, in a second, not after the rows before it were measured.
try {
  for (const p of parts) if (PART_LABELS[p] !== undefined) ablatedDist(partsOf(p));
} catch (error) {
  fail(error.message);
}

const work = mkdtempSync(join(tmpdir(), 'cloudfn-ablation-'));
const bodies = writeBodies(work);
const http = { rounds, seconds, warmup, logFile: join(work, 'server.log'), load, connections: 64 };
const cpu = (runs) => runs.map((r) => r.cpuMicrosPerRequest);
const user = (runs) => runs.map((r) => r.userMicrosPerRequest);
const problems = (runs) => runs.reduce((n, r) => n + r.non2xx + r.socketErrors, 0);
const spread = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });
const diffs = (a, b) => a.map((v, i) => v - b[i]);

const results = {
  date: new Date().toISOString(),
  machine: machine(),
  settings: { rounds, seconds, warmup },
  requests: {},
};
try {
  for (const key of requests) {
    const { label, path } = REQUESTS[key];
    const request = key === 'json' ? bodies.json : undefined;
    log(`${label}: raw, fastify, cloudfn`);
    const base = await measureKinds({ ...http, kinds: ['raw', 'fastify', 'cloudfn'], path, request, progress: log });
    const row = {
      raw: spread(cpu(base.raw)),
      fastify: spread(cpu(base.fastify)),
      cloudfn: spread(cpu(base.cloudfn)),
      gap: spread(diffs(cpu(base.cloudfn), cpu(base.fastify))),
      user: { raw: spread(user(base.raw)), fastify: spread(user(base.fastify)), cloudfn: spread(user(base.cloudfn)) },
      problems: problems([...base.raw, ...base.fastify, ...base.cloudfn]),
      parts: {},
    };
    // --node-flags: one more pair, cloudfn against cloudfn run with those node flags.
    // --against: one more pair, the other checkout's cloudfn (before) against this one (after).
    const variants = [
      ...parts,
      ...(values['node-flags'] === undefined ? [] : [`@${values['node-flags']}`]),
      ...(values.against === undefined ? [] : [`#${values.against}`]),
    ];
    for (const part of variants) {
      const flags = part.startsWith('@') ? part.slice(1).split(/\s+/).join('@') : undefined;
      const against = part.startsWith('#') ? part.slice(1) : undefined;
      log(
        against !== undefined
          ? `${label}: cloudfn of ${against} (before) against this checkout's (after)`
          : `${label}: cloudfn against cloudfn ${flags === undefined ? `without ${PART_LABELS[part]}` : `with ${part.slice(1)}`}`,
      );
      const [on, off] =
        against !== undefined
          ? [`cloudfn#${against}`, 'cloudfn']
          : ['cloudfn', flags === undefined ? `cloudfn~${part}` : `cloudfn@${flags}`];
      const r = await measureKinds({ ...http, kinds: [on, off], path, request, progress: log });
      row.parts[part] = {
        on: spread(cpu(r[on])),
        off: spread(cpu(r[off])),
        saved: spread(diffs(cpu(r[on]), cpu(r[off]))),
        // User time alone: the part's own code, without the kernel's share, which moves with load.
        savedUser: spread(diffs(user(r[on]), user(r[off]))),
        // The same difference as a share of the pair's own cloudfn, to carry over to other rounds.
        savedShare: spread(cpu(r[on]).map((v, i) => (v - cpu(r[off])[i]) / v)),
        problems: problems([...r[on], ...r[off]]),
      };
    }
    results.requests[key] = row;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const us = (s) => `${s.median.toFixed(1)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
const pct = (v) => `${Math.round(v * 100)}%`;
const tables = [];
for (const [key, row] of Object.entries(results.requests)) {
  const lines = [
    `**${REQUESTS[key].label}**, server CPU µs per request, median (range) over ${rounds} rounds: raw node:http ${us(row.raw)}, fastify (logger off) ${us(row.fastify)}, cloudfn ${us(row.cloudfn)}; cloudfn − fastify ${us(row.gap)}${row.problems ? ` (${row.problems} non-2xx or socket errors)` : ''}.`,
    '',
    `User time alone (µs per request): raw ${us(row.user.raw)}, fastify ${us(row.user.fastify)}, cloudfn ${us(row.user.cloudfn)}.`,
    '',
    '| part turned off | cloudfn on | cloudfn without it | saved µs/req (CPU) | saved µs/req (user time) | saved, share of cloudfn | share of the gap to fastify |',
    '|---|---|---|---|---|---|---|',
  ];
  let sum = 0;
  for (const [part, p] of Object.entries(row.parts)) {
    // The saving carried over to the fastify rounds (as a share of cloudfn), against their gap.
    const carried = p.savedShare.median * row.cloudfn.median;
    if (part in PART_LABELS && part !== 'all') sum += carried;
    lines.push(
      `| ${PART_LABELS[part] ?? (part.startsWith('#') ? `before (${part.slice(1)}) → after (this checkout), not a part: left out of the sum` : `node ${part.slice(1)} (not a part: a flag, left out of the sum)`)} | ${us(p.on)} | ${us(p.off)} | ${us(p.saved)} | ${us(p.savedUser)} | ${pct(p.savedShare.median)} (${pct(p.savedShare.min)} to ${pct(p.savedShare.max)}) | ${pct(carried / row.gap.median)}${p.problems ? ` (${p.problems} errors)` : ''} |`,
    );
  }
  row.sumOfParts = sum;
  lines.push(
    '',
    `Sum of the parts: ${sum.toFixed(1)} µs per request, ${pct(sum / row.gap.median)} of the gap of ${row.gap.median.toFixed(1)} µs.`,
  );
  tables.push(lines.join('\n'));
}
const text = `${tables.join('\n\n')}\n\n${results.machine.nproc} cores (${results.machine.cpu}), node ${results.machine.node}, ${results.date.slice(0, 10)}; ${rounds} rounds of ${load === 'wrk' ? `${seconds} one-second turns` : `one turn of ${seconds} s`} per side after ${warmup} s of warm-up, ${load} at 64 connections${results.machine.pinned ? ', servers pinned to the last core and wrk to core 0' : ''}.`;
results.table = text;
const out = values.out ?? join(tmpdir(), `cloudfn-ablation-${process.version.split('.')[0]}.json`);
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\n${text}\n\nResults in ${out}\n`);
