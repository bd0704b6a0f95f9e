#!/usr/bin/env node
/**
 * Where the 8 MiB upload row's CPU goes (issue 25), by thread: the same 8 MiB body POSTed to
 * raw node:http reading it unparsed, to cloudfn as application/octet-stream (the body read and
 * the pipeline, no parsing) and to cloudfn as multipart/form-data (the bench's row). Each
 * variant runs in its own server process, in alternated turns, under 4 keep-alive
 * connections; the figures are the server's CPU per request, split into its main thread and
 * every other thread (V8's GC helpers, libuv's pool), read from /proc (Linux only), and the
 * major GCs (mark-compact) per request, counted with a PerformanceObserver. Medians over
 * turns, with the range. Needs npm run build.
 *
 *   node test/bench/upload-threads.mjs [--turns 3] [--seconds 4]
 */
import { execFileSync, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request, Agent, createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { multipartBody } from './lib/bodies.mjs';
import { median } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONNECTIONS = 4;

if (process.argv[2] === '--serve') await serve(process.argv[3]);
else await main();

/** The server of one turn: `raw` or `cloudfn`, on a free port, reporting GCs when asked. */
async function serve(kind) {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  let majorGcs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
  }).observe({ entryTypes: ['gc'] });
  let server;
  if (kind === 'raw') {
    const { rawUpload } = await import('./servers/functions.mjs');
    server = createServer(rawUpload);
  } else {
    const { createApp, createHttpServer } = await import(`${ROOT}dist/runtime/index.js`);
    // The body as a Buffer (octet-stream) or a form with one file (multipart): its size.
    const upload = async (params) =>
      Buffer.isBuffer(params)
        ? { name: 'raw', size: params.length }
        : { name: params.file.name, size: params.file.size };
    server = createHttpServer(createApp({ functions: [{ name: 'upload', handler: upload }] }));
  }
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', () => process.send({ majorGcs }));
  process.on('disconnect', () => process.exit(0));
}

/** CPU ticks of each thread of `pid`: its main thread, and the sum of the others. */
function threadTicks(pid) {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (tid === String(pid)) main += ticks;
    else others += ticks;
  }
  return { main, others };
}

async function turn(kind, contentType, body, seconds) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', kind], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await ask();
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const headers = { 'content-type': contentType, 'content-length': body.length };
  const post = () =>
    new Promise((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/upload', method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${kind}: status ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < 2 * CONNECTIONS; i++) await post();
  child.send('gc');
  const gcBefore = (await ask()).majorGcs;
  const before = threadTicks(child.pid);
  let requests = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        await post();
        requests++;
      }
    }),
  );
  const after = threadTicks(child.pid);
  child.send('gc');
  const gcAfter = (await ask()).majorGcs;
  agent.destroy();
  child.disconnect();
  const msPerTick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  return {
    mainMs: ((after.main - before.main) * msPerTick) / requests,
    othersMs: ((after.others - before.others) * msPerTick) / requests,
    majorGcs: (gcAfter - gcBefore) / requests,
  };
}

async function main() {
  const { values } = parseArgs({
    options: { turns: { type: 'string', default: '3' }, seconds: { type: 'string', default: '4' } },
  });
  const upload = multipartBody();
  const variants = [
    ['raw node:http, unparsed', 'raw', upload.contentType],
    ['cloudfn, octet-stream', 'cloudfn', 'application/octet-stream'],
    ['cloudfn, multipart', 'cloudfn', upload.contentType],
  ];
  const results = variants.map(() => []);
  for (let t = 0; t < Number(values.turns); t++)
    for (const [i, [, kind, type]] of variants.entries())
      results[i].push(await turn(kind, type, upload.body, Number(values.seconds)));
  const cell = (xs, digits) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `${median(xs).toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1).toFixed(digits)})`;
  };
  console.log(`node ${process.version}, ${values.turns} turns of ${values.seconds} s, ${CONNECTIONS} connections`);
  console.log('| server | main thread, ms/request | other threads, ms/request | major GCs per request |');
  console.log('|---|---|---|---|');
  for (const [i, [name]] of variants.entries()) {
    const r = results[i];
    console.log(
      `| ${name} | ${cell(
        r.map((x) => x.mainMs),
        2,
      )} | ${cell(
        r.map((x) => x.othersMs),
        2,
      )} | ${cell(
        r.map((x) => x.majorGcs),
        3,
      )} |`,
    );
  }
}
