/**
 * The tuned hot paths of the runtime (docs/performance.md) must give exactly what the plain
 * code gives: the hand-built request line is the record serializeRecord would write.
 */
import { describe, expect, it } from 'vitest';
import { Logger } from '../../runtime/log/logger.js';
import { serializeRecord, type LogRecord } from '../../runtime/log/record.js';
import { createJsonSink, createMemorySink } from '../../runtime/log/sinks.js';

function linesOf(run: (logger: Logger) => void): string[] {
  const writes: string[] = [];
  const sink = createJsonSink((text) => writes.push(text));
  run(new Logger(sink));
  sink.flush();
  return writes
    .join('')
    .split('\n')
    .filter((line) => line !== '');
}

describe('the request line built as text', () => {
  const cases: [string, string, string, number, number, number, string, string | undefined][] = [
    ['hello', 'GET', '/hello', 200, 0.3, 17, 'online', undefined],
    [
      'videos/list',
      'POST',
      '/videos/list/x',
      413,
      12.5,
      180,
      'ide_debug',
      'CLOUDFN_BODY_TOO_LARGE: the body is larger than 10 bytes, the limit set by maxBodySize; send less, or raise that limit',
    ],
    [
      'we"ird\\name',
      'GET',
      '/a"b\\c/%E4%BD%A0\u00e9',
      500,
      0,
      0,
      'console_debug',
      'quote " backslash \\ newline \n tab \t nul \u0000 and 你好',
    ],
  ];

  it.each(cases)(
    'is byte for byte the serialized record (%s)',
    (fn, method, path, status, ms, bytes, trigger, error) => {
      const [line] = linesOf((logger) =>
        logger.request({
          level: status >= 500 ? 'error' : 'info',
          logid: 'L1',
          fn,
          method,
          path,
          status,
          durationMs: ms,
          bytes,
          trigger,
          error,
        }),
      );
      const parsed = JSON.parse(line!) as LogRecord;
      const expected: Record<string, unknown> = {
        level: parsed.level,
        time: parsed.time,
        method,
        path,
        status,
        durationMs: ms,
        bytes,
        trigger,
      };
      if (error !== undefined) expected['error'] = error;
      expected['logid'] = 'L1';
      expected['function'] = fn;
      expected['msg'] = `${method} ${path} ${status} ${ms} ms ${bytes} B`;
      expect(line).toBe(serializeRecord(expected as LogRecord));
      expect(typeof parsed.time).toBe('number');
    },
  );

  it('carries trace_id and span_id after logid, byte for byte as the record, with and without an error', () => {
    const ids = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    for (const error of [undefined, 'CLOUDFN_TIMEOUT: x']) {
      const facts = {
        level: 'info' as const,
        logid: 'L4',
        fn: 'hello',
        method: 'GET',
        path: '/hello',
        status: 200,
        durationMs: 0.3,
        bytes: 17,
        trigger: 'online',
        error,
        ...ids,
      };
      const [line] = linesOf((logger) => logger.request(facts));
      const memory = createMemorySink();
      new Logger(memory).request(facts);
      const record = { ...memory.records[0]!, time: (JSON.parse(line!) as LogRecord).time };
      expect(line).toBe(serializeRecord(record));
      expect(Object.keys(record).slice(error === undefined ? 8 : 9, error === undefined ? 11 : 12)).toEqual([
        'logid',
        'trace_id',
        'span_id',
      ]);
      expect(JSON.parse(line!)).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
    }
  });

  it('gives a record sink the same fields as a record', () => {
    const memory = createMemorySink();
    new Logger(memory).request({
      level: 'warn',
      logid: 'L2',
      fn: 'hello',
      method: 'GET',
      path: '/hello',
      status: 404,
      durationMs: 1.5,
      bytes: 99,
      trigger: 'online',
      error: 'CLOUDFN_NOT_FOUND: x',
    });
    expect(memory.records).toHaveLength(1);
    const { time, ...rest } = memory.records[0]!;
    expect(typeof time).toBe('number');
    expect(Object.keys(memory.records[0]!)).toEqual([
      'level',
      'time',
      'method',
      'path',
      'status',
      'durationMs',
      'bytes',
      'trigger',
      'error',
      'logid',
      'function',
      'msg',
    ]);
    expect(rest).toEqual({
      level: 'warn',
      method: 'GET',
      path: '/hello',
      status: 404,
      durationMs: 1.5,
      bytes: 99,
      trigger: 'online',
      error: 'CLOUDFN_NOT_FOUND: x',
      logid: 'L2',
      function: 'hello',
      msg: 'GET /hello 404 1.5 ms 99 B',
    });
  });

  it('falls back to a cut, marked record when the line is too long', () => {
    const [line] = linesOf((logger) =>
      logger.request({
        level: 'info',
        logid: 'L3',
        fn: 'f',
        method: 'GET',
        path: '/' + 'x'.repeat(1024 * 1024),
        status: 200,
        durationMs: 1,
        bytes: 1,
        trigger: 'online',
        error: undefined,
      }),
    );
    expect(JSON.parse(line!)).toMatchObject({ truncated: true, logid: 'L3', function: 'f' });
  });
});

