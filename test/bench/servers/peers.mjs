/**
 * The peers of the bench: the same two handlers as the raw baseline — GET /hello?name=world
 * answering {"hello":"world"} and POST /echo answering its JSON body — written the way each
 * framework's guide writes them, with the `x-platform-logid` header taken from the request or
 * made (functions.mjs `logidOf`). Each framework keeps its defaults otherwise; what differs
 * from them is said beside it and in docs/performance.md.
 *
 *   fastify      fastify 5, logger off (its default)
 *   fastify-log  fastify 5, logger on: pino writing its lines to a file (BENCH_LOG_FILE) through
 *                an asynchronous sonic-boom, as cloudfn writes one JSON line per request
 *   hono         hono 4 on @hono/node-server
 *   express      express 5, express.json() on the POST route
 *   gcf          @google-cloud/functions-framework 5 (its own start-up options; it parses JSON
 *                bodies itself), one function answering both paths
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { logidOf } from './functions.mjs';

const require = createRequire(import.meta.url);
const nameOf = (value) => (typeof value === 'string' ? value : 'world');

/** The peers `makePeer` knows, in the order the table lists them. */
export const PEERS = ['fastify', 'fastify-log', 'hono', 'express', 'gcf'];

/** What each peer is, for the table and docs/performance.md. */
export const PEER_LABELS = {
  fastify: 'fastify 5, logger off',
  'fastify-log': 'fastify 5, logger on (pino to a file)',
  hono: 'hono 4 on @hono/node-server',
  express: 'express 5',
  gcf: '@google-cloud/functions-framework 5',
};

/** The installed version of each peer's package, for results.json. */
export function peerVersions() {
  const version = (name) => {
    // Some packages (hono) do not export their package.json: read it beside the resolved entry.
    let dir = require.resolve(name);
    for (;;) {
      const parent = dir.slice(0, dir.lastIndexOf('/'));
      try {
        const pkg = require(`${parent}/package.json`);
        if (pkg.name === name) return pkg.version;
      } catch {
        // Not a package folder yet: go up.
      }
      if (parent === dir || parent === '') return 'unknown';
      dir = parent;
    }
  };
  return {
    fastify: version('fastify'),
    pino: version('pino'),
    hono: version('hono'),
    '@hono/node-server': version('@hono/node-server'),
    express: version('express'),
    '@google-cloud/functions-framework': version('@google-cloud/functions-framework'),
  };
}

/** A node:http server of the peer `kind`, not yet listening. */
export async function makePeer(kind) {
  if (kind === 'fastify' || kind === 'fastify-log') return fastifyServer(kind === 'fastify-log');
  if (kind === 'hono') return honoServer();
  if (kind === 'express') return expressServer();
  if (kind === 'gcf') return gcfServer();
  throw new Error(`unknown peer ${kind}; use ${PEERS.join(', ')}`);
}

async function fastifyServer(logging) {
  const { default: Fastify } = await import('fastify');
  let logger = false;
  if (logging) {
    // pino is fastify's own dependency; its asynchronous destination batches lines while a
    // write is pending, the nearest to cloudfn's one write per turn of the event loop.
    const pino = createRequire(require.resolve('fastify'))('pino');
    const file = process.env.BENCH_LOG_FILE;
    if (!file) throw new Error('fastify-log needs BENCH_LOG_FILE, the file its lines go to');
    logger = { level: 'info', stream: pino.destination({ dest: file, sync: false }) };
  }
  const app = Fastify({
    logger,
    // fastify's own request id: read from the logid header, or made as the raw baseline does.
    requestIdHeader: 'x-platform-logid',
    genReqId: () => logidOf(undefined),
  });
  app.get('/hello', async (request, reply) => {
    reply.header('x-platform-logid', request.id);
    return { hello: nameOf(request.query.name) };
  });
  app.post('/echo', async (request, reply) => {
    reply.header('x-platform-logid', request.id);
    return request.body;
  });
  await app.ready();
  return app.server;
}

async function honoServer() {
  const { Hono } = await import('hono');
  const { createAdaptorServer } = await import('@hono/node-server');
  const app = new Hono();
  app.get('/hello', (c) => {
    c.header('x-platform-logid', logidOf(c.req.header('x-platform-logid')));
    return c.json({ hello: nameOf(c.req.query('name')) });
  });
  app.post('/echo', async (c) => {
    const body = await c.req.json();
    c.header('x-platform-logid', logidOf(c.req.header('x-platform-logid')));
    return c.json(body);
  });
  return createAdaptorServer({ fetch: app.fetch });
}

async function expressServer() {
  const { default: express } = await import('express');
  const app = express();
  app.get('/hello', (req, res) => {
    res.set('x-platform-logid', logidOf(req.headers['x-platform-logid']));
    res.json({ hello: nameOf(req.query.name) });
  });
  app.post('/echo', express.json(), (req, res) => {
    res.set('x-platform-logid', logidOf(req.headers['x-platform-logid']));
    res.json(req.body);
  });
  return createServer(app);
}

function gcfServer() {
  // The framework's own start-up path (options parsed as its CLI does), without its CLI's
  // fixed port; package exports hide these files, so they are required by path.
  const base = require.resolve('@google-cloud/functions-framework').replace(/index\.js$/, '');
  const { getServer } = require(`${base}server.js`);
  const { parseOptions } = require(`${base}options.js`);
  const options = parseOptions(['node', 'functions-framework', '--target=peer', '--signature-type=http'], {});
  // One function serves every path (the framework routes nothing): it answers by path.
  const server = getServer((req, res) => {
    res.set('x-platform-logid', logidOf(req.headers['x-platform-logid']));
    if (req.path === '/echo') res.json(req.body);
    else res.json({ hello: nameOf(req.query.name) });
  }, options);
  server.setTimeout(0);
  return server;
}
