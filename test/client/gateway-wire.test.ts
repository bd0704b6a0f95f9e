/**
 * How `createCloud` tells the gateway's envelope from a function's answer (gateway-wire.ts): a
 * 200 with a non-zero `X-Status-Code`; the message from the body, else the base64 header (which
 * carries what a header cannot, such as Chinese text), else the plain header.
 */
import { describe, expect, it } from 'vitest';
import { gatewayFailure } from '../../src/client/gateway-wire.js';

describe('gatewayFailure', () => {
  it("reads the body's status_code, status_message and logid", () => {
    expect(
      gatewayFailure(
        200,
        { 'x-status-code': '14010' },
        { status_code: 14010, status_message: 'request qps limited', logid: 'L1' },
      ),
    ).toEqual({ status_code: 14010, status_message: 'request qps limited', logid: 'L1' });
  });

  it('reads the headers alone (the custom-domain form), the message from its base64 form', () => {
    const message = '未找到开发者后端服务';
    expect(
      gatewayFailure(
        200,
        {
          'x-status-code': '13005',
          'x-status-message': '?',
          'x-status-message-base64': Buffer.from(message).toString('base64'),
          'x-tt-logid': 'L2',
        },
        '',
      ),
    ).toEqual({ status_code: 13005, status_message: message, logid: 'L2' });
  });

  it("is no failure for a function's own answer: no header, a zero code, or another status", () => {
    expect(gatewayFailure(200, {}, { status_code: 13005, status_message: 'mine' })).toBeUndefined();
    expect(gatewayFailure(200, { 'x-status-code': '0' }, {})).toBeUndefined();
    expect(gatewayFailure(500, { 'x-status-code': '13005' }, {})).toBeUndefined();
  });
});
