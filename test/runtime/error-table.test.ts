/**
 * The shared tail of the error tables (runtime/error-table.ts): `defineErrorTable` formats a
 * row's message with the call's details and hands code, message and row to the area's class.
 */
import { describe, expect, it } from 'vitest';
import { defineErrorTable, type ErrorSpec, TableError } from '../../runtime/error-table.js';
import { createError, CloudfnError } from '../../runtime/errors.js';
import { PlatformError, platformError } from '../../src/platform/errors.js';
import { SignatureError, signError } from '../../src/sign/errors.js';

const rows = {
  DEMO_TOO_BIG: { status: 413, message: (size: number, limit: number) => `${size} bytes is over ${limit}` },
  DEMO_GONE: { status: 410, message: (what: string) => `${what} is gone` },
} satisfies Record<string, ErrorSpec>;

class DemoError extends TableError<keyof typeof rows> {
  override name = 'DemoError';
}

describe('defineErrorTable', () => {
  const table = defineErrorTable(rows, (code, message, row) => new DemoError(code, row.status, message));

  it('builds the area error from the row: code, status, formatted message', () => {
    const error = table.create('DEMO_TOO_BIG', 2048, 1024);
    expect(error).toBeInstanceOf(DemoError);
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.status, error.message]).toEqual([
      'DemoError',
      'DEMO_TOO_BIG',
      413,
      '2048 bytes is over 1024',
    ]);
  });

  it('formats a message without building an error, and exports the rows as given', () => {
    expect(table.message('DEMO_GONE', ['the video'])).toBe('the video is gone');
    expect(table.rows).toBe(rows);
  });
});

describe('the tables on it keep their classes', () => {
  it.each([
    ['runtime', () => createError('CLOUDFN_OPTIONS', 'port', 'bad'), CloudfnError, 500, true],
    ['sign', () => signError('SIGN_KEY_SIZE', 1024), SignatureError, 400, true],
    ['platform', () => platformError('PLATFORM_OPTIONS', 'port', 'bad'), PlatformError, 500, undefined],
  ])('%s', (_area, make, cls, status, expose) => {
    const error = make() as Error & { status: number; expose?: boolean };
    expect(error).toBeInstanceOf(cls);
    expect(error.status).toBe(status);
    expect(error.expose).toBe(expose);
  });

  it("keeps the emulator's err_no beside the status", () => {
    expect(platformError('PLATFORM_OPTIONS', 'port', 'bad').errNo).toBe(50002);
  });

  it('leaves the signing and emulator errors outside CloudfnError, as before', () => {
    expect(signError('SIGN_KEY_SIZE', 1024)).not.toBeInstanceOf(CloudfnError);
    expect(platformError('PLATFORM_OPTIONS', 'port', 'bad')).not.toBeInstanceOf(CloudfnError);
  });
});
