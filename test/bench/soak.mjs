#!/usr/bin/env node
/**
 * `npm run soak`: cloudfn under load for a while, through the real CLI (`cloudfn start`).
 *
 *   node test/bench/soak.mjs [--seconds 60] [--connections 100] [--only mixed,sigterm,workers]
 *                            [--out test/bench/soak-results.json] [--cli dist/src/cli/index.js] [--doc]
 *
 * - mixed: `seconds` of mixed traffic at `connections` connections (GET, JSON, urlencoded,
 *   multipart, handler errors, timeouts, oversize bodies). Passes with zero socket errors,
 *   zero answers other than the expected ones, and RSS at the end within 10% of RSS after
 *   the first 10 s (each the median of three one-second samples: 9-11 s, and the last three).
 * - sigterm: SIGTERM under load. Passes when every request in flight completes, requests sent
 *   during the lame-duck period are served, later ones are refused or get 503 with
 *   `Connection: close`, and the process exits 0 within the lame-duck period plus
 *   its shutdown deadline.
 * - workers: `cloudfn start --workers 2` against `--workers 1`, GET req/s as a ratio.
 * It benchmarks what `npm run build` put in dist/ and exits 1 when a check fails.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { machine } from './lib/cpu.mjs';
import { startCli } from './lib/cli-server.mjs';
import { median, round } from './lib/stats.mjs';
import { mixedLoad, send } from './lib/traffic.mjs';
import { runWrk } from './lib/wrk.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PHASES = ['mixed', 'sigterm', 'workers'];
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '100' },
    only: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'test/bench/soak-results.json') },
    // Another build's CLI (a patched copy of dist/), to try a change before it lands.
    cli: { type: 'string', default: join(ROOT, 'dist/src/cli/index.js') },
    doc: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const only = values.only === undefined ? PHASES : values.only.split(',').map((p) => p.trim());
for (const phase of only) if (!PHASES.includes(phase)) fail(`--only takes ${PHASES.join(', ')}; got ${phase}`);
if (!(seconds >= 11))
  fail(`--seconds must be at least 11 (RSS is compared with RSS after 10 s), got ${values.seconds}`);
if (!Number.isInteger(connections) || connections < 1)
  fail(`--connections must be a whole number from 1, got ${values.connections}`);
if (!existsSync(join(ROOT, 'dist/src/cli/index.js'))) fail('dist/ is missing: run npm run build first');

function fail(message) {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(1);
}

const log = (line) => process.stderr.write(line + '\n');
const work = mkdtempSync(join(tmpdir(), 'cloudfn-soak-'));
const project = join(work, 'project');
cpSync(join(ROOT, 'test/bench/fixtures/soak-project'), project, { recursive: true });
const results = { date: new Date().toISOString(), machine: machine(), phases: {} };
const checks = [];
const check = (name, ok, detail) => {
  checks.push({ name, ok, detail });
  log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`);
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function mixedPhase() {
  log(`mixed traffic: ${seconds} s at ${connections} connections`);
  const logFile = join(work, 'mixed.log');
  const server = await startCli({ cli: values.cli, project, logFile });
  const started = performance.now();
  const samples = [];
  const sampler = setInterval(() => samples.push({ t: (performance.now() - started) / 1000, rss: server.rss() }), 1000);
  const sampledLogids = [];
  let answers = 0;
  const { stats, failures } = await mixedLoad({
    base: server.url,
    connections,
    until: () => performance.now() - started >= seconds * 1000,
    onAnswer: (_name, answer) => {
      if (answer.error !== undefined) return;
      answers++;
      if (answers % 997 === 0) sampledLogids.push(answer.headers['x-platform-logid']);
    },
  });
  clearInterval(sampler);
  const elapsed = (performance.now() - started) / 1000;
  await server.stop();
  // One sample can land just before or after a collection: both ends are the median of three
  // one-second samples (9-11 s, and the last three).
  const aroundTen = samples.filter((s) => s.t >= 9 && s.t < 12).map((s) => s.rss);
  const afterTen = { rss: median(aroundTen.length > 0 ? aroundTen : [samples[0].rss]) };
  const lastThree = samples.slice(-3).map((s) => s.rss);
  const rssEnd = median(lastThree.length > 0 ? lastThree : [server.rss()]);
  const text = readFileSync(logFile, 'utf8');
  let requestLines = 0;
  for (let at = text.indexOf(',"method":"'); at !== -1; at = text.indexOf(',"method":"', at + 1)) requestLines++;
  const missing = sampledLogids.filter((id) => !text.includes(`"logid":"${id}"`));
  const total = Object.values(stats).reduce((n, s) => n + s.sent, 0);
  const wrong = Object.values(stats).reduce((n, s) => n + s.wrong, 0);
  const socketErrors = Object.values(stats).reduce((n, s) => n + s.socketErrors, 0);
  const growth = rssEnd / afterTen.rss - 1;
  results.phases.mixed = {
    seconds: round(elapsed, 1),
    connections,
    requests: total,
    requestsPerSecond: round(total / elapsed, 0),
    perKind: stats,
    wrongAnswers: wrong,
    socketErrors,
    failures,
    rssAfter10sMB: round(afterTen.rss / 2 ** 20, 1),
    rssEndMB: round(rssEnd / 2 ** 20, 1),
    rssGrowth: round(growth, 3),
    rssSamplesMB: samples.map((s) => round(s.rss / 2 ** 20, 1)),
    requestLinesInLog: requestLines,
    sampledLogidsMissingFromLog: missing.length,
  };
  log(`  ${total} requests (${round(total / elapsed, 0)}/s): ${JSON.stringify(stats)}`);
  check(
    'mixed: zero socket errors',
    socketErrors === 0,
    `${socketErrors} socket errors${failures.length ? `; first: ${failures.slice(0, 3).join(' | ')}` : ''}`,
  );
  check(
    'mixed: only the expected answers',
    wrong === 0,
    `${wrong} unexpected answers${
      wrong
        ? `; first: ${failures
            .filter((f) => !f.includes('socket error'))
            .slice(0, 3)
            .join(' | ')}`
        : ''
    }`,
  );
  check(
    'mixed: RSS at the end within 10% of RSS after 10 s',
    Math.abs(growth) <= 0.1,
    `${round(afterTen.rss / 2 ** 20, 1)} MB after 10 s, ${round(rssEnd / 2 ** 20, 1)} MB at the end (${(growth * 100).toFixed(1)}%)`,
  );
  check(
    'mixed: one request line per answer, with its logid',
    requestLines >= total - socketErrors && missing.length === 0,
    `${requestLines} request lines for ${total - socketErrors} answers; ${missing.length} of ${sampledLogids.length} sampled logids missing`,
  );
}

async function sigtermPhase() {
  const deadline = 5000;
  const lameDuck = 1000;
  log(`SIGTERM under load (lame duck ${lameDuck} ms, shutdown deadline ${deadline} ms)`);
  const logFile = join(work, 'sigterm.log');
  const server = await startCli({
    cli: values.cli,
    project,
    logFile,
    env: { CLOUDFN_SHUTDOWN_TIMEOUT: String(deadline), CLOUDFN_DRAIN_DELAY: String(lameDuck) },
  });
  const records = [];
  let stop = false;
  const loop = async (spec) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (!stop) {
      const record = { kind: spec.kind, sentAt: performance.now() };
      records.push(record);
      const answer = await send(server.url, agent, spec, 15_000);
      record.answeredAt = performance.now();
      Object.assign(record, answer);
      if (answer.error !== undefined) await sleep(5);
    }
    agent.destroy();
  };
  const loops = [];
  for (let i = 0; i < 40; i++) loops.push(loop({ kind: 'get', method: 'GET', path: '/hello?name=term' }));
  for (let i = 0; i < 20; i++) loops.push(loop({ kind: 'wait', method: 'GET', path: '/wait?ms=1500' }));
  await sleep(2000);
  const signalAt = performance.now();
  process.kill(server.pid, 'SIGTERM');
  await sleep(lameDuck + 1000);
  stop = true;
  const exit = await server.exited;
  await Promise.all(loops);
  const exitMs = exit.at - signalAt;
  // In flight: sent at least 150 ms before the signal (so the server had them) and not answered before it.
  const inFlight = records.filter((r) => r.sentAt <= signalAt - 150 && (r.answeredAt ?? Infinity) > signalAt);
  const inFlightOk = inFlight.filter((r) => r.status === 200);
  // During the lame-duck period (sent from 50 ms after the signal until 50 ms before it ends):
  // served, each answer closing its connection.
  const lame = records.filter((r) => r.sentAt >= signalAt + 50 && r.sentAt <= signalAt + lameDuck - 50);
  const lameServed = lame.filter((r) => r.status === 200 && r.headers?.connection === 'close');
  // New: sent after the lame-duck period and before the exit: the port is closed, so a refused
  // connection, or 503 with Connection: close on a socket still open.
  const fresh = records.filter((r) => r.sentAt >= signalAt + lameDuck + 50 && r.sentAt <= exit.at - 50);
  const afterExit = records.filter((r) => r.sentAt > exit.at - 50);
  const fresh503 = fresh.filter(
    (r) => (r.status === 503 && r.headers?.connection === 'close') || r.error === 'ECONNREFUSED',
  );
  const freshOther = fresh.filter(
    (r) => r.error === undefined && !(r.status === 503 && r.headers?.connection === 'close'),
  );
  const freshErrors = {};
  for (const r of fresh) if (r.error !== undefined) freshErrors[r.error] = (freshErrors[r.error] ?? 0) + 1;
  results.phases.sigterm = {
    deadlineMs: deadline,
    exitCode: exit.code,
    exitSignal: exit.signal,
    exitMs: round(exitMs, 0),
    inFlight: inFlight.length,
    inFlightCompleted200: inFlightOk.length,
    inFlightOther: inFlight.filter((r) => r.status !== 200).map((r) => r.error ?? r.status),
    lameDuckMs: lameDuck,
    lameDuckRequests: lame.length,
    lameDuckServed200WithClose: lameServed.length,
    newRequests: fresh.length,
    new503WithClose: fresh503.length,
    newOtherAnswers: freshOther.map((r) => r.status),
    newSocketErrors: freshErrors,
    sentAfterExit: afterExit.length,
  };
  check(
    'sigterm: requests in flight complete',
    inFlight.length > 0 && inFlightOk.length === inFlight.length,
    `${inFlightOk.length} of ${inFlight.length} answered 200`,
  );
  check(
    'sigterm: requests sent during the lame-duck period are served, with Connection: close',
    lame.length > 0 && lameServed.length === lame.length,
    `${lameServed.length} of ${lame.length} answered 200 + close`,
  );
  check(
    'sigterm: new requests after the lame-duck period are refused or get 503 with Connection: close',
    fresh503.length === fresh.length,
    `${fresh503.length} of ${fresh.length} refused or 503 + close; other answers ${JSON.stringify(freshOther.map((r) => r.status))}; socket errors ${JSON.stringify(freshErrors)}`,
  );
  check(
    'sigterm: exits 0 within the lame-duck period plus the deadline',
    exit.code === 0 && exitMs <= lameDuck + deadline + 500,
    `exit code ${exit.code}${exit.signal ? ` (${exit.signal})` : ''} after ${round(exitMs, 0)} ms (deadline ${deadline} ms)`,
  );
}

async function workersPhase() {
  const help = spawnSync(process.execPath, [values.cli, 'start', '--help'], { encoding: 'utf8' });
  if (!help.stdout.includes('--workers')) {
    results.phases.workers = { skipped: 'not available yet: cloudfn start has no --workers in dist/' };
    log('workers: not available yet');
    return;
  }
  log('cloudfn start --workers 2 against --workers 1 (GET, wrk 64 connections, unpinned: wrk shares the cores)');
  const logFile = join(work, 'workers.log');
  const kinds = { 1: [], 2: [] };
  const rounds = 3;
  for (let round_ = 0; round_ < rounds; round_++) {
    const servers = {};
    try {
      for (const n of [1, 2])
        servers[n] = await startCli({ cli: values.cli, project, logFile, args: ['--workers', String(n)] });
      for (const n of [1, 2])
        await runWrk({ url: `${servers[n].url}/hello?name=w`, connections: 64, seconds: 1, pin: false });
      const totals = { 1: { requests: 0, seconds: 0 }, 2: { requests: 0, seconds: 0 } };
      for (let turn = 0; turn < 3; turn++) {
        for (const n of (round_ + turn) % 2 === 0 ? [1, 2] : [2, 1]) {
          const run = await runWrk({ url: `${servers[n].url}/hello?name=w`, connections: 64, seconds: 1, pin: false });
          if (run.non2xx || run.socketErrors)
            throw new Error(`--workers ${n}: ${run.non2xx} non-2xx, ${run.socketErrors} socket errors`);
          totals[n].requests += run.requests;
          totals[n].seconds += run.requests / run.rps;
        }
      }
      for (const n of [1, 2]) kinds[n].push(totals[n].requests / totals[n].seconds);
      log(
        `  round ${round_ + 1}: 1 worker ${Math.round(kinds[1].at(-1))} req/s, 2 workers ${Math.round(kinds[2].at(-1))} req/s`,
      );
    } finally {
      for (const server of Object.values(servers)) await server.stop();
    }
  }
  const ratio = median(kinds[2].map((v, i) => v / kinds[1][i]));
  results.phases.workers = {
    oneWorker: { median: round(median(kinds[1]), 0), rounds: kinds[1].map((v) => round(v, 0)) },
    twoWorkers: { median: round(median(kinds[2]), 0), rounds: kinds[2].map((v) => round(v, 0)) },
    ratio: round(ratio, 2),
    note: `${results.machine.nproc} cores shared by the workers and the load generator (wrk, one thread)`,
  };
  log(`  --workers 2 / --workers 1: ${ratio.toFixed(2)}× (${results.phases.workers.note})`);
}

try {
  if (only.includes('mixed')) await mixedPhase();
  if (only.includes('sigterm')) await sigtermPhase();
  if (only.includes('workers')) await workersPhase();
} finally {
  rmSync(work, { recursive: true, force: true });
}
results.checks = checks;
writeFileSync(values.out, JSON.stringify(results, null, 2) + '\n');
const failed = checks.filter((c) => !c.ok);
log(`\n${checks.length - failed.length} of ${checks.length} checks passed; results in ${values.out}`);
if (values.doc) writeDoc();

/** Writes the checks and figures between the soak markers of docs/performance.md. */
function writeDoc() {
  const m = results.machine;
  const lines = [
    `Measured ${results.date.slice(0, 10)} on ${m.nproc} cores (${m.cpu}), node ${m.node}, with \`npm run soak\`.`,
    '',
    '| check | result |',
    '|---|---|',
  ];
  for (const c of checks)
    lines.push(`| ${c.name} | ${c.ok ? 'pass' : '**fail**'}: ${c.detail.replaceAll('|', '\\|')} |`);
  const mixed = results.phases.mixed;
  if (mixed !== undefined) {
    lines.push(
      '',
      `Mixed traffic: ${mixed.requests.toLocaleString('en-US')} requests in ${mixed.seconds} s (${mixed.requestsPerSecond.toLocaleString('en-US')}/s) at ${mixed.connections} connections, the load generator in the same 2 cores; RSS ${mixed.rssAfter10sMB} MB after 10 s and ${mixed.rssEndMB} MB at the end.`,
    );
  }
  const workers = results.phases.workers;
  if (workers?.ratio !== undefined) {
    lines.push(
      '',
      `\`cloudfn start --workers 2\`: ${workers.twoWorkers.median.toLocaleString('en-US')} req/s against ${workers.oneWorker.median.toLocaleString('en-US')} with \`--workers 1\`, **${workers.ratio.toFixed(2)}×** (${workers.note}).`,
    );
  } else if (workers?.skipped !== undefined) lines.push('', `Workers: ${workers.skipped}.`);
  const doc = join(ROOT, 'docs/performance.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- soak:begin -->';
  const end = '<!-- soak:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) fail(`docs/performance.md has no ${begin} ... ${end} markers`);
  writeFileSync(doc, text.slice(0, from) + begin + '\n' + lines.join('\n') + '\n' + text.slice(to));
}
process.exitCode = failed.length === 0 ? 0 : 1;
