/**
 * The response invariant as a property over a real socket: random pipelined sequences of
 * valid, invalid, slow and oversized requests on one keep-alive connection, read back by llhttp.
 * Every answered request gets exactly one well-formed response, in order, with no stray bytes;
 * a request that closes the connection (400, 413, 431, a stream that breaks its length) is the
 * last one answered; and the server keeps serving. CLOUDFN_PROPERTY_RUNS sets the number of runs
 * (the default keeps this file well under a minute on two cores; the 1000 is run by hand).
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec, Service } from '../../../runtime/types.js';
import { pause, readResponses, talk } from '../helpers/wire.js';

const RUNS = Number(process.env['CLOUDFN_PROPERTY_RUNS'] ?? 300);

let server: RunningServer;

const functions: FunctionSpec[] = [
  {
    name: 'echo',
    handler: (params: unknown) => ({ got: Buffer.isBuffer(params) ? params.length : params }),
    config: { maxBodySize: 1024 },
  },
  {
    name: 'stream',
    handler: () => {
      let left = 3;
      return new Readable({
        read() {
          setImmediate(() => this.push(left-- > 0 ? `chunk ${left};` : null));
        },
      });
    },
  },
  {
    name: 'liar',
    handler: (_p: unknown, service: Service) => (
      service.set('Content-Length', '5'), Readable.from([Buffer.from('twenty-one bytes here')])
    ),
  },
  { name: 'wait', handler: () => new Promise((resolve) => setTimeout(() => resolve({ waited: true }), 15)) },
];

beforeAll(async () => {
  server = await serve(functions, {
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    logger: new Logger(createMemorySink()),
    handleSignals: false,
    keepServing: false,
  });
});
afterAll(() => server.close());

/** One request of a sequence: its bytes, how they are sent, and what the client must read. */
interface Step {
  name: string;
  bytes: string;
  /** The status expected, or undefined for a request that is cut without an answer. */
  status: number | undefined;
  /** The server closes the connection after this one. */
  closes: boolean;
  /** Sent in two parts with a pause between them. */
  slow: boolean;
}

const json = (body: string): string =>
  `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const steps: fc.Arbitrary<Omit<Step, 'slow'>>[] = [
  fc
    .nat(999)
    .map((n) => ({ name: 'get', bytes: `GET /echo?a=${n} HTTP/1.1\r\nHost: x\r\n\r\n`, status: 200, closes: false })),
  fc.json({ maxDepth: 2 }).map((body) => ({
    name: 'json',
    bytes: json(body),
    status: Buffer.byteLength(body) > 1024 ? 413 : 200,
    closes: Buffer.byteLength(body) > 1024,
  })),
  fc.constant({ name: 'bad json', bytes: json('{"a":'), status: 400, closes: false }),
  fc.constant({ name: 'stream', bytes: 'GET /stream HTTP/1.1\r\nHost: x\r\n\r\n', status: 200, closes: false }),
  fc.constant({ name: 'wait', bytes: 'GET /wait HTTP/1.1\r\nHost: x\r\n\r\n', status: 200, closes: false }),
  fc.constant({ name: '404', bytes: 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n', status: 404, closes: false }),
  fc.constant({ name: '405', bytes: 'DELETE /echo HTTP/1.1\r\nHost: x\r\n\r\n', status: 405, closes: false }),
  fc.constant({ name: 'no host', bytes: 'GET /echo HTTP/1.1\r\n\r\n', status: 400, closes: true }),
  fc.constant({ name: 'garbage', bytes: 'HELLO THERE\r\n\r\n', status: 400, closes: true }),
  fc.constant({
    name: 'big header',
    bytes: `GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    status: 431,
    closes: true,
  }),
  fc.constant({
    name: 'over length',
    bytes: 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5000\r\n\r\n',
    status: 413,
    closes: true,
  }),
  fc.constant({
    name: 'over chunked',
    bytes: `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n${'x'.repeat(2048)}\r\n`,
    status: 413,
    closes: true,
  }),
  fc.constant({
    name: 'bad chunk',
    bytes: 'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    status: 400,
    closes: true,
  }),
  fc.constant({ name: 'liar', bytes: 'GET /liar HTTP/1.1\r\nHost: x\r\n\r\n', status: undefined, closes: true }),
];

const sequence = fc.array(
  fc.tuple(fc.oneof(...steps), fc.boolean()).map(([step, slow]) => ({ ...step, slow: slow && step.bytes.length > 4 })),
  { minLength: 1, maxLength: 6 },
);

async function send(steps: Step[]): Promise<void> {
  // The answers expected: each step's up to the first that closes the connection.
  const end = steps.findIndex((step) => step.closes);
  const answered = end === -1 ? steps : steps.slice(0, end + 1);
  const expected = answered.flatMap((step) => (step.status === undefined ? [] : [step.status]));
  const closes = end !== -1;
  const seen = await talk(
    server.port,
    (socket) => {
      void (async () => {
        for (const step of steps) {
          if (socket.destroyed) return;
          if (step.slow) {
            const cut = Math.floor(step.bytes.length / 2);
            socket.write(step.bytes.slice(0, cut));
            await pause(5);
            if (socket.destroyed) return;
            socket.write(step.bytes.slice(cut));
          } else {
            socket.write(step.bytes);
          }
        }
      })();
    },
    // A connection that stays open is read until every answer is in; one that closes, until it does.
    { waitMs: 4000, until: closes ? undefined : (bytes) => readResponses(bytes).responses.length >= expected.length },
  );
  const read = readResponses(seen.bytes);
  const cutAtEnd = closes && answered.at(-1)!.status === undefined;
  expect(read.error, `llhttp error after ${read.responses.length} responses`).toBe(
    cutAtEnd && read.error === 'HPE_INVALID_EOF_STATE' ? read.error : undefined,
  );
  expect(read.responses.map((r) => r.status)).toEqual(expected);
  if (!cutAtEnd) expect(read.truncated).toBe(false);
  for (const response of read.responses) {
    const logid = response.headers['x-platform-logid'];
    expect(logid).toMatch(/^[0-9a-f]{24}$/);
    if (response.status >= 400) expect(JSON.parse(response.body.toString()).error.logid).toBe(logid);
  }
  if (closes) expect(seen.closed).toBe(true);
}

it(`answers random pipelined sequences in order, each once, with nothing else on the wire (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(sequence, async (steps) => {
      await send(steps);
    }),
    { numRuns: RUNS },
  );
  await pause(100);
  expect(server.app.inflight, 'requests left in flight').toBe(0);
  // Still serving.
  const after = await talk(server.port, (s) =>
    s.write('GET /echo?ok=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
  );
  expect(readResponses(after.bytes).responses.map((r) => r.status)).toEqual([200]);
}, 600_000);
