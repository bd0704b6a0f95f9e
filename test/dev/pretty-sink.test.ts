import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../runtime/log/record.js';
import { createPrettySink, formatRecord, shouldColor } from '../../src/dev/index.js';

const request: LogRecord = {
  level: 'info',
  time: 0,
  logid: '0193a1b2c3d4e5f6a7000001',
  function: 'hello',
  msg: 'POST /hello 200 3.1 ms 512 B',
  method: 'POST',
  path: '/hello',
  status: 200,
  durationMs: 3.1,
  bytes: 512,
  trigger: 'ide_debug',
};

describe('the pretty sink', () => {
  it('prints the request line as POST /hello 200 3.1 ms 512 B logid=…', () => {
    expect(formatRecord(request, false)).toBe('POST /hello 200 3.1 ms 512 B logid=0193a1b2c3d4e5f6a7000001');
    expect(
      formatRecord(
        {
          ...request,
          trigger: 'console_debug',
          status: 400,
          error: 'CLOUDFN_BAD_JSON: the body is not valid JSON\nmore',
        },
        false,
      ),
    ).toBe(
      'POST /hello 400 3.1 ms 512 B logid=0193a1b2c3d4e5f6a7000001 from console CLOUDFN_BAD_JSON: the body is not valid JSON',
    );
  });

  it('prints function lines with the function, level, message, fields and logid', () => {
    expect(formatRecord({ level: 'warn', time: 0, logid: 'L1', function: 'hello', msg: 'slow query' }, false)).toBe(
      'hello warn  slow query logid=L1',
    );
    expect(
      formatRecord({ level: 'info', time: 0, logid: 'L1', function: 'hello', user: 'ann', n: 2, tags: ['a'] }, false),
    ).toBe("hello info  user=ann n=2 tags=[ 'a' ] logid=L1");
    const crash = formatRecord(
      {
        level: 'error',
        time: 0,
        logid: 'L2',
        function: 'crash',
        msg: 'the function failed: boom',
        stack: 'Error: boom\n    at crash (functions/crash.ts:7:9)',
      },
      false,
    );
    expect(crash).toBe(
      'crash error the function failed: boom logid=L2\n  Error: boom\n      at crash (functions/crash.ts:7:9)',
    );
    expect(
      formatRecord(
        { level: 'info', time: 0, logid: '', function: 'cloudfn', msg: 'reloaded hello in 9 ms', event: 'reloaded' },
        false,
      ),
    ).toBe('cloudfn reloaded hello in 9 ms');
  });

  it('colours only when asked', () => {
    const lines: string[] = [];
    createPrettySink({ color: true, write: (text) => lines.push(text) }).write(request);
    createPrettySink({ color: false, write: (text) => lines.push(text) }).write(request);
    expect(lines[0]).toContain('\x1b[32m200\x1b[39m');
    expect(lines[1]).toBe('POST /hello 200 3.1 ms 512 B logid=0193a1b2c3d4e5f6a7000001\n');
  });

  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true],
    [true, { TERM: 'dumb' }, false],
    [false, { FORCE_COLOR: '1' }, true],
    [true, { FORCE_COLOR: '0' }, false],
    [true, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
  ])('isTTY %s with %j colours: %s', (isTTY, env, expected) => {
    expect(shouldColor({ isTTY }, env)).toBe(expected);
  });
});
