/**
 * The mixed traffic of the soak: each kind of request with the answer it must get. A client
 * loop sends one request at a time on its own kept-alive connection and checks the status,
 * the logid header, the body and, for 413, `Connection: close`.
 */
import { Agent, request } from 'node:http';
import { multipartBody } from './bodies.mjs';

const JSON_BODY = JSON.stringify({ user: 'soak', tags: ['a', 'b'], n: 42, nested: { ok: true, text: 'héllo 你好' } });
const FORM_BODY = 'user=soak&tag=a&tag=b&text=h%C3%A9llo+%E4%BD%A0%E5%A5%BD';
const SMALL_UPLOAD = multipartBody(20 * 1024);
const LARGE_UPLOAD = multipartBody(200 * 1024);
const OVERSIZE = JSON.stringify({ pad: 'x'.repeat(4096) });

/** `[name, weight, request, check]`: check returns undefined when the answer is right, else why not. */
export const KINDS = [
  ['get', 40, { method: 'GET', path: '/hello?name=soak' }, (r) => expectJson(r, 200, (b) => b.hello === 'soak')],
  [
    'json',
    15,
    { method: 'POST', path: '/echo', type: 'application/json', body: JSON_BODY },
    (r) => expectJson(r, 200, (b) => JSON.stringify(b.echo) === JSON_BODY),
  ],
  [
    'urlencoded',
    10,
    { method: 'POST', path: '/echo', type: 'application/x-www-form-urlencoded', body: FORM_BODY },
    (r) => expectJson(r, 200, (b) => b.echo.text === 'héllo 你好' && b.echo.tag.length === 2),
  ],
  [
    'multipart',
    6,
    { method: 'POST', path: '/upload', type: SMALL_UPLOAD.contentType, body: SMALL_UPLOAD.body },
    (r) => expectJson(r, 200, (b) => b.size === 20 * 1024),
  ],
  [
    'multipart-large',
    3,
    { method: 'POST', path: '/upload', type: LARGE_UPLOAD.contentType, body: LARGE_UPLOAD.body },
    (r) => expectJson(r, 200, (b) => b.size === 200 * 1024),
  ],
  ['handler-error', 10, { method: 'GET', path: '/fail' }, (r) => expectError(r, 500, 'CLOUDFN_HANDLER_ERROR')],
  ['timeout', 6, { method: 'GET', path: '/slow' }, (r) => expectError(r, 504, 'CLOUDFN_TIMEOUT')],
  [
    'oversize',
    10,
    { method: 'POST', path: '/small', type: 'application/json', body: OVERSIZE },
    (r) =>
      expectError(r, 413, 'CLOUDFN_BODY_TOO_LARGE') ??
      (r.headers.connection === 'close' ? undefined : 'a 413 without Connection: close'),
  ],
];

function parse(r) {
  try {
    return JSON.parse(r.body);
  } catch {
    return undefined;
  }
}

function expectJson(r, status, ok) {
  if (r.status !== status) return `status ${r.status}, expected ${status}: ${r.body.slice(0, 160)}`;
  if (typeof r.headers['x-platform-logid'] !== 'string') return 'no x-platform-logid header';
  const body = parse(r);
  return body !== undefined && ok(body) ? undefined : `unexpected body ${r.body.slice(0, 160)}`;
}

function expectError(r, status, code) {
  if (r.status !== status) return `status ${r.status}, expected ${status}: ${r.body.slice(0, 160)}`;
  const body = parse(r);
  if (body?.error?.code !== code) return `error code ${body?.error?.code}, expected ${code}`;
  if (body.error.logid !== r.headers['x-platform-logid']) return 'the body logid differs from the header';
  return undefined;
}

/** Sends one request and resolves with `{ status, headers, body }`, or `{ error }` for a socket error. */
export function send(base, agent, spec, timeoutMs = 10_000) {
  return new Promise((resolve) => {
    const headers =
      spec.type === undefined ? {} : { 'content-type': spec.type, 'content-length': Buffer.byteLength(spec.body) };
    const req = request(base + spec.path, { method: spec.method, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', (error) => resolve({ error: error.code ?? error.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.on('error', (error) => resolve({ error: error.code ?? error.message }));
    req.end(spec.body);
  });
}

/** A weighted, repeatable sequence of kinds (no randomness: two runs send the same mix). */
export function schedule() {
  const out = [];
  for (const [index, [, weight]] of KINDS.entries()) for (let i = 0; i < weight; i++) out.push(index);
  // Spread the kinds: a fixed stride through the list visits every entry once.
  const stride = 37;
  return out.map((_, i) => out[(i * stride) % out.length]);
}

/**
 * Runs `connections` client loops until `until()` is true. Each loop has its own kept-alive
 * connection. Resolves with counts per kind and every failure (wrong answers and socket errors).
 */
export async function mixedLoad({ base, connections, until, onAnswer = () => {} }) {
  const order = schedule();
  const stats = Object.fromEntries(KINDS.map(([name]) => [name, { sent: 0, ok: 0, wrong: 0, socketErrors: 0 }]));
  const failures = [];
  const loops = [];
  for (let c = 0; c < connections; c++) {
    loops.push(
      (async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        let step = c * 7;
        while (!until()) {
          const [name, , spec, check] = KINDS[order[step++ % order.length]];
          const s = stats[name];
          s.sent++;
          const answer = await send(base, agent, spec);
          onAnswer(name, answer);
          if (answer.error !== undefined) {
            s.socketErrors++;
            if (failures.length < 50) failures.push(`${name}: socket error ${answer.error}`);
            continue;
          }
          const why = check(answer);
          if (why === undefined) s.ok++;
          else {
            s.wrong++;
            if (failures.length < 50) failures.push(`${name}: ${why}`);
          }
        }
        agent.destroy();
      })(),
    );
  }
  await Promise.all(loops);
  return { stats, failures };
}
