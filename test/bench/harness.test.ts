/**
 * The benchmark harness: its pieces (reading wrk's report, the ratio and peer rows, the CPU
 * time of a process tree) against real material, then the whole of it run briefly, which must
 * produce both tables with every row and a results.json that says what it measured. Speeds are
 * never asserted here: they belong to `npm run bench` on a quiet machine (docs/performance.md).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { treeCpuMicros } from './lib/cli-server.mjs';
import { combineRuns, formatCombinedPeerTable, formatCombinedTable, parseGoal } from './lib/combine.mjs';
import { resolveNode } from './lib/node-versions.mjs';
import { formatPeerTable, formatTable, peerRow, ratioRow } from './lib/rows.mjs';
import { parseWrk } from './lib/wrk.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(ROOT, 'dist/runtime/index.js')) && existsSync(join(ROOT, 'dist/src/sign/index.js'));
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BENCHMARKS = [
  'GET tiny function',
  'GET tiny function, against fastify',
  'POST JSON echo, 1 KB',
  'POST JSON echo, 1 KB, against fastify',
  'multipart upload, one 8 MiB file',
  'multipart upload, one 8 MiB file, one upload at a time',
  'signRequest',
  'verifyResponse',
  'signRequest, against the earlier baseline',
  'verifyResponse, against the earlier baseline',
  'cold start: node dist/hello/index.mjs to first 200',
  'cold start, compile cache on (warm) against off, CPU time to first 200',
  'hello bundle, minified (cloudfn build --minify)',
  'cloudfn build, 10 generated functions',
  'cloudfn build, 100 generated functions',
  'cloudfn build, 300 generated functions',
  'cloudfn build --target function-service, 10 generated functions',
  'cloudfn build --target function-service, 50 generated functions',
  'p99 latency under the GET load, 64 connections',
  'peak RSS under the GET load',
  'peak RSS under the POST JSON 1 KB load, against fastify',
  'cloudfn start --workers auto, GET',
  'cloudfn start --workers auto, CPU time per GET',
  'dev reload: save until the new code answers',
  'dev reload with the type checker on',
  'dev type check: save until the type error is shown',
  'console.log in a request, captured as a JSON line',
  'GET tiny function with console capture on, no console call',
  'dev WebSocket gateway: open and hold 1,000 connections (connect calls the function)',
  'dev WebSocket gateway: one group push reaching all 1,000',
  'dev WebSocket gateway: memory kept per held connection (heap + external, after gc)',
  'POST JSON echo, 1 KB, params declared with zod 4',
  'tsc --noEmit on the client of 50 functions (cloudfn client) and 50 calls',
  'GET tiny function without a schema, other functions declare params',
  'POST JSON echo, 1 KB, without a schema, other functions declare params',
  'GET tiny function, trustGatewayHeaders on, no x-tt-logid sent',
  'bytes allocated per GET tiny function (heap and outside it)',
  'bytes allocated per POST JSON 1 KB (heap and outside it)',
];
const PEERS = [
  'fastify 5, logger off',
  'fastify 5, logger on (pino to a file)',
  'hono 4 on @hono/node-server',
  'express 5',
  '@google-cloud/functions-framework 5',
];
const PEER_BENCHMARKS = ['GET', 'POST JSON'].flatMap((request) => PEERS.map((peer) => `${request} on ${peer}`));

/** wrk 4.1 `-t1 -c64 -d1s --latency` against a node:http server on this machine, as printed. */
const WRK_LATENCY_REPORT = `Running 1s test @ http://127.0.0.1:18123/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     5.92ms   18.35ms 161.07ms   94.68%
    Req/Sec    35.87k    18.77k   65.65k    70.00%
  Latency Distribution
     50%    1.47ms
     75%    2.02ms
     90%    5.99ms
     99%  111.20ms
  35591 requests in 1.00s, 4.21MB read
Requests/sec:  35464.53
Transfer/sec:      4.19MB
`;

