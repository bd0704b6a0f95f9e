#!/usr/bin/env node
/**
 * An A/B micro-benchmark of the GET request line (issues 25 and 44): the runtime's way
 * (`Logger.request`: request-line-bytes.ts encodes the line straight into the stdout sink's
 * buffer) against the record form every other line takes (`requestRecord`, `serializeRecord`,
 * the text encoded into the same buffer), which is what the request line cost before it had a
 * form of its own. Both give the same bytes (checked at the end). Alternated turns, CPU time
 * (process.cpuUsage), medians, ns per line, the sink's write included. Needs npm run build.
 *
 *   node test/bench/log-line.mjs
 */
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { Logger, loadRequestLineBytes } = await import(`${ROOT}dist/runtime/log/logger.js`);
await loadRequestLineBytes();
const { requestRecord } = await import(`${ROOT}dist/runtime/log/request-line.js`);
const { serializeRecord } = await import(`${ROOT}dist/runtime/log/record.js`);
const { createStdoutSink } = await import(`${ROOT}dist/runtime/log/sinks.js`);

let last = Buffer.alloc(0);
const stream = {
  writableLength: 0,
  write(bytes) {
    last = Buffer.from(bytes);
    return true;
  },
};
const sink = createStdoutSink({ stream: () => stream });
const logger = new Logger(sink);
const facts = {
  level: 'info',
  logid: '20261124161622ABCDEF0123456789',
  fn: 'hello',
  method: 'GET',
  path: '/hello',
  status: 200,
  durationMs: 0.1,
  bytes: 17,
  trigger: 'online',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
};
const A = (n) => {
  for (let i = 0; i < n; i++) logger.request(facts);
  sink.flush();
};
const B = (n) => {
  for (let i = 0; i < n; i++) sink.writeLine(serializeRecord(requestRecord(facts)));
  sink.flush();
};
const m = (f) => {
  const b = process.cpuUsage();
  f(50000);
  const u = process.cpuUsage(b);
  return ((u.user + u.system) * 1000) / 50000;
};
A(5000);
B(5000);
const t = { A: [], B: [] };
for (let i = 0; i < 15; i++) for (const s of i % 2 ? ['A', 'B'] : ['B', 'A']) t[s].push(m(s === 'A' ? A : B));
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  process.version,
  'A bytes (the runtime)',
  med(t.A).toFixed(0),
  'ns; B record form',
  med(t.B).toFixed(0),
  'ns',
);
logger.request(facts);
sink.flush();
const bytes = last.toString('utf8');
sink.writeLine(serializeRecord(requestRecord(facts)));
sink.flush();
const record = last.toString('utf8');
const untimed = (line) => line.replace(/"time":\d+/, '');
console.log(untimed(bytes) === untimed(record) ? 'same bytes' : `DIFF\n${bytes}${record}`);
