/**
 * Issue 11, row by row, over raw node:net sockets and read back by llhttp: nothing malformed
 * reaches the wire (no bytes inside another response, one framing, declared length = bytes
 * sent), and every protocol refusal is a JSON error with a logid and one log line.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import type { RuntimeOptions } from '../../../runtime/options.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec, Service } from '../../../runtime/types.js';
import { testServers } from '../helpers/test-servers.js';
import { pause, readResponses, talk } from '../helpers/wire.js';

const servers = testServers();
const start = (functions: FunctionSpec[], overrides: Partial<RuntimeOptions> = {}): Promise<RunningServer> =>
  servers.start(functions, { overrides });

const echo: FunctionSpec = {
  name: 'echo',
  handler: (params: unknown) => ({ got: Buffer.isBuffer(params) ? params.length : params }),
};

/** Streams `parts` text chunks, one every `everyMs`. */
function slowStream(parts: number, everyMs: number): FunctionSpec {
  return {
    name: 'stream',
    handler: () => {
      let sent = 0;
      return new Readable({
        read() {
          if (sent === parts) return void this.push(null);
          sent++;
          setTimeout(() => this.push(`part ${sent};`), everyMs);
        },
      });
    },
  };
}

const STREAM_BODY = Array.from({ length: 6 }, (_, i) => `part ${i + 1};`).join('');

/** The request lines logged (records with a method). */
function requestLines(): Record<string, unknown>[] {
  return servers.sink.records.filter((r) => typeof r['method'] === 'string');
}

describe('row 1: an error on a connection never lands inside a response in flight', () => {
  const bad: [string, string, number][] = [
    ['an unparsable request (400)', 'HELLO THERE\r\n\r\n', 400],
    ['a 20 KB header (431)', `GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ];
  for (const [name, request, status] of bad) {
    it(`answers ${name} after the streamed response, whole`, async () => {
      const server = await start([slowStream(6, 40), echo]);
      const seen = await talk(server.port, (s) => {
        s.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
        setTimeout(() => s.write(request), 60);
      });
      const read = readResponses(seen.bytes);
      expect(read.error).toBeUndefined();
      expect(read.truncated).toBe(false);
      expect(read.responses.map((r) => r.status)).toEqual([200, status]);
      expect(read.responses[0]!.body.toString()).toBe(STREAM_BODY);
      expect(read.responses[1]!.headers['connection']).toBe('close');
      expect(JSON.parse(read.responses[1]!.body.toString()).error.logid).toBe(
        read.responses[1]!.headers['x-platform-logid'],
      );
    });
  }

  it('answers a pipelined request whose headers time out (408) after the streamed response', async () => {
    const server = await start([slowStream(6, 100), echo], { headersTimeout: 200, requestTimeout: 200 });
    const seen = await talk(server.port, (s) => {
      s.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\n');
    });
    const read = readResponses(seen.bytes);
    expect(read.error).toBeUndefined();
    expect(read.responses[0]?.status).toBe(200);
    expect(read.responses[0]!.body.toString()).toBe(STREAM_BODY);
    expect(read.responses.slice(1).map((r) => r.status)).toEqual([408]);
  });

  it('answers a bad chunk in a pipelined body after the responses before it', async () => {
    const server = await start([slowStream(3, 40), echo]);
    const seen = await talk(server.port, (s) => {
      s.write(
        'GET /stream HTTP/1.1\r\nHost: x\r\n\r\nPOST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      );
    });
    const read = readResponses(seen.bytes);
    expect(read.error).toBeUndefined();
    expect(read.responses.map((r) => r.status)).toEqual([200, 400]);
    expect(seen.closed).toBe(true);
  });
});

describe('row 2: a declared Content-Length is the number of bytes sent', () => {
  for (const [name, declared] of [
    ['longer', 5],
    ['shorter', 50],
  ] as const) {
    it(`cuts the connection, logs it under the logid, and sends no stray byte when the stream is ${name}`, async () => {
      const server = await start([
        {
          name: 'liar',
          handler: (_p: unknown, service: Service) => (
            service.set('Content-Length', String(declared)), Readable.from([Buffer.from('twenty-one bytes here')])
          ),
        },
        echo,
      ]);
      const seen = await talk(server.port, (s) =>
        s.write('GET /liar HTTP/1.1\r\nHost: x\r\n\r\nGET /echo?next=1 HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      expect(seen.closed).toBe(true);
      const read = readResponses(seen.bytes);
      // The client sees a cut response (or none), never a whole one followed by stray bytes.
      expect(read.responses).toEqual([]);
      // Either nothing was sent or the body stops short of its length (llhttp: EOF inside a body).
      expect([undefined, 'HPE_INVALID_EOF_STATE']).toContain(read.error);
      // The request line is written when the server sees the cut, which a loaded machine may
      // delay past the client's close: wait for it rather than for a fixed time.
      const liar = () => requestLines().find((r) => r['path'] === '/liar');
      await expect.poll(() => liar()?.['error'], { timeout: 5000 }).toMatch(/CLOUDFN_BAD_RESPONSE_LENGTH/);
      const line = liar();
      expect(
        servers.sink.records.some(
          (r) => r.logid === line!.logid && r.level === 'error' && /Content-Length/.test(String(r.msg)),
        ),
      ).toBe(true);
    });
  }
});

describe('row 3: one framing per response', () => {
  it('never sends Transfer-Encoding with Content-Length', async () => {
    const server = await start([
      { name: 'te', handler: (_p: unknown, service: Service) => (service.set('Transfer-Encoding', 'chunked'), 'x') },
    ]);
    const seen = await talk(server.port, (s) => s.write('GET /te HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const read = readResponses(seen.bytes);
    expect(read.error).toBeUndefined();
    expect(read.responses).toHaveLength(1);
    expect(read.responses[0]!.body.toString()).toBe('x');
    const names = read.responses[0]!.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.includes('transfer-encoding') && names.includes('content-length')).toBe(false);
  });

  it('sends no body and no length with a 204 or 304', async () => {
    const server = await start([
      {
        name: 'empty',
        handler: (_p: unknown, service: Service) => (
          service.status(Number((service as unknown as { query: { s: string } }).query.s)), 'ignored'
        ),
      },
    ]);
    for (const status of [204, 304]) {
      const seen = await talk(server.port, (s) =>
        s.write(
          `GET /empty?s=${status} HTTP/1.1\r\nHost: x\r\n\r\nGET /empty?s=200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ),
      );
      const read = readResponses(seen.bytes);
      expect(read.error).toBeUndefined();
      expect(read.responses.map((r) => r.status)).toEqual([status, 200]);
      expect(read.responses[0]!.headers['content-length']).toBeUndefined();
    }
  });
});

