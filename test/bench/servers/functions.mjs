/**
 * The functions under test, written as a user would write them (async handlers, as the
 * starter template does), the raw node:http listeners that do the same work by hand, and the
 * logid rule the raw listeners and the peers (servers/peers.mjs) share.
 */
import { parse as parseQuerystring } from 'node:querystring';

/** GET /hello?name=world → {"hello":"world"} */
export async function hello(params) {
  return { hello: typeof params.name === 'string' ? params.name : 'world' };
}

/** POST /echo with a JSON body → the same JSON. */
export async function echo(params) {
  return params;
}

/** POST /upload with one multipart file → its name and size. */
export async function upload(params) {
  const file = params.file;
  return { name: file.name, size: file.size };
}

let counter = 0;
/**
 * What the baselines and the peers do for the logid header: take the incoming one (a header
 * value, or undefined), or make one from the time and a counter.
 */
export function logidOf(incoming) {
  return typeof incoming === 'string' ? incoming : Date.now().toString(16) + (++counter).toString(16).padStart(6, '0');
}

function logid(req) {
  return logidOf(req.headers['x-platform-logid']);
}

function sendJson(req, res, value) {
  const body = JSON.stringify(value);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-platform-logid': logid(req),
  });
  res.end(body);
}

function readAll(req, done) {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on('end', () => done(Buffer.concat(chunks, size)));
}

/** Raw GET: parse the query, answer JSON, set the logid header. */
export function rawHello(req, res) {
  const url = req.url;
  const q = url.indexOf('?');
  const query = parseQuerystring(q === -1 ? '' : url.slice(q + 1));
  sendJson(req, res, { hello: typeof query.name === 'string' ? query.name : 'world' });
}

/** Raw JSON echo: read the body, parse it, answer it. */
export function rawEcho(req, res) {
  readAll(req, (body) => sendJson(req, res, JSON.parse(body.toString('utf8'))));
}

/** Raw upload: read the whole body without parsing it, answer its size. */
export function rawUpload(req, res) {
  readAll(req, (body) => sendJson(req, res, { name: 'raw', size: body.length }));
}
