/**
 * `openApiInvoke({ url, querys })`: the platform's templates pass query parameters beside the
 * URL (the default template's antidirt does), so the stand-in takes them, in its types and on
 * the wire.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OpenApiInvoker, withQuerys } from '../../../src/platform/sdk/open-api.js';
import { readSdkOptions } from '../../../src/platform/sdk/sdk-options.js';

describe('withQuerys', () => {
  it.each([
    ['/api/x', undefined, '/api/x'],
    ['/api/x', {}, '/api/x'],
    ['/api/x', { a: 1, b: 'two words' }, '/api/x?a=1&b=two%20words'],
    ['/api/x?a=1', { b: true, c: undefined, d: null }, '/api/x?a=1&b=true'],
  ] as const)('%s with %j is %s', (url, querys, expected) => {
    expect(withQuerys(url, querys as Record<string, unknown> | undefined)).toBe(expected);
  });
});

it('sends the querys to the OpenAPI target', async () => {
  const server = createServer((req, res) => res.end(JSON.stringify({ url: req.url, method: req.method })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await new OpenApiInvoker().invoke(readSdkOptions({ CLOUDFN_SDK_OPENAPI_URL: base }), {
      url: 'http://developer.toutiao.com/api/v2/tags/text/antidirt',
      method: 'post',
      querys: { scene: 'chat' },
      data: { tasks: [{ content: 'hi' }] },
    });
    expect(answer).toEqual({ url: '/api/v2/tags/text/antidirt?scene=chat', method: 'POST' });
  } finally {
    server.close();
  }
});
