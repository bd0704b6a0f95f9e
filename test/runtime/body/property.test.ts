import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CloudfnError } from '../../../runtime/errors.js';
import { parseBody } from '../../../runtime/body/parse-body.js';
import { parseQuery } from '../../../runtime/body/query.js';
import { findJsonError } from '../../../runtime/body/json-error.js';
import { jsonErrorLocator, poisonWalk } from '../../../runtime/body/json.js';
import type { Limits } from '../../../runtime/types.js';

const limits: Limits = {
  maxBodySize: 1 << 20,
  maxFileSize: 64,
  maxFiles: 3,
  maxFields: 5,
  maxParts: 6,
  maxFieldSize: 32,
  maxPartHeaderPairs: 4,
  maxParams: 1000,
};
const BOUNDARY = 'b0undary';
const types = [
  'application/json',
  'application/json; charset=gbk',
  'application/ld+json; charset=utf-16le',
  'application/x-www-form-urlencoded',
  'text/plain',
  'text/plain; charset=shift_jis',
  `multipart/form-data; boundary=${BOUNDARY}`,
  'multipart/form-data',
];

/** Parses, and says what came out: a value, or the status of a CloudfnError. Anything else fails. */
async function outcome(type: string, body: Buffer, protoAction: 'error' | 'remove'): Promise<number> {
  try {
    await parseBody(type, body, limits, { protoAction });
    return 200;
  } catch (error) {
    if (!(error instanceof CloudfnError)) throw error;
    expect([400, 413, 415]).toContain(error.status);
    return error.status;
  }
}

/** Bytes that look like multipart: pieces of a real body mixed with random bytes. */
const multipartish = fc
  .array(
    fc.oneof(
      fc.constant(`--${BOUNDARY}\r\n`),
      fc.constant(`\r\n--${BOUNDARY}`),
      fc.constant(`--${BOUNDARY}--`),
      fc.constant('Content-Disposition: form-data; name="a"\r\n'),
      fc.constant('Content-Disposition: form-data; name="__proto__"; filename="x.bin"\r\n'),
      fc.constant('Content-Type: application/octet-stream\r\n'),
      fc.constant('\r\n\r\n'),
      fc.constant('\r\n'),
      fc.string({ maxLength: 40 }),
    ),
    { maxLength: 30 },
  )
  .map((pieces) => Buffer.from(pieces.join('')));

const jsonish = fc.oneof(
  fc.json().map((text) => Buffer.from(text)),
  fc.json().map((text) => Buffer.from(text.replace(/"[a-z]"/, '"__proto__"').slice(0, Math.max(1, text.length - 1)))),
);

describe('parseBody never crashes', () => {
  // Malformed and poisoned JSON are answered synchronously once their modules have loaded.
  beforeAll(() => Promise.all([jsonErrorLocator.load(), poisonWalk.load()]));

  it('answers random bytes of any type with a value or a 400/413/415', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...types),
        fc.uint8Array({ maxLength: 300 }),
        fc.boolean(),
        async (type, bytes, remove) => {
          await outcome(type, Buffer.from(bytes), remove ? 'remove' : 'error');
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('answers near-multipart bodies with a value or a 400/413', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(multipartish, async (body) => {
        seen.add(await outcome(`multipart/form-data; boundary=${BOUNDARY}`, body, 'error'));
      }),
      { numRuns: 1500 },
    );
    // The generator reaches past the first line: some bodies parse, some hit a limit.
    expect(seen).toContain(200);
    expect(seen).toContain(400);
  });

  it('answers near-JSON bodies with a value or a 400', async () => {
    await fc.assert(
      fc.asyncProperty(jsonish, fc.boolean(), async (body, remove) => {
        const status = await outcome('application/json', body, remove ? 'remove' : 'error');
        expect([200, 400]).toContain(status);
      }),
      { numRuns: 1000 },
    );
  });

  it('locates every JSON syntax error JSON.parse finds, and finds no others', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ maxLength: 30 })), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const parsed = (() => {
          try {
            parseBody('application/json', Buffer.from(text), limits, { protoAction: 'remove' });
            return 'ok';
          } catch (error) {
            return (error as CloudfnError).message;
          }
        })();
        if (valid || text.trim() === '') expect(parsed).toBe('ok');
        else expect(parsed).toMatch(/at line \d+, column \d+ \(position \d+\)$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('puts the error where V8 does, whenever V8 says a position', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json().map((t) => t.slice(0, -1)),
          fc.json().map((t) => t.replace(',', ',,')),
          fc.string({ maxLength: 20 }),
        ),
        (text) => {
          let v8: RegExpExecArray | null = null;
          try {
            JSON.parse(text);
          } catch (error) {
            v8 = /position (\d+)/.exec((error as Error).message);
          }
          if (v8 === null || text.trim() === '') return;
          compared++;
          expect(findJsonError(text)).toBe(Number(v8[1]));
        },
      ),
      { numRuns: 1500 },
    );
    expect(compared).toBeGreaterThan(100);
  });

  it('parses any query string into strings or refuses it with 400', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '=', '&', '+', '%', '2', 'F', 'C', '3', 'é', '_'), maxLength: 40 }),
        (qs) => {
          try {
            const result = parseQuery(qs);
            for (const value of Object.values(result)) {
              for (const item of Array.isArray(value) ? value : [value]) expect(typeof item).toBe('string');
            }
          } catch (error) {
            expect(error).toBeInstanceOf(CloudfnError);
            expect((error as CloudfnError).status).toBe(400);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
