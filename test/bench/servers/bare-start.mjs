/**
 * The cold-start baseline: the smallest node:http server answering the same GET as the built
 * hello bundle, on PORT and HOST.
 */
import { createServer } from 'node:http';

createServer((req, res) => {
  const body = JSON.stringify({ hello: new URL(req.url, 'http://x').searchParams.get('name') ?? 'world' });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