describe('reading wrk', () => {
  it('reads the latency distribution of --latency', () => {
    const run = parseWrk(WRK_LATENCY_REPORT);
    expect(run).toMatchObject({ rps: 35464.53, requests: 35591, latencyMs: 5.92, non2xx: 0, socketErrors: 0 });
    expect(run.percentilesMs).toEqual({ 50: 1.47, 75: 2.02, 90: 5.99, 99: 111.2 });
    expect(run.p99Ms).toBe(111.2);
  });

  it('converts us and s, and counts errors', () => {
    const text = WRK_LATENCY_REPORT.replace('50%    1.47ms', '50%  812.00us')
      .replace('99%  111.20ms', '99%    1.50s')
      .replace(
        'Requests/sec',
        '  Socket errors: connect 0, read 2, write 1, timeout 3\n  Non-2xx or 3xx responses: 7\nRequests/sec',
      );
    const run = parseWrk(text);
    expect(run.percentilesMs['50']).toBeCloseTo(0.812, 6);
    expect(run.p99Ms).toBe(1500);
    expect(run).toMatchObject({ non2xx: 7, socketErrors: 6 });
  });

  it('has no p99 without --latency, and refuses a report it cannot read', () => {
    const plain =
      WRK_LATENCY_REPORT.slice(0, WRK_LATENCY_REPORT.indexOf('  Latency Distribution')) +
      '  35591 requests in 1.00s, 4.21MB read\nRequests/sec:  35464.53\n';
    const run = parseWrk(plain);
    expect(run.p99Ms).toBeNaN();
    expect(run.percentilesMs).toEqual({});
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/cannot read the wrk report/);
  });
});

describe('rows', () => {
  it('a goal against fastify is met only at or above it, per-round ratios first', () => {
    const row = (subject: number[]) =>
      ratioRow({
        id: 'get-fastify',
        benchmark: 'GET tiny function, against fastify',
        baseline: 'fastify 5, logger off',
        unit: 'req/s',
        subject,
        base: [100, 200, 300],
        goal: { op: '>=', value: 1.0 },
      });
    // Ratios 1.1, 0.9, 1.0: the median is 1.0, not the ratio of the medians (200 / 200).
    expect(row([110, 180, 300])).toMatchObject({ ratio: 1, ratios: [1.1, 0.9, 1], met: true, goal: '>= 1×' });
    expect(row([99, 190, 290])).toMatchObject({ met: false });
    const invalid = ratioRow({
      id: 'latency',
      benchmark: 'p99',
      baseline: 'raw node:http',
      unit: 'ms',
      subject: [1, 1, 1],
      base: [1, 1, 1],
      goal: { op: '<=', value: 1.1 },
      problems: ['3 non-2xx answers'],
    });
    expect(invalid).toMatchObject({ met: false, status: 'invalid' });
    expect(formatTable([invalid])).toContain('| no: 3 non-2xx answers |');
  });

  it('a peer row gives the peer against raw and cloudfn against the peer, round by round', () => {
    const row = peerRow({
      id: 'peer-hono-get',
      peer: 'hono 4 on @hono/node-server',
      request: 'GET',
      unit: 'req/s',
      subject: [50, 60, 40],
      raw: [100, 100, 100],
      cloudfn: [90, 60, 80],
      cpu: { subject: [20, 20, 20], raw: [10, 10, 10], cloudfn: [10, 40, 20] },
    });
    expect(row).toMatchObject({
      table: 'peers',
      benchmark: 'GET on hono 4 on @hono/node-server',
      ratioToRaw: 0.5,
      // 90/50, 60/60, 80/40: the median is 1.8.
      cloudfnRatio: 1.8,
      cpuRatioToRaw: 0.5,
      // 20/10, 20/40, 20/20
      cpuCloudfnRatio: 1,
    });
    const table = formatPeerTable([row]).split('\n');
    expect(table[2]).toBe('| hono 4 on @hono/node-server | GET | 50 req/s | 0.50× | 1.80× | 0.50× | 1.00× |');
    // The goals table leaves peer rows out.
    expect(formatTable([row])).not.toContain('hono');
  });
});

