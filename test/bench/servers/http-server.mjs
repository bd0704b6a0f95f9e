/**
 * One server under test, in its own process: `node http-server.mjs <kind>`, kind being raw,
 * cloudfn, a peer of servers/peers.mjs (fastify, fastify-log, hono, express, gcf), or a cloudfn
 * that pays for a feature its functions under test do not use (the `unused` rows):
 * cloudfn-schemas (other functions of the app declare zod params schemas), cloudfn-undeclared
 * (the same functions and schemas, not declared: its baseline) and cloudfn-trust
 * (`trustGatewayHeaders` on, and the load sends no `x-tt-logid`).
 * It listens on 127.0.0.1 port 0, reports `{ port }` over the IPC channel, and answers
 * `'stats'` with its current and peak RSS and the CPU time it has used. cloudfn runs with its defaults: the logid, the
 * JSON request line on stdout (the parent points stdout at a file), limits and timeouts on.
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { rawEcho, rawHello, rawUpload, hello, echo, upload } from './functions.mjs';
import { makePeer, PEERS } from './peers.mjs';
import { AllocationMeter } from '../lib/allocation.mjs';

const kind = process.argv[2];

async function makeServer() {
  if (kind === 'raw') {
    return createServer((req, res) => {
      const url = req.url;
      if (url.startsWith('/hello')) rawHello(req, res);
      else if (url.startsWith('/echo')) rawEcho(req, res);
      else if (url.startsWith('/upload')) rawUpload(req, res);
      else res.writeHead(404).end();
    });
  }
  if (kind === 'cloudfn' || kind === 'cloudfn-schemas' || kind === 'cloudfn-undeclared' || kind === 'cloudfn-trust') {
    // BENCH_CLOUDFN_DIST: an ablation's patched copy of dist/ (lib/ablation-variants.mjs).
    const dist = process.env.BENCH_CLOUDFN_DIST;
    const { createApp, createHttpServer } = await import(
      dist === undefined ? '../../../dist/runtime/index.js' : pathToFileURL(`${dist}/runtime/index.js`).href
    );
    const functions = [
      { name: 'hello', handler: hello },
      { name: 'echo', handler: echo },
      { name: 'upload', handler: upload },
    ];
    if (kind === 'cloudfn-schemas') functions.push(...(await declaredFunctions(true)));
    if (kind === 'cloudfn-undeclared') functions.push(...(await declaredFunctions(false)));
    const app = createApp({
      functions,
      options: kind === 'cloudfn-trust' ? { trustGatewayHeaders: true } : {},
    });
    return createHttpServer(app);
  }
  if (PEERS.includes(kind)) return makePeer(kind);
  throw new Error(`unknown server kind ${kind}; use raw, cloudfn or ${PEERS.join(', ')}`);
}

/**
 * Functions with zod 4 params schemas, beside the ones under test (never called); with
 * `declare` false the schemas are built but not given to cloudfn.
 */
async function declaredFunctions(declare) {
  const { z } = await import('zod');
  const user = z.object({ id: z.string(), page: z.coerce.number().int().default(0) });
  const order = z.object({ sku: z.string(), qty: z.number().int().positive(), note: z.string().optional() });
  return [
    { name: 'user', handler: async (params) => params, config: declare ? { params: user } : {} },
    { name: 'order', handler: async (params) => params, config: declare ? { params: order, result: order } : {} },
  ];
}

const server = await makeServer();
// 'alloc-start' and 'alloc-stop': the allocation rows' marks (lib/allocation-rows.mjs).
const meter = new AllocationMeter();
server.listen(0, '127.0.0.1', () => {
  process.send({ port: server.address().port });
});
process.on('message', (message) => {
  if (message === 'alloc-start') {
    meter.start();
    process.send('started');
  }
  if (message === 'alloc-stop') process.send(meter.stop());
  if (message === 'stats') {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    process.send({
      rss: memory.rss,
      heapTotal: memory.heapTotal,
      maxRss: process.resourceUsage().maxRSS * 1024,
      cpuMicros: cpu.user + cpu.system,
      userMicros: cpu.user,
    });
  }
});
process.on('disconnect', () => process.exit(0));