describe('generated log ids', () => {
  it('keep their shape: 12 hex digits of time, 6 of process, 6 of a counter that counts up', async () => {
    const { generateLogid } = await import('../../runtime/log/logid.js');
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => generateLogid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    const time = parseInt(ids[0]!.slice(0, 12), 16);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
    expect(new Set(ids.map((id) => id.slice(12, 18))).size).toBe(1);
    const counters = ids.map((id) => parseInt(id.slice(18), 16));
    for (let i = 1; i < counters.length; i++) expect(counters[i]).toBe((counters[i - 1]! + 1) & 0xffffff);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('multipart: large parts skip busboy and come back as views of the body', async () => {
  const { parseMultipartWith } = await import('../../runtime/body/multipart.js');
  const { defaultLimits } = await import('../../runtime/options.js');
  const B = 'XbOuNdArY7';
  const type = `multipart/form-data; boundary=${B}`;
  const big = (n: number, seed = 7): Buffer => {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 0xff;
    // Text that looks like a delimiter, but is not one, inside the content.
    out.write(`\r\n--${B.slice(0, 5)}\r\n`, Math.floor(n / 2), 'latin1');
    return out;
  };
  const part = (headers: string, content: Buffer | string): Buffer =>
    Buffer.concat([
      Buffer.from(`--${B}\r\n${headers}\r\n\r\n`, 'latin1'),
      Buffer.from(content as Buffer),
      Buffer.from('\r\n', 'latin1'),
    ]);
  const body = (...parts: Buffer[]): Buffer => Buffer.concat([...parts, Buffer.from(`--${B}--\r\n`, 'latin1')]);
  const file = (name: string, filename: string, content: Buffer, mime = 'application/octet-stream'): Buffer =>
    part(`Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${mime}`, content);
  const field = (name: string, value: Buffer | string, extra = ''): Buffer =>
    part(`Content-Disposition: form-data; name="${name}"${extra}`, value);
  const limits = { ...defaultLimits };

  const cases: [string, Buffer, typeof limits][] = [
    ['one large file', body(file('video', 'a.bin', big(200_000))), limits],
    [
      'files and fields in order, a repeated key',
      body(
        field('title', 'hi'),
        file('f', 'a.bin', big(70_000, 1)),
        field('tag', 'x'),
        field('tag', 'y'),
        file('f', 'b.bin', big(90_000, 2)),
        file('g', 'small.txt', Buffer.from('tiny')),
      ),
      limits,
    ],
    [
      'a large text field (read again by busboy)',
      body(field('text', 'é'.repeat(40_000)), file('f', 'a.bin', big(80_000))),
      limits,
    ],
    [
      'a large UTF-16 field',
      body(
        field('text', Buffer.from('你好'.repeat(20_000), 'utf16le'), '\r\nContent-Type: text/plain; charset=utf-16le'),
      ),
      limits,
    ],
    ['a file over maxFileSize', body(file('f', 'a.bin', big(100_000))), { ...limits, maxFileSize: 99_999 }],
    ['a file of exactly maxFileSize', body(file('f', 'a.bin', big(100_000))), { ...limits, maxFileSize: 100_000 }],
    [
      'a large part without Content-Disposition',
      body(part('Content-Type: application/octet-stream', big(70_000)), field('a', '1')),
      limits,
    ],
    ['a large file named __proto__', body(file('__proto__', 'a.bin', big(70_000)), field('a', '1')), limits],
    [
      'octet-stream without a filename',
      body(part('Content-Disposition: form-data; name="raw"\r\nContent-Type: application/octet-stream', big(70_000))),
      limits,
    ],
    [
      'a UTF-8 filename*',
      body(part(`Content-Disposition: form-data; name="f"; filename*=UTF-8''%E4%BD%A0%E5%A5%BD.bin`, big(70_000))),
      limits,
    ],
    [
      'more files than maxFiles',
      body(file('a', '1.bin', big(70_000)), file('b', '2.bin', big(70_000)), file('c', '3.bin', big(70_000))),
      { ...limits, maxFiles: 2 },
    ],
    [
      'a body cut inside a large part',
      body(file('a', '1.bin', big(70_000)), file('b', '2.bin', big(70_000))).subarray(0, 120_000),
      limits,
    ],
    [
      'a preamble and an epilogue',
      Buffer.concat([Buffer.from('preamble\r\n'), body(file('a', '1.bin', big(70_000))), Buffer.from('epilogue')]),
      limits,
    ],
    [
      'an empty file input beside a large file',
      body(file('empty', '', Buffer.alloc(0)), file('a', '1.bin', big(70_000))),
      limits,
    ],
  ];

  const settle = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value }),
      (error: { code?: string; message?: string }) => ({ error: `${error.code}: ${error.message}` }),
    );

  it.each(cases)('%s: the same result as busboy alone', async (_name, raw, caseLimits) => {
    const fast = await settle(parseMultipartWith(type, raw, caseLimits, { skipLargeParts: true }));
    const plain = await settle(parseMultipartWith(type, raw, caseLimits, { skipLargeParts: false }));
    expect(fast).toEqual(plain);
  });

  it('hands a large file over as a view of the body, not a copy', async () => {
    const content = big(300_000);
    const raw = body(file('f', 'a.bin', content));
    const form = (await parseMultipartWith(type, raw, limits, { skipLargeParts: true })) as Record<
      string,
      { buffer: Buffer; size: number }
    >;
    expect(form['f']!.size).toBe(300_000);
    expect(form['f']!.buffer.equals(content)).toBe(true);
    expect(form['f']!.buffer.buffer).toBe(raw.buffer);
  });
});

describe('the request line while paths and functions alternate', () => {
  it('never reuses the quoted text of another request', () => {
    const calls: [string, string, 'info' | 'warn', string, string][] = [
      ['a', '/a', 'info', 'GET', 'online'],
      ['a', '/a', 'info', 'GET', 'online'],
      ['b', '/b"x', 'info', 'GET', 'online'],
      ['a', '/a', 'warn', 'GET', 'online'],
      ['a', '/a', 'warn', 'POST', 'online'],
      ['a', '/a', 'warn', 'POST', 'ide_debug'],
      ['b', '/b"x', 'info', 'GET', 'online'],
      ['c', '/a', 'info', 'GET', 'online'],
    ];
    const lines = linesOf((logger) => {
      for (const [fn, path, level, method, trigger] of calls)
        logger.request({
          level,
          logid: 'L',
          fn,
          method,
          path,
          status: 200,
          durationMs: 1,
          bytes: 2,
          trigger,
          error: undefined,
        });
    });
    const records = lines.map((line) => JSON.parse(line) as LogRecord);
    expect(records.map((r) => [r.function, r['path'], r.level, r['method'], r['trigger'], r.msg])).toEqual(
      calls.map(([fn, path, level, method, trigger]) => [
        fn,
        path,
        level,
        method,
        trigger,
        `${method} ${path} 200 1 ms 2 B`,
      ]),
    );
  });
});

describe('the stdout sink', async () => {
  const { createStdoutSink } = await import('../../runtime/log/sinks.js');
  const { Writable } = await import('node:stream');

  function capture(sync: boolean) {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        // A copy: the sink may reuse its buffer once the stream has taken the bytes.
        chunks.push(Buffer.from(chunk));
        if (sync) done();
        else setTimeout(done, 1);
      },
    });
    return { chunks, stream };
  }

  it.each([
    [true, 65536],
    [false, 65536],
    [true, 4096],
    [false, 4096],
  ])(
    'writes every line once, in order, whole (synchronous stream: %s, batches of %i bytes)',
    async (sync, batchBytes) => {
      const { chunks, stream } = capture(sync);
      const sink = createStdoutSink({ stream: () => stream, batchBytes });
      const lines: string[] = [];
      for (let i = 0; i < 2000; i++) {
        const line = JSON.stringify({
          i,
          text: i % 500 === 3 ? 'z'.repeat(2000) : i % 7 === 0 ? '你好 é'.repeat(i % 50) : 'x'.repeat(i % 300),
        });
        lines.push(line);
        sink.writeLine(line);
        if (i % 97 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const huge = JSON.stringify({ huge: 'y'.repeat(100_000) });
      sink.writeLine(huge);
      lines.push(huge);
      sink.flush();
      await new Promise((resolve) => stream.end(resolve));
      expect(Buffer.concat(chunks).toString('utf8')).toBe(lines.join('\n') + '\n');
      // Every write is whole lines, and within the batch size unless it is one long line.
      for (const chunk of chunks) {
        expect(chunk[chunk.length - 1]).toBe(0x0a);
        if (chunk.length > batchBytes) expect(chunk.indexOf(0x0a)).toBe(chunk.length - 1);
      }
    },
  );

  it('is what createJsonSink gives without a write function, and takes records', () => {
    const { chunks, stream } = capture(true);
    const sink = createStdoutSink({ stream: () => stream });
    sink.write({ level: 'info', time: 1, logid: 'L', function: 'f', msg: 'hi' });
    sink.flush();
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toEqual({
      level: 'info',
      time: 1,
      logid: 'L',
      function: 'f',
      msg: 'hi',
    });
  });
});

