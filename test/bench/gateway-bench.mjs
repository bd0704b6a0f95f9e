/**
 * The gateway rows, in their own processes: `node gateway-bench.mjs <rounds> <connections>`
 * prints one JSON line with, per round, for the dev server's WebSocket gateway (cloudfn dev,
 * connect calling a function through the pipeline) and for a bare `ws` server on node:http
 * (the baseline, no function called), measured alternately in the same rounds:
 *   open   ms to open and hold <connections> connections (8 handshakes in flight at a time)
 *   push   ms for one group push (cloudfn: POST /ws/group/push_data) or one broadcast (bare:
 *          POST /broadcast) to reach every client (median of 5 pushes)
 *   memory bytes the server keeps per held connection: heap and external memory after gc,
 *          against before connecting (the dev console's bounded log ring filled first)
 *   rss    the same as RSS (it also counts heap the connects grew and V8 keeps)
 * Each server runs in a child process (`node gateway-bench.mjs serve cloudfn|bare`), so its
 * memory is its own; the clients are the `ws` package in this process.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The server side: prints `ready <url>`, then answers `mem` with its memory after gc. */
async function serve(kind) {
  let url;
  let stop;
  if (kind === 'cloudfn') {
    const root = mkdtempSync(join(tmpdir(), 'cloudfn-gateway-bench-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(root, 'functions', 'ws.js'), 'export default async () => ({ ok: true });\n');
    const { startDevServer } = await import(join(ROOT, 'dist/src/dev/index.js'));
    const dev = await startDevServer({ root, port: 0, sink: { write() {} } });
    url = dev.url;
    stop = async () => {
      await dev.close();
      rmSync(root, { recursive: true, force: true });
    };
  } else {
    const wss = new WebSocketServer({ noServer: true });
    const server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        for (const client of wss.clients) client.send(body, { binary: false });
        res.end('{}');
      });
    });
    server.on('upgrade', (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws)),
    );
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
    stop = () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)));
  }
  process.stdout.write(`ready ${url}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'mem') {
      globalThis.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
      globalThis.gc?.();
      const m = process.memoryUsage();
      process.stdout.write(`mem ${m.rss} ${m.heapUsed + m.external}\n`);
    } else if (line === 'stop') {
      await stop();
      process.exit(0);
    }
  }
}

/** Starts a server child; `ask(command)` resolves with its next line. */
async function startServer(kind) {
  const child = spawn(process.execPath, ['--expose-gc', SELF, 'serve', kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const queue = [];
  lines.on('line', (line) => queue.shift()?.(line));
  const next = () => new Promise((resolve) => queue.push(resolve));
  const url = (await next()).slice('ready '.length);
  return {
    url,
    ask: (command) => {
      const answer = next();
      child.stdin.write(`${command}\n`);
      return answer;
    },
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.stdin.write('stop\n'))),
  };
}

function openClient(url, kind, i) {
  return new Promise((resolve, reject) => {
    const ws =
      kind === 'cloudfn'
        ? new WebSocket(`${url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
            headers: { 'x-tt-service-path': '/ws', 'x-tt-openid': `user-${i}` },
          })
        : new WebSocket(url.replace('http', 'ws'));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function post(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body });
  return res.json();
}

/** One round on one server: open, memory, push. */
async function round(kind, count) {
  const server = await startServer(kind);
  // A first connection loads what a connection needs before the memory baseline is taken.
  const first = await openClient(server.url, kind, -1);
  first.close();
  await new Promise((resolve) => first.once('close', resolve));
  if (kind === 'cloudfn') {
    // The console keeps the last 2,000 log records (bounded); fill it first, so the baseline
    // already holds them and the figure is what the connections themselves keep.
    for (let i = 0; i < 2000; i += 20)
      await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/ws`).then((res) => res.arrayBuffer())));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const [, rssBefore, heapBefore] = (await server.ask('mem')).split(' ').map(Number);
  const clients = [];
  const started = performance.now();
  for (let i = 0; i < count; i += 8) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 8); j++) batch.push(openClient(server.url, kind, j));
    clients.push(...(await Promise.all(batch)));
  }
  const open = performance.now() - started;
  const [, rssAfter, heapAfter] = (await server.ask('mem')).split(' ').map(Number);
  if (kind === 'cloudfn') {
    // The group: 5 openids per join call, the platform's limit.
    for (let i = 0; i < count; i += 5) {
      const ids = Array.from({ length: Math.min(5, count - i) }, (_, k) => `user-${i + k}`);
      const res = await post(
        `${server.url}/_cloudfn/ws-push/ws/group/join`,
        { 'x-tt-ws-openids': JSON.stringify(ids), 'x-tt-ws-groupname': 'room', 'x-tt-ws-groupvalue': 'all' },
        '',
      );
      if (res.err_no !== 0) throw new Error(`join failed: ${JSON.stringify(res)}`);
    }
  }
  const pushes = [];
  for (let n = 0; n < 5; n++) {
    const text = `tick-${n}`;
    const arrived = Promise.all(
      clients.map(
        (ws) =>
          new Promise((resolve) => {
            const on = (data) => {
              if (data.toString() === text) {
                ws.off('message', on);
                resolve();
              }
            };
            ws.on('message', on);
          }),
      ),
    );
    const t0 = performance.now();
    if (kind === 'cloudfn')
      await post(
        `${server.url}/_cloudfn/ws-push/ws/group/push_data`,
        { 'x-tt-ws-groupname': 'room', 'x-tt-ws-groupvalue': 'all' },
        text,
      );
    else await post(`${server.url}/broadcast`, {}, text);
    await arrived;
    pushes.push(performance.now() - t0);
  }
  for (const ws of clients) ws.terminate();
  await server.stop();
  pushes.sort((a, b) => a - b);
  return { open, push: pushes[2], memory: (heapAfter - heapBefore) / count, rss: (rssAfter - rssBefore) / count };
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3]);
} else {
  const [rounds = 3, count = 1000] = process.argv.slice(2).map(Number);
  const out = {
    connections: count,
    cloudfn: { open: [], push: [], memory: [], rss: [] },
    bare: { open: [], push: [], memory: [], rss: [] },
  };
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    for (const kind of r % 2 === 0 ? ['cloudfn', 'bare'] : ['bare', 'cloudfn']) {
      const result = await round(kind, count);
      for (const key of ['open', 'push', 'memory', 'rss']) out[kind][key].push(result[key]);
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
