/**
 * Live-room tokens on their own (issue 41): `webcastmate/info`'s answer in the platform's shape
 * with `room_id` written bare (a 19-digit id survives only in the text), a token's 30 minutes,
 * the refusals (unknown token, no token, GET) and the 10-a-second limit per app.
 */
import { describe, expect, it } from 'vitest';
import { LiveTokens, TOKEN_TTL_MS } from '../../src/platform/live/tokens.js';

const info = { roomid: '7001', anchorOpenid: 'anchor-a', nickName: '主播A', avatarUrl: 'https://x/a.png' };
const trade = (tokens: LiveTokens, token: string, app = 'app-1') =>
  tokens.answer({ method: 'POST', headers: { 'x-token': token, 'access-token': app }, body: { token } });

describe('webcastmate/info', () => {
  it('trades a minted token for its room, in the platform’s shape', () => {
    const tokens = new LiveTokens();
    const { token } = tokens.mint(info);
    const answer = trade(tokens, token);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"room_id":7001,');
    expect(JSON.parse(answer.text)).toEqual({
      data: { info: { room_id: 7001, anchor_open_id: 'anchor-a', avatar_url: 'https://x/a.png', nick_name: '主播A' } },
      err_no: 0,
      err_msg: 'success',
      logid: answer.logid,
    });
  });

  it('writes a 19-digit room id bare: the text keeps it, JSON.parse rounds it', () => {
    const tokens = new LiveTokens();
    const roomid = '7311111111111111111';
    const { token } = tokens.mint({ ...info, roomid });
    const text = trade(tokens, token).text;
    expect(/"room_id":(\d+)/.exec(text)?.[1]).toBe(roomid);
    const parsed = JSON.parse(text) as { data: { info: { room_id: number } } };
    expect(String(parsed.data.info.room_id)).not.toBe(roomid);
  });

  it('refuses an unknown token, an expired one, none, and a GET, with err_no other than 0', () => {
    let now = 1_000_000;
    const tokens = new LiveTokens({ now: () => now });
    const { token } = tokens.mint(info);
    expect(JSON.parse(trade(tokens, 'no-such-token').text)).toMatchObject({ err_no: 40004, data: null });
    now += TOKEN_TTL_MS - 1;
    expect(JSON.parse(trade(tokens, token).text).err_no).toBe(0);
    now += 1;
    expect(JSON.parse(trade(tokens, token).text).err_no).toBe(40004);
    const none = tokens.answer({ method: 'POST', headers: {}, body: {} });
    expect([none.status, JSON.parse(none.text).err_no]).toEqual([400, 40001]);
    const get = tokens.answer({ method: 'GET', headers: { 'x-token': token }, body: undefined });
    expect([get.status, JSON.parse(get.text).err_no]).toEqual([405, 40500]);
  });

  it('takes the token from the body when the header is absent', () => {
    const tokens = new LiveTokens();
    const { token } = tokens.mint(info);
    expect(JSON.parse(tokens.answer({ method: 'POST', headers: {}, body: { token } }).text).err_no).toBe(0);
  });

  it('answers the limit past 10 requests a second per app, and again a second later', () => {
    let now = 5_000_000;
    const tokens = new LiveTokens({ now: () => now });
    const { token } = tokens.mint(info);
    const codes = Array.from({ length: 12 }, () => JSON.parse(trade(tokens, token).text).err_no as number);
    expect(codes).toEqual([...Array(10).fill(0), 40100, 40100]);
    expect(trade(tokens, token).status).toBe(429);
    // Another app has its own ten.
    expect(JSON.parse(trade(tokens, token, 'app-2').text).err_no).toBe(0);
    now += 1000;
    expect(JSON.parse(trade(tokens, token).text).err_no).toBe(0);
  });
});
