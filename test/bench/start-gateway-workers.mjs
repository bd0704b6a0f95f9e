/**
 * Push latency under the built `cloudfn start --workers 2` with `gateway: true`:
 * `node test/bench/start-gateway-workers.mjs [workers]` prints, for 3 rounds of 500 sequential
 * pushes, p50 and p99 in ms from a client's uplink to the target's frame, where the function
 * pushes by plain fetch of the push host: `same` to a socket of the pushing worker, `other` to a
 * socket the other worker holds (routed through the primary). Run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const CLI = fileURLToPath(new URL('../../dist/src/cli/index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ws-bench-'));
mkdirSync(join(dir, 'functions'));
writeFileSync(join(dir, 'cloudfn.config.json'), '{"gateway": true}');
writeFileSync(
  join(dir, 'functions', 'game.mjs'),
  `
export default async function (params, service) {
  const h = service.headers;
  const event = h['x-tt-event-type'];
  const self = h['x-tt-sessionid'];
  if (event !== 'uplink') return {};
  const [cmd, to, text] = String(params).split(' ');
  const target = cmd === 'whoami' ? self : to;
  const body = cmd === 'whoami' ? 'pid ' + process.pid + ' ' + self : text;
  await fetch('http://ws-push.dyc.ivolces.com/ws/push_data', { method: 'POST', headers: { 'X-TT-WS-SESSIONIDS': JSON.stringify([target]) }, body });
  return {};
}`,
);
const workers = Number(process.argv[2] ?? 2);
const child = spawn(
  process.execPath,
  [CLI, 'start', dir, '--port', '0', '--host', '127.0.0.1', ...(workers > 1 ? ['--workers', String(workers)] : [])],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CLOUDFN_LOG_LEVEL: 'warn' } },
);
let out = '';
const url = await new Promise((resolve) =>
  child.stdout.on('data', (c) => {
    out += c;
    const m = out.match(/"url":"(http:[^"]+)"/g);
    if (m && m.length >= (workers > 1 ? workers : 1))
      resolve(/"url":"(http:[^"]+)"/.exec(out)[1].replace('localhost', '127.0.0.1'));
  }),
);
function connect() {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/__dycloud__/ws/connect/?service_path=/game`);
  const waiters = [];
  ws.on('message', (d) => {
    const t = d.toString();
    const i = waiters.findIndex((w) => t.startsWith(w.p));
    if (i >= 0) waiters.splice(i, 1)[0].r(t);
  });
  const next = (p) => new Promise((r) => waiters.push({ p, r }));
  return new Promise((r) => ws.on('open', () => r({ ws, next })));
}
const clients = [];
while (true) {
  const c = await connect();
  const p = c.next('pid ');
  c.ws.send('whoami');
  const [, pid, id] = (await p).split(' ');
  clients.push({ ...c, pid, id });
  if (
    workers === 1
      ? clients.length >= 2
      : new Set(clients.map((x) => x.pid)).size === 2 && clients.filter((x) => x.pid === clients[0].pid).length >= 2
  )
    break;
}
const a = clients[0];
const same = clients.find((x) => x !== a && x.pid === a.pid);
const other = clients.find((x) => x.pid !== a.pid);
async function run(target, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const p = target.next(`m${i}`);
    const t = process.hrtime.bigint();
    a.ws.send(`push ${target.id} m${i}`);
    await p;
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((x, y) => x - y);
  return { p50: times[Math.floor(n * 0.5)], p99: times[Math.floor(n * 0.99)] };
}
await run(same, 100);
if (other) await run(other, 100);
const N = 500;
const rounds = [];
for (let r = 0; r < 3; r++) rounds.push({ same: await run(same, N), other: other ? await run(other, N) : undefined });
console.log(JSON.stringify({ workers, rounds }, null, 1));
child.kill('SIGKILL');
process.exit(0);