describe('parseBody while Content-Types alternate', () => {
  it('reads each request by its own Content-Type and charset', async () => {
    const { formParser, parseBody } = await import('../../runtime/body/parse-body.js');
    const { defaultLimits } = await import('../../runtime/options.js');
    // Urlencoded bodies are read synchronously once their parser has loaded (the first waits).
    await formParser.load();
    const options = { protoAction: 'error' as const };
    const gbk = Buffer.from([0xc4, 0xe3, 0xba, 0xc3]); // 你好 in GBK
    const cases: [string | undefined, Buffer, unknown][] = [
      ['application/json', Buffer.from('{"a":"é"}'), { a: 'é' }],
      ['text/plain; charset=gbk', gbk, '你好'],
      ['text/plain', Buffer.from('plain é'), 'plain é'],
      ['application/json; charset=utf-8', Buffer.from('[1,2]'), [1, 2]],
      ['text/plain; charset=gbk', gbk, '你好'],
      ['text/plain; charset=gbk', gbk, '你好'],
      [undefined, Buffer.from('raw'), Buffer.from('raw')],
      ['application/x-www-form-urlencoded', Buffer.from('a=1&a=2'), { a: ['1', '2'] }],
      ['application/json', Buffer.from('{"b":2}'), { b: 2 }],
      ['Text/Plain; Charset="GBK"', gbk, '你好'],
      ['text/plain', Buffer.from('again'), 'again'],
    ];
    for (const [type, body, expected] of cases) {
      const value = parseBody(type, body, defaultLimits, options);
      expect(value instanceof Buffer ? value : JSON.parse(JSON.stringify(value))).toEqual(expected);
    }
  });
});

