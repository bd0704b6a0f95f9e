/**
 * The response's header list (runtime/request/response-head.ts): the common answer's list,
 * built as one literal, must be what the general path builds for the same answer, and every
 * other answer must take the general path.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../../runtime/request/exchange.js';
import { headersFor, type HeaderPlan } from '../../../runtime/request/response-head.js';

function exchange(own?: Partial<Pick<Exchange, 'headers' | 'cookies'>>): Exchange {
  return {
    headers: undefined,
    cookies: undefined,
    logid: 'L1',
    host: { options: { logidHeader: 'x-tt-logid' } },
    ...own,
  } as unknown as Exchange;
}

const common: HeaderPlan = {
  contentType: 'application/json; charset=utf-8',
  length: 17,
  handlerHeaders: true,
  close: false,
  allow: false,
};

describe('headersFor', () => {
  it('builds the common answer as the general path does (an empty header map takes that path)', () => {
    const fast = headersFor(exchange(), common);
    expect(fast).toEqual(['content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1']);
    expect(headersFor(exchange({ headers: {} }), common)).toEqual(fast);
    expect(headersFor(exchange({ headers: {} }), { ...common, handlerHeaders: false })).toEqual(fast);
  });

  it.each<[string, Partial<HeaderPlan>, Partial<Pick<Exchange, 'headers' | 'cookies'>>, unknown[]]>([
    [
      'closing',
      { close: true },
      {},
      ['content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1', 'connection', 'close'],
    ],
    [
      'a 405',
      { allow: true },
      {},
      ['content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1', 'allow', 'GET, POST'],
    ],
    [
      'a load refusal',
      { retryAfter: 2 },
      {},
      ['content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1', 'retry-after', '2'],
    ],
    ['no type', { contentType: undefined }, {}, ['content-length', 17, 'x-tt-logid', 'L1']],
    ['a stream', { length: 'stream' }, {}, ['content-type', common.contentType, 'x-tt-logid', 'L1']],
    [
      'a handler header',
      {},
      { headers: { 'x-a': ['X-A', '1'] } },
      ['X-A', '1', 'content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1'],
    ],
    [
      'a cookie',
      {},
      { cookies: ['a=1'] },
      ['set-cookie', ['a=1'], 'content-type', common.contentType, 'content-length', 17, 'x-tt-logid', 'L1'],
    ],
    [
      'the handler type',
      {},
      { headers: { 'content-type': ['Content-Type', 'text/csv'] } },
      ['Content-Type', 'text/csv', 'content-length', 17, 'x-tt-logid', 'L1'],
    ],
  ])('takes the general path for %s', (_name, plan, own, expected) => {
    expect(headersFor(exchange(own), { ...common, ...plan })).toEqual(expected);
  });
});
