/**
 * `invokeLiveData` of `cloudfn/testing`: the fixture's live_data_callback gets messages of every
 * type in process, with the platform's headers (room, type, anchor, a signature it checks on
 * its own) and whole payloads; its logid is the push's x-tt-logid; a bad field is refused
 * before the call.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIVE_FIELDS, LIVE_MSG_TYPES } from '../../src/platform/live/messages.js';
import type { invokeLiveData as InvokeLiveData } from '../../src/testing/index.js';
import { ensureDist, REPO } from './ensure-dist.js';

const CALLBACK = fileURLToPath(new URL('../fixtures/live-room/live_data_callback.ts', import.meta.url));
let invokeLiveData: typeof InvokeLiveData;

beforeAll(async () => {
  // The fixture imports @open-dy/node-server-sdk: the built package's stand-in answers it.
  ensureDist();
  ({ invokeLiveData } = (await import(`${REPO}/dist/src/testing/index.js`)) as {
    invokeLiveData: typeof InvokeLiveData;
  });
}, 120_000);

describe('invokeLiveData', () => {
  it.each(LIVE_MSG_TYPES)('delivers %s as the platform pushes it', async (msgType) => {
    const res = await invokeLiveData<
      typeof msgType,
      { signed: boolean; anchor: string; roomid: string; msg_type: string; logid: string; messages: object[] }
    >(CALLBACK, { msgType, messages: [{}, { nickname: 'Bo' }], roomid: '42', anchorOpenid: 'anna' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ signed: true, anchor: 'anna', roomid: '42', msg_type: msgType, received: 2 });
    expect(res.json!.logid).toBe(res.logid);
    expect(res.pushHeaders).toMatchObject({ 'x-roomid': '42', 'x-msg-type': msgType, 'x-anchor-openid': 'anna' });
    expect(res.json!.messages).toEqual(res.messages);
    for (const message of res.messages)
      expect(Object.keys(message).sort()).toEqual(Object.keys(LIVE_FIELDS[msgType]).sort());
    expect(res.messages[1]).toMatchObject({ nickname: 'Bo' });
    expect(res.messages[0]!.msg_id).not.toBe(res.messages[1]!.msg_id);
  });

  it('refuses a bad field or type before calling', async () => {
    await expect(invokeLiveData(CALLBACK, { msgType: 'live_like', messages: { like_num: -1 } })).rejects.toThrow(
      'live_like message 0: like_num must be a whole number of 0 or more, got -1',
    );
    await expect(invokeLiveData(CALLBACK, { msgType: 'live_share' as never })).rejects.toThrow(
      'invokeLiveData: msgType must be live_comment, live_gift, live_like or live_fansclub, got "live_share"',
    );
  });
});