describe('rows 4 and 5: refusals node would answer bare', () => {
  it('answers HTTP/1.1 without Host with a JSON 400, a logid and a log line', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) => s.write('GET /echo HTTP/1.1\r\n\r\n'));
    const [answer] = readResponses(seen.bytes).responses;
    expect(answer?.status).toBe(400);
    const logid = answer!.headers['x-platform-logid'];
    expect(JSON.parse(answer!.body.toString()).error).toMatchObject({ code: 'CLOUDFN_MISSING_HOST', logid });
    expect(
      requestLines()
        .filter((r) => r.logid === logid)
        .map((r) => r['status']),
    ).toEqual([400]);
    // HTTP/1.0 needs no Host.
    const old = await talk(server.port, (s) => s.write('GET /echo HTTP/1.0\r\n\r\n'));
    expect(readResponses(old.bytes).responses[0]?.status).toBe(200);
  });

  it('answers CONNECT 405 with Allow, a logid and a log line', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) =>
      s.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
    );
    const read = readResponses(seen.bytes);
    expect(read.responses.map((r) => r.status)).toEqual([405]);
    const answer = read.responses[0]!;
    expect(answer.headers['allow']).toBe('GET, POST');
    expect(JSON.parse(answer.body.toString()).error.code).toBe('CLOUDFN_METHOD_NOT_ALLOWED');
    await pause(20);
    expect(
      requestLines()
        .filter((r) => r.logid === answer.headers['x-platform-logid'])
        .map((r) => r['status']),
    ).toEqual([405]);
    expect(seen.closed).toBe(true);
  });
});

describe('row 6: a body that arrives too slowly', () => {
  it('is one request: one logid, one line, status 408', async () => {
    const server = await start([echo], { headersTimeout: 200, requestTimeout: 300 });
    const seen = await talk(
      server.port,
      (s) => s.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nab'),
      { waitMs: 4000 },
    );
    const [answer] = readResponses(seen.bytes).responses;
    expect(answer?.status).toBe(408);
    const logid = answer!.headers['x-platform-logid'];
    await pause(50);
    expect(requestLines().map((r) => [r.logid, r['status'], r.function])).toEqual([[logid, 408, 'echo']]);
    expect(servers.sink.records.filter((r) => r.logid !== logid && r.function !== 'cloudfn')).toEqual([]);
  });
});

