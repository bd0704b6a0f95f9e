/**
 * The dev user of issue 30: its appid is the emulator's dev app, and it can stand in a live
 * room (`roomid`, `anchorOpenid`, `avatarUrl`, `nickname`), sent as the gateway's headers and
 * read back by the SDK stand-in's getContext(); a request's own room wins over the dev user's.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { resolveDevUser } from '../../src/platform/gateway/dev-user.js';
import { callerHeaders } from '../../runtime/request/caller.js';
import { devUserHeaders } from '../../src/platform/gateway/dev-user.js';
import { DEV_CLIENT_KEY } from '../../src/platform/index.js';
import { readRequestContext } from '../../src/platform/sdk/context.js';

function request(headers: Record<string, string>): IncomingMessage {
  return { headers: { ...headers } } as unknown as IncomingMessage;
}

describe('the dev user', () => {
  it('names the emulator’s dev app by default', () => {
    expect(resolveDevUser({}).appid).toBe(DEV_CLIENT_KEY);
  });

  it('takes a live room from the config and the environment', () => {
    const user = resolveDevUser({
      env: { CLOUDFN_DEV_ROOMID: '7000000001' },
      config: { devUser: { roomid: '7000000000', anchorOpenid: 'anchor-ann', nickname: '主播安' } },
    });
    expect(user).toMatchObject({ roomid: '7000000001', anchorOpenid: 'anchor-ann', nickname: '主播安' });
    expect(resolveDevUser({})).not.toHaveProperty('roomid');
    expect(() => resolveDevUser({ config: { devUser: { roomid: 'r\u00e9' } } })).toThrow(
      /devUser\.roomid is invalid: must be a non-empty string of printable ASCII/,
    );
  });

  it('sends the room as the gateway does, and the stand-in reads it back', () => {
    const headers = callerHeaders({
      openid: 'ann',
      roomid: '7000000000',
      anchorOpenid: 'anchor-ann',
      avatarUrl: 'https://example.com/a.png',
      nickname: '主播安',
    });
    expect(headers).toMatchObject({
      'x-room-id': '7000000000',
      'x-anchor-openid': 'anchor-ann',
      'x-avatar-url': 'https://example.com/a.png',
      'x-nick-name': encodeURIComponent('主播安'),
    });
    expect(readRequestContext({ headers })).toMatchObject({
      openId: 'ann',
      roomId: '7000000000',
      anchorOpenId: 'anchor-ann',
      nickName: '主播安',
    });
  });

  it('adds its room to a request without one, and keeps a request’s own', () => {
    const hook = devUserHeaders(
      resolveDevUser({ config: { devUser: { roomid: 'dev-room', anchorOpenid: 'dev-anchor' } } }),
    );
    const bare = request({});
    hook(bare);
    expect(bare.headers).toMatchObject({
      'x-tt-openid': 'dev-openid',
      'x-room-id': 'dev-room',
      'x-anchor-openid': 'dev-anchor',
    });
    const own = request({ 'x-room-id': 'console-room' });
    hook(own);
    expect(own.headers).toMatchObject({
      'x-tt-openid': 'dev-openid',
      'x-room-id': 'console-room',
      'x-anchor-openid': 'dev-anchor',
    });
  });
});
