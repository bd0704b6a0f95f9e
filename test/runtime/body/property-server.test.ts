/**
 * Random bytes sent as JSON, urlencoded or multipart to a real server never crash it and
 * always get a 2xx or a 4xx with a logid.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functions, routes } from '../helpers/cases.js';
import { socketTransport, type Transport } from '../helpers/transport.js';

let transport: Transport;
beforeAll(async () => {
  transport = await socketTransport(functions, routes);
});
afterAll(() => transport.close());

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=XyZ',
  'multipart/form-data; boundary="a b"',
  'multipart/form-data',
  'text/plain; charset=utf-8',
);

const bodies = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 512 }).map((text) => Buffer.from(text)),
  fc
    .array(
      fc.constantFrom(
        '--XyZ\r\n',
        'Content-Disposition: form-data; name="a"',
        '; filename="f"',
        '\r\n\r\n',
        'value',
        '--XyZ--',
        '%',
        '&',
        '=',
        '{',
        '"__proto__"',
        ':',
        '}',
      ),
      { maxLength: 30 },
    )
    .map((parts) => Buffer.from(parts.join(''))),
);

it('never crashes on random bodies and always answers 2xx or 4xx', async () => {
  await fc.assert(
    fc.asyncProperty(contentTypes, bodies, async (contentType, body) => {
      const answer = await transport.send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': contentType },
        body,
      });
      expect(answer.status >= 200 && answer.status < 500).toBe(true);
      expect(answer.headers['x-platform-logid']).toBeTypeOf('string');
    }),
    { numRuns: 300 },
  );
  // Still serving, and no prototype was touched.
  expect((await transport.send({ path: '/echo?ok=1' })).status).toBe(200);
  expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
});
