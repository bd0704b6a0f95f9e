#!/usr/bin/env node
/**
 * An A/B micro-benchmark of the GET request line (issue 25): the runtime's way (RequestLineText
 * builds the JSON text, the stdout sink encodes it into its batch buffer) against a prototype
 * that writes pre-encoded pieces, the numbers and the ids (logid, trace_id, span_id) straight
 * into the buffer. Both give the same bytes (checked at the end). Alternated turns, CPU time
 * (process.cpuUsage), medians, ns per line. Needs npm run build. The prototype is not in the
 * runtime (docs/performance-history.md#the-get-request-line).
 *
 *   node test/bench/log-line.mjs
 */
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { RequestLineText } = await import(`${ROOT}dist/runtime/log/request-line.js`);
const { createStdoutSink } = await import(`${ROOT}dist/runtime/log/sinks.js`);
const stream = {
  writableLength: 0,
  write() {
    return true;
  },
};
const sink = createStdoutSink({ stream: () => stream });
const lines = new RequestLineText();
const facts = {
  level: 'info',
  logid: '20261124161622ABCDEF0123456789',
  fn: 'hello',
  method: 'GET',
  path: '/hello',
  status: 200,
  durationMs: 0.12,
  bytes: 17,
  trigger: 'online',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
};
// Prototype: the pieces pre-encoded, numbers and ids written straight into one buffer.
const buf = Buffer.allocUnsafeSlow(65536);
let used = 0;
const enc = (s) => Buffer.from(s, 'latin1');
const HEAD = enc('{"level":"info","time":'),
  REQ = enc(',"method":"GET","path":"/hello","status":'),
  DUR = enc(',"durationMs":'),
  BYTES = enc(',"bytes":'),
  TRIG = enc(',"trigger":"online","logid":"'),
  TRACE = enc('","trace_id":"'),
  SPAN = enc('","span_id":"'),
  FN = enc('","function":"hello","msg":"GET /hello '),
  MS = enc(' ms '),
  END = enc(' B"}\n');
function put(b) {
  buf.set(b, used);
  used += b.length;
}
function ascii(s) {
  for (let i = 0; i < s.length; i++) buf[used++] = s.charCodeAt(i);
}
function direct(f) {
  if (used > 60000) used = 0;
  put(HEAD);
  ascii(String(Date.now()));
  put(REQ);
  ascii(String(f.status));
  put(DUR);
  const ms = String(f.durationMs);
  ascii(ms);
  put(BYTES);
  ascii(String(f.bytes));
  put(TRIG);
  ascii(f.logid);
  put(TRACE);
  ascii(f.traceId);
  put(SPAN);
  ascii(f.spanId);
  put(FN);
  ascii(String(f.status));
  buf[used++] = 32;
  ascii(ms);
  put(MS);
  ascii(String(f.bytes));
  put(END);
}
const A = (n) => {
  for (let i = 0; i < n; i++) sink.writeLine(lines.format(facts));
  sink.flush();
};
const B = (n) => {
  for (let i = 0; i < n; i++) direct(facts);
};
const m = (f) => {
  const b = process.cpuUsage();
  f(50000);
  const u = process.cpuUsage(b);
  return ((u.user + u.system) * 1000) / 50000;
};
A(5000);
B(5000);
used = 0;
direct(facts);
const proto = buf.toString('latin1', 0, used);
sink.flush();
const t = { A: [], B: [] };
for (let i = 0; i < 15; i++) for (const s of i % 2 ? ['A', 'B'] : ['B', 'A']) t[s].push(m(s === 'A' ? A : B));
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  process.version,
  'A current format+writeLine',
  med(t.A).toFixed(0),
  'ns; B direct into buffer',
  med(t.B).toFixed(0),
  'ns',
);
const cur = lines.format(facts) + '\n';
console.log(cur.replace(/"time":\d+/, '') === proto.replace(/"time":\d+/, '') ? 'same bytes' : 'DIFF\n' + cur + proto);