describe('the stdout sink when the process ends', async () => {
  const { execFileSync } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const logger = fileURLToPath(new URL('../../dist/runtime/log/logger.js', import.meta.url));
  const sinks = fileURLToPath(new URL('../../dist/runtime/log/sinks.js', import.meta.url));

  it.skipIf(!existsSync(sinks))('writes the lines still waiting in its batch (needs npm run build)', () => {
    const script = `import { Logger } from ${JSON.stringify(logger)};
import { createJsonSink } from ${JSON.stringify(sinks)};
const log = new Logger(createJsonSink());
for (let i = 0; i < 3; i++) log.request({ level: 'info', logid: 'L' + i, fn: 'hello', method: 'GET', path: '/hello', status: 200, durationMs: 1, bytes: 2, trigger: 'online', error: undefined });
process.exit(0);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(
      out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as LogRecord).logid),
    ).toEqual(['L0', 'L1', 'L2']);
  });
});

describe('the per-request objects keep one shape', async () => {
  const { execFileSync } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const runtime = fileURLToPath(new URL('../../dist/runtime/index.js', import.meta.url));

  // V8 keeps one hidden class for objects built alike; a property added later, a delete or a
  // different order gives another, and every access site that sees both slows down (fastify
  // PR #3343). GET, POST with a traceparent, a handler that sets headers, cookies, reads the
  // trace and waits, a throw, a 404 and a 405 must all leave their Exchange and service on
  // the map of the first.
  it.skipIf(!existsSync(runtime))(
    'Exchange and service: one map for every kind of request (needs npm run build)',
    () => {
      const script = `const { createApp, createHttpServer, Logger, createJsonSink } = await import(${JSON.stringify(runtime)});
const services = [];
const app = createApp({
  functions: [
    { name: 'hello', handler: async (p, s) => { services.push(s); return { hi: p.name }; } },
    { name: 'slow', handler: async (p, s) => { services.push(s); s.set('x-a', '1').setCookie('a', 'b'); void s.trace; void s.query; s.log('x'); await new Promise((r) => setTimeout(r, 5)); return 'ok'; } },
    { name: 'boom', handler: (p, s) => { services.push(s); throw new Error('x'); } },
  ],
  logger: new Logger(createJsonSink(() => {})),
});
const exchanges = [];
const finished = app.requestFinished.bind(app);
app.requestFinished = (x, status, ms) => { exchanges.push(x); finished(x, status, ms); };
const server = createHttpServer(app);
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = 'http://127.0.0.1:' + server.address().port;
const json = { 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
for (const [path, init] of [['/hello?name=a', {}], ['/hello', { method: 'POST', body: '{"name":"b"}', headers: json }], ['/slow', {}], ['/boom', {}], ['/nope', {}], ['/hello', { method: 'PUT' }], ['/hello?name=c', {}]])
  await fetch(base + path, init).then((r) => r.text());
server.close();
const same = (list) => list.every((o) => %HaveSameMap(o, list[0]));
console.log(JSON.stringify({ exchanges: exchanges.length, exchangesSame: same(exchanges), services: services.length, servicesSame: same(services) }));`;
      const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
        exchanges: 7,
        exchangesSame: true,
        services: 5,
        servicesSame: true,
      });
    },
  );
});

describe('node:http is taken with process.getBuiltinModule', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const runtime = fileURLToPath(new URL('../../runtime/', import.meta.url));

  // On node 24 the ESM namespace of node:http reads its WebSocket, CloseEvent and MessageEvent
  // getters, which load undici, the web streams and node:crypto: 135 modules instead of 72 for
  // the hello bundle, 76 → 47 ms of CPU to start (issue 33). Types may still be imported.
  it('no file of runtime/ imports a value from node:http or node:https', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const match of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'node:https?'/gms))
            offenders.push(`${path.slice(runtime.length)}: ${match[0].split('\n')[0]}`);
        }
      }
    };
    walk(runtime);
    expect(offenders).toEqual([]);
  });
});