describe('CPU time of a process tree from /proc', () => {
  it.skipIf(process.platform !== 'linux')('counts a busy child', async () => {
    const child = spawn(
      process.execPath,
      // Spins until it has used 300 ms of CPU (not of the clock), so a loaded machine cannot
      // make it report less.
      ['-e', 'while (process.cpuUsage().user < 300000); console.log("done"); setTimeout(() => {}, 5000)'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      // At least the 300 ms it spun, counted once whether read alone or under its parent.
      expect(treeCpuMicros(child.pid!)).toBeGreaterThan(250_000);
      expect(treeCpuMicros(process.pid)).toBeGreaterThanOrEqual(treeCpuMicros(child.pid!));
      expect(treeCpuMicros(2 ** 22 + 1)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

interface Row {
  id: string;
  benchmark: string;
  status: 'measured' | 'invalid' | 'skipped';
  ratio?: number;
  ratios?: number[];
  cloudfn?: { median: number; rounds: number[] };
  base?: { median: number; rounds: number[] };
  reason?: string;
}

describe('combining runs on several Node versions', () => {
  /** One run-once.mjs result holding a GET ratio row, a value row and a peer row. */
  const run = (get: number, bundleKb: number, hono: number, extra: { problems?: string[] } = {}) => ({
    rows: [
      ratioRow({
        id: 'get',
        benchmark: 'GET tiny function',
        baseline: 'raw node:http',
        unit: 'req/s',
        subject: [get, get, get],
        base: [1, 1, 1],
        goal: { op: '>=', value: 0.95 },
        problems: extra.problems,
        cpu: { subject: [10, 10, 10], base: [10 * get, 10 * get, 10 * get] },
      }),
      {
        id: 'bundle',
        benchmark: 'hello bundle',
        baseline: '—',
        unit: 'kB',
        status: 'measured',
        cloudfn: { median: bundleKb, rounds: [bundleKb] },
        goal: '<= 60 kB',
        problems: [],
      },
      {
        id: 'cold',
        benchmark: 'cold start',
        baseline: 'bare',
        status: 'skipped',
        goal: '<= 1.1×',
        reason: 'not run (x)',
      },
      peerRow({
        id: 'peer-hono-get',
        peer: 'hono 4',
        request: 'GET',
        unit: 'req/s',
        subject: [hono, hono, hono],
        raw: [1, 1, 1],
        cloudfn: [1, 1, 1],
      }),
    ],
  });

  it('gives each Node the median over runs, its range and met / not met', () => {
    const rows = combineRuns([
      // The median run (0.96) meets >= 0.95 although one run does not.
      { label: 'node v20', runs: [run(0.96, 50, 0.5), run(0.9, 50, 0.6), run(0.99, 50, 0.4)] },
      { label: 'node v24', runs: [run(0.94, 61, 0.8), run(0.93, 61, 0.8), run(1.2, 61, 0.8)] },
    ]);
    const get = rows.find((row) => row.id === 'get')!;
    expect(get.byNode['node v20']).toMatchObject({
      value: 0.96,
      min: 0.9,
      max: 0.99,
      runs: [0.96, 0.9, 0.99],
      met: true,
    });
    expect(get.byNode['node v24']).toMatchObject({ value: 0.94, min: 0.93, max: 1.2, met: false });
    expect(rows.find((row) => row.id === 'bundle')!.byNode['node v24']).toMatchObject({ value: 61, met: false });
    expect(rows.find((row) => row.id === 'cold')!.byNode['node v20']).toMatchObject({ status: 'skipped' });
    expect(rows.find((row) => row.id === 'peer-hono-get')!.byNode['node v20']).toMatchObject({
      ratioToRaw: { value: 0.5, min: 0.4, max: 0.6 },
      // cloudfn 1 over hono 0.5 / 0.6 / 0.4
      cloudfnRatio: { value: 2, min: 1.667, max: 2.5 },
    });

    const table = formatCombinedTable(rows, ['node v20', 'node v24']).split('\n');
    expect(table[0]).toBe(
      '| benchmark | baseline | goal | node v20 (range over runs) | node v20 met | node v20 by CPU time | node v24 (range over runs) | node v24 met | node v24 by CPU time |',
    );
    expect(table).toContain(
      '| GET tiny function | raw node:http | >= 0.95× | 0.96× (0.90×–0.99×) | met | 0.96× (0.90×–0.99×) | 0.94× (0.93×–1.20×) | not met | 0.94× (0.93×–1.20×) |',
    );
    expect(table).toContain('| hello bundle | — | <= 60 kB | 50.0 kB | met | — | 61.0 kB | not met | — |');
    expect(table).toContain('| cold start | bare | <= 1.1× | not run (x) | — | — | not run (x) | — | — |');
    expect(table.join('\n')).not.toContain('hono');
    const peers = formatCombinedPeerTable(rows, ['node v20', 'node v24']).split('\n');
    expect(peers[2]).toBe('| hono 4 | GET | 0.50× (0.40×–0.60×) | 2.00× (1.67×–2.50×) | 0.80× | 1.25× |');
  });

  it('marks a goal not met when any run was invalid', () => {
    const rows = combineRuns([{ label: 'n', runs: [run(1, 1, 1), run(1, 1, 1, { problems: ['3 non-2xx answers'] })] }]);
    expect(rows.find((row) => row.id === 'get')!.byNode.n).toMatchObject({ status: 'invalid', met: false });
    expect(formatCombinedTable(rows, ['n'])).toContain('| not met: 3 non-2xx answers |');
  });

  it('reads goals, and resolves --node entries', () => {
    expect(parseGoal('>= 0.95×')).toEqual({ op: '>=', value: 0.95 });
    expect(parseGoal('<= 250 ms (median)')).toEqual({ op: '<=', value: 250 });
    expect(parseGoal(undefined)).toBeUndefined();
    expect(resolveNode('current')).toMatchObject({ path: process.execPath, label: `node ${process.version}` });
    expect(resolveNode(process.execPath)).toMatchObject({ version: process.version });
    expect(() => resolveNode('lts')).toThrow(
      /--node takes current, a major version such as 24, or a path to node; got lts/,
    );
  });
});

describe.skipIf(!built)('npm run bench (a short run; needs npm run build)', () => {
  it('prints the table with every row and writes results.json', async () => {
    const out = join(dir, 'results.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'test/bench/run.mjs'),
        '--node',
        'current',
        '--runs',
        '1',
        '--load',
        'autocannon',
        '--rounds',
        '3',
        '--seconds',
        '0.2',
        '--warmup',
        '0',
        '--only',
        'get,sign,bundle,console',
        '--out',
        out,
        '--quiet',
      ],
      { timeout: 60_000 },
    );
    const label = `node ${process.version}`;
    const header = stdout.split('\n').find((line) => line.startsWith('| benchmark'));
    expect(header).toBe(
      `| benchmark | baseline | goal | ${label} (range over runs) | ${label} met | ${label} by CPU time |`,
    );
    for (const name of BENCHMARKS) expect(stdout).toContain(`| ${name} |`);
    for (const peer of PEERS) {
      expect(stdout).toContain(`| ${peer} | GET | not run (--only get,sign,bundle,console) | — |`);
      expect(stdout).toContain(`| ${peer} | POST JSON | not run (--only get,sign,bundle,console) | — |`);
    }

    const results = JSON.parse(readFileSync(out, 'utf8')) as {
      machine: { nproc: number; cpu: string };
      nodes: { label: string; version: string }[];
      peers: Record<string, string>;
      settings: { runs: number };
      rows: { id: string; benchmark: string; byNode: Record<string, { status: string; met?: boolean }> }[];
      runs: Record<string, { machine: { node: string }; rows: Row[] }[]>;
      table: string;
      peerTable: string;
    };
    expect(results.nodes).toEqual([expect.objectContaining({ label, version: process.version })]);
    expect(results.settings.runs).toBe(1);
    expect(results.machine.nproc).toBeGreaterThan(0);
    expect(results.peers.fastify).toMatch(/^5\./);
    expect(results.peers.express).toMatch(/^5\./);
    expect(results.rows.map((row) => row.benchmark).sort()).toEqual([...BENCHMARKS, ...PEER_BENCHMARKS].sort());
    for (const id of ['get', 'sign', 'bundle'])
      expect(typeof results.rows.find((row) => row.id === id)!.byNode[label]!.met).toBe('boolean');
    const [once] = results.runs[label]!;
    expect(once!.machine.node).toBe(process.version);
    const byId = new Map(once!.rows.map((row) => [row.id, row]));
    for (const id of ['get', 'get-fastify', 'latency', 'memory', 'sign', 'verify', 'console-call', 'console-request']) {
      const row = byId.get(id)!;
      expect(row.status, `${id}: ${JSON.stringify(row)}`).toBe('measured');
      expect(row.cloudfn!.rounds).toHaveLength(3);
      expect(row.base!.rounds).toHaveLength(3);
      expect(row.ratio).toBeGreaterThan(0);
      expect(Number.isFinite(row.ratio)).toBe(true);
    }
    expect(byId.get('bundle')).toMatchObject({ status: 'measured', goal: '<= 60 kB' });
    expect(byId.get('bundle')!.cloudfn!.median).toBeGreaterThan(1);
    for (const id of [
      'json',
      'json-fastify',
      'memory-json',
      'upload',
      'upload-serial',
      'cold',
      'cold-cache',
      'workers',
      'workers-cpu',
      'reload',
      'reload-typecheck',
      'typecheck-error',
      'gateway-open',
      'gateway-push',
      'gateway-memory',
      'peer-fastify-get',
      'peer-gcf-json',
      'contract-json',
      'contract-client',
      'unused-params-get',
      'unused-params-json',
      'unused-logid',
      'alloc-get',
      'alloc-json',
      'build-300',
    ]) {
      expect(byId.get(id)).toMatchObject({ status: 'skipped', reason: 'not run (--only get,sign,bundle,console)' });
    }
    expect(results.table).toContain('| GET tiny function |');
    expect(results.peerTable).toContain('| peer | request |');
  }, 45_000);
});

describe.skipIf(!built)('the ablation (a short run; needs npm run build)', () => {
  it('measures cloudfn with each part off beside fastify and raw, every answer a 2xx', async () => {
    const out = join(dir, 'ablation.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'test/bench/ablation.mjs'),
        ...['--load', 'autocannon', '--rounds', '3', '--seconds', '0.2', '--warmup', '0'],
        ...['--parts', 'all', '--node-flags=--max-semi-space-size=16', '--out', out, '--quiet'],
      ],
      { timeout: 90_000 },
    );
    expect(stdout).toContain('| all of the above at once |');
    expect(stdout).toContain('| node --max-semi-space-size=16 (not a part: a flag, left out of the sum) |');
    const results = JSON.parse(readFileSync(out, 'utf8')) as {
      requests: Record<
        string,
        {
          problems: number;
          fastify: { median: number };
          raw: { median: number };
          parts: Record<string, { problems: number; on: { median: number }; off: { median: number } }>;
        }
      >;
    };
    expect(Object.keys(results.requests)).toEqual(['get', 'json']);
    for (const row of Object.values(results.requests)) {
      // A server with every part off still answers every request with a 2xx.
      expect(row.problems).toBe(0);
      expect(row.fastify.median).toBeGreaterThan(0);
      expect(row.raw.median).toBeGreaterThan(0);
      expect(Object.keys(row.parts)).toEqual(['all', '@--max-semi-space-size=16']);
      for (const part of Object.values(row.parts)) {
        expect(part.problems).toBe(0);
        expect(part.on.median).toBeGreaterThan(0);
        expect(part.off.median).toBeGreaterThan(0);
      }
    }
  }, 120_000);

  it('measures the parts in process, in nanoseconds per request', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'test/bench/request-path.mjs'),
        ...['--parts', 'log,all', '--batches', '2', '--requests-per-batch', '200'],
      ],
      { timeout: 60_000 },
    );
    for (const request of ['GET /hello?name=a', 'POST /echo, JSON 1 KB']) expect(stdout).toContain(`**${request}**`);
    expect(stdout).toMatch(/^\| log \| \d+ \| -?\d+ \(-?\d+ to -?\d+\) \|$/m);
    expect(stdout).toMatch(/^\| all \| \d+ \| -?\d+ \(-?\d+ to -?\d+\) \|$/m);
  }, 90_000);
});