describe('row 7: timeouts that contradict each other', () => {
  it('stops start-up with one options line, not node’s RangeError', async () => {
    await expect(
      serve([echo], {
        flags: { port: '0' },
        env: { CLOUDFN_REQUEST_TIMEOUT: '1000' },
        logger: new Logger(servers.sink),
        handleSignals: false,
        keepServing: false,
      }),
    ).rejects.toThrow(
      /^option requestTimeout is invalid: must be 0 \(off\) or at least headersTimeout \(20000\), got 1000; raise CLOUDFN_REQUEST_TIMEOUT or lower CLOUDFN_HEADERS_TIMEOUT$/,
    );
    await expect(start([echo], { headersTimeout: 500, requestTimeout: 100 })).rejects.toMatchObject({
      code: 'CLOUDFN_OPTIONS',
    });
    servers.forget();
  });
});

describe('row 8: a limit on parameters', () => {
  const pairs = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=v`).join('&');
  const post = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;

  it('takes 1000 pairs and answers 1001 with 413 naming the limit and where it was set', async () => {
    const server = await start([echo, { name: 'small', handler: () => 'ok', config: { maxParams: 2 } }]);
    const ok = await talk(server.port, (s) =>
      s.write(`GET /echo?${pairs(1000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(readResponses(ok.bytes).responses[0]?.status).toBe(200);
    for (const [request, message] of [
      [
        `GET /echo?${pairs(1001)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        'the query string has more than 1000 parameters, the limit set by the global option limits.maxParams (its default; set CLOUDFN_MAX_PARAMS or limits in cloudfn.config)',
      ],
      [
        post('/echo', pairs(1001)),
        'the urlencoded body has more than 1000 parameters, the limit set by the global option limits.maxParams (its default',
      ],
      [
        post('/small', pairs(3)),
        "the urlencoded body has more than 2 parameters, the limit set by the function's config.maxParams (export const config in small",
      ],
    ] as const) {
      const seen = await talk(server.port, (s) => s.write(request));
      const [answer] = readResponses(seen.bytes).responses;
      expect(answer?.status).toBe(413);
      expect(JSON.parse(answer!.body.toString()).error).toMatchObject({
        code: 'CLOUDFN_TOO_MANY_PARAMS',
        message: expect.stringContaining(message),
      });
    }
  });

  it('reads the limit from CLOUDFN_MAX_PARAMS and says so', async () => {
    const running = await servers.start([echo], { env: { CLOUDFN_MAX_PARAMS: '5' } });
    const seen = await talk(running.port, (s) =>
      s.write(`GET /echo?${pairs(6)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(readResponses(seen.bytes).responses[0]!.body.toString()).toContain(
      'more than 5 parameters, the limit set by the global option limits.maxParams (from CLOUDFN_MAX_PARAMS)',
    );
  });

  it('stops parsing at the limit: a 10 MiB body of a million pairs costs about what reading it does', async () => {
    const bytes = { name: 'bytes', handler: (params: unknown) => ({ bytes: (params as Buffer).length }) };
    const server = await start([echo, bytes]);
    const body = 'a=1&'.repeat(1_100_000).slice(0, 10 * 1024 * 1024 - 1);
    // CPU time of this process, where both the client and the server run: a turn that waits
    // for the cores (a second suite beside this one) does not count, as it did in wall time.
    const timed = async (request: Buffer, status: number): Promise<number> => {
      const started = process.cpuUsage();
      const seen = await talk(server.port, (s) => s.write(request), { waitMs: 30_000 });
      expect(readResponses(seen.bytes).responses[0]?.status).toBe(status);
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000;
    };
    // The same bytes read but not parsed (no Content-Type: params is the Buffer) are the
    // baseline, so the bound is a ratio that holds on a slow or loaded machine. Each side is the
    // fastest of five, which drops turns that a neighbour's load happened to slow.
    // Both requests are bytes made once: a string request built per turn made the client
    // allocate 4 MB on the heap in the parsed turns only, and the garbage collections that
    // followed (tens of ms in a young process, the file run alone) were counted as parsing.
    const raw = Buffer.from(
      `POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    const form = Buffer.from(post('/echo', body));
    const read: number[] = [];
    const parsed: number[] = [];
    // One untimed turn of each first: the first body loads raw-body, and the first parse compiles.
    await timed(raw, 200);
    await timed(form, 413);
    for (let turn = 0; turn < 5; turn++) {
      read.push(await timed(raw, 200));
      parsed.push(await timed(form, 413));
    }
    // Measured on Node 20 when the bound moved to CPU time, fastest of five: the read 5-7 ms,
    // stopping at the limit 10-11 ms, and parsing all the pairs (the limit lifted) 44 ms, which
    // this bound fails (it took 0.8 s before the parser was rewritten). 2026-11-29: 0.8-0.9× of
    // the read alone, and once 3.1× while two whole suites shared the two cores (a collection
    // in each parsed turn): the bound is 4×, which parsing every pair (6-8×) still fails.
    expect(Math.min(...parsed)).toBeLessThan(4 * Math.min(...read));
  }, 60_000);
});

describe('row 9: smaller protocol rows', () => {
  it('answers a chunk extension over node’s limit 413', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) =>
      s.write(
        `POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;${'e'.repeat(20_000)}\r\nhello\r\n0\r\n\r\n`,
      ),
    );
    expect(readResponses(seen.bytes).responses.map((r) => r.status)).toEqual([413]);
  });

  it('answers Expect: 100-continue with an over-limit Content-Length 413, without 100 Continue', async () => {
    const server = await start([{ ...echo, config: { maxBodySize: 100 } }]);
    const seen = await talk(server.port, (s) =>
      s.write(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n',
      ),
    );
    expect(seen.bytes.toString('latin1')).toMatch(/^HTTP\/1\.1 413 /);
    const small = await talk(server.port, (s) => {
      s.write(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: 2\r\n\r\n',
      );
      s.once('data', () => s.write('hi'));
    });
    expect(small.bytes.toString('latin1')).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('routes an absolute-form target by its path', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) =>
      s.write('GET http://example.com/echo?a=1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n'),
    );
    const [answer] = readResponses(seen.bytes).responses;
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body.toString())).toEqual({ got: { a: '1' } });
  });

  it('answers OPTIONS * 405', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) => s.write('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const [answer] = readResponses(seen.bytes).responses;
    expect(answer?.status).toBe(405);
    expect(answer!.headers['allow']).toBe('GET, POST');
  });
});

describe('row 10: percent-escapes in function names', () => {
  it('routes an escaped unreserved character like the character, and logs the decoded name', async () => {
    const server = await start([echo]);
    const seen = await talk(server.port, (s) =>
      s.write('GET /%65cho HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    expect(readResponses(seen.bytes).responses[0]?.status).toBe(200);
    await pause(20);
    expect(requestLines().map((r) => [r.function, r['path']])).toEqual([['echo', '/%65cho']]);
  });

  it.each([
    ['/videos%2Flist'],
    ['/videos%2flist'],
    ['/x/..%2Fvideos/list'],
    ['/x/%2e%2e/videos/list'],
    ['/videos/./list'],
  ])('refuses %s with 400', async (path) => {
    const server = await start([
      echo,
      { name: 'videos/list', handler: () => 'listed' },
      { name: 'x', handler: () => 'x' },
    ]);
    const seen = await talk(server.port, (s) =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    const [answer] = readResponses(seen.bytes).responses;
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body.toString()).error.code).toBe('CLOUDFN_BAD_PATH');
  });
});

describe('row 12: a 413 to a chunked upload reaches the client before the close', () => {
  it('is read by every client, none gets a bare reset', async () => {
    const server = await start([{ ...echo, config: { maxBodySize: 100 } }]);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const head = `${chunk.length.toString(16)}\r\n`;
    let missing = 0;
    const rounds = 60;
    for (let round = 0; round < rounds; round += 6) {
      const seen = await Promise.all(
        Array.from({ length: 6 }, () =>
          talk(
            server.port,
            (s) => {
              s.write(
                'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n',
              );
              // Keep sending, as a real upload does, while the server answers.
              const send = (): void => {
                if (s.destroyed) return;
                for (let i = 0; i < 8; i++) s.write(head), s.write(chunk), s.write('\r\n');
                setImmediate(send);
              };
              send();
            },
            { waitMs: 5000 },
          ),
        ),
      );
      missing += seen.filter((c) => !c.bytes.toString('latin1').startsWith('HTTP/1.1 413 ')).length;
    }
    expect(missing).toBe(0);
  }, 60_000);
});
