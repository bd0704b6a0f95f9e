/**
 * A live-room game under `cloudfn dev`, with the fixture's functions (test/fixtures/live-room,
 * written after the platform template's behaviour): start_game starts the room's four data
 * tasks through openApiInvoke of webcast.bytedance.com, answered by the simulator; messages of
 * every type reach live_data_callback with the platform's headers (room, type, anchor, a valid
 * signature, the adopted x-tt-logid) and whole payloads; a room without a task gets nothing;
 * scripted traffic, finish_game and the `cloudfn live` CLI. It runs the built package (dist/),
 * as users get it: the SDK stand-in is loaded by Node itself there.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import type { DevServer, startDevServer as StartDevServer } from '../../src/dev/index.js';
import { LIVE_FIELDS, LIVE_MSG_TYPES } from '../../src/platform/live/messages.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../fixtures/live-room', import.meta.url));
const ROOM = {
  'x-room-id': '7001',
  'x-anchor-openid': 'anchor-1',
  'x-tt-appid': 'tt-live-app',
  'x-tt-openid': 'anchor-1',
};

interface Received {
  received: number;
  msg_type: string;
  roomid: string;
  anchor: string;
  signed: boolean;
  logid: string;
  messages: Record<string, unknown>[];
}
interface PushAnswer {
  roomid: string;
  msg_type: string;
  messages: Record<string, unknown>[];
  status: number;
  logid: string;
  body: string;
}

let dev: DevServer;
const sink = createMemorySink();

async function push(
  type: string,
  body: unknown,
  room = '7001',
): Promise<{ status: number; json: PushAnswer & { error?: { code: string; message: string } } }> {
  const response = await fetch(`${dev.url}/_cloudfn/live/${room}/${type}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as never };
}

async function taskStatus(type: string): Promise<number> {
  const q = new URLSearchParams({ roomid: '7001', appid: 'tt-live-app', msg_type: type });
  const answer = (await (await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/get?${q}`)).json()) as {
    err_no: number;
    data: { status: number };
  };
  expect(answer.err_no).toBe(0);
  return answer.data.status;
}

beforeAll(async () => {
  ensureDist();
  const { startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as {
    startDevServer: typeof StartDevServer;
  };
  // The rooms' state is kept with the platform's data (issue 41): a folder of this run's own,
  // so the fixture's folder carries no tasks from one run to the next.
  process.env['CLOUDFN_PLATFORM_DATA'] = mkdtempSync(join(tmpdir(), 'cloudfn-live-data-'));
  dev = await startDevServer({ root: ROOT, port: 0, sink });
}, 60_000);
afterAll(async () => {
  await dev?.close();
});

describe('a live-room game under cloudfn dev', () => {
  it('refuses messages before start_game, and nothing reaches the function', async () => {
    const refused = await push('live_comment', { content: 'too early' });
    expect(refused.status).toBe(409);
    expect(refused.json.error!.code).toBe('PLATFORM_LIVE_NO_TASK');
    expect(refused.json.error!.message).toContain('room "7001" has no started live_comment task');
    expect(sink.records.some((r) => r['function'] === 'live_data_callback')).toBe(false);
    expect(await taskStatus('live_comment')).toBe(1);
  });

  it('start_game starts the four tasks through openApiInvoke, answered as the platform answers', async () => {
    const response = await fetch(`${dev.url}/start_game`, { method: 'POST', headers: ROOM, body: '{}' });
    expect(response.status).toBe(200);
    const game = (await response.json()) as { room: string; started: Record<string, string>; failed: object };
    expect(game.failed).toEqual({});
    expect(Object.keys(game.started)).toEqual([...LIVE_MSG_TYPES]);
    for (const id of Object.values(game.started)) expect(id).toMatch(/^\d+$/);
    for (const type of LIVE_MSG_TYPES) expect(await taskStatus(type)).toBe(3);
    // Idempotent: a second start keeps the same task ids.
    const again = (await (
      await fetch(`${dev.url}/start_game`, { method: 'POST', headers: ROOM, body: '{}' })
    ).json()) as typeof game;
    expect(again.started).toEqual(game.started);
  });

  const partials: Record<string, Record<string, unknown>> = {
    live_comment: { content: 'join red', sec_openid: 'ann', nickname: 'Ann' },
    live_gift: { sec_gift_id: 'rose', gift_num: 3, gift_value: 30 },
    live_like: { like_num: 12 },
    live_fansclub: { fansclub_reason_type: 1, fansclub_level: 5 },
  };
  it.each(LIVE_MSG_TYPES)('delivers %s with the platform headers and whole payloads', async (type) => {
    const answer = await push(type, partials[type]);
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe(200);
    const got = JSON.parse(answer.json.body) as Received;
    expect(got).toMatchObject({ received: 1, msg_type: type, roomid: '7001', anchor: 'anchor-1', signed: true });
    // The push's x-tt-logid is the callback's logid (cloudfn dev trusts the gateway).
    expect(got.logid).toBe(answer.json.logid);
    const message = got.messages[0]!;
    expect(Object.keys(message).sort()).toEqual(Object.keys(LIVE_FIELDS[type]).sort());
    expect(message).toMatchObject(partials[type]!);
    expect(message['msg_id']).toEqual(expect.any(String));
    expect(message['timestamp']).toEqual(expect.any(Number));
  });

  it('sends an array as one push, each message with its own msg_id', async () => {
    const answer = await push('live_comment', [{ content: '1' }, { content: '2' }, { content: '3' }]);
    const got = JSON.parse(answer.json.body) as Received;
    expect(got.received).toBe(3);
    const ids = got.messages.map((m) => m['msg_id']);
    expect(new Set(ids).size).toBe(3);
    const other = JSON.parse((await push('live_comment', { content: '4' })).json.body) as Received;
    expect(ids).not.toContain(other.messages[0]!['msg_id']);
  });

  it('refuses a bad message, naming the field, and an unknown type', async () => {
    const bad = await push('live_gift', { gift_num: 'three' });
    expect(bad.status).toBe(400);
    expect(bad.json.error!.message).toBe(
      'live_gift message 0: gift_num must be a whole number of 0 or more, got "three"',
    );
    const unknownField = await push('live_like', { likes: 3 });
    expect(unknownField.json.error!.message).toContain('likes is not a field of live_like');
    const type = await push('live_share', {});
    expect(type.status).toBe(400);
    expect(type.json.error!.code).toBe('PLATFORM_LIVE_BAD_TYPE');
  });

  it('runs scripted traffic at a rate, bounded', async () => {
    const response = await fetch(`${dev.url}/_cloudfn/live/7001/live_like?rate=200&count=20&wait=1`, {
      method: 'POST',
      body: JSON.stringify({ like_num: 2 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sent: 20, ok: 20, failed: 0, rate: 200, count: 20 });
    const tooFast = await fetch(`${dev.url}/_cloudfn/live/7001/live_like?rate=5000&count=1`, { method: 'POST' });
    expect(tooFast.status).toBe(400);
    expect(((await tooFast.json()) as { error: { message: string } }).error.message).toBe(
      'scripted traffic: rate must be a whole number from 1 to 1000, got "5000"',
    );
  });

  it('is what cloudfn live calls', async () => {
    const cli = `${REPO}/dist/src/cli/index.js`;
    const ok = await run(process.execPath, [
      cli,
      'live',
      '7001',
      'live_gift',
      '--gift',
      'rose',
      '--num',
      '2',
      '--user',
      'bo',
      '--url',
      dev.url,
    ]);
    expect(ok.stderr).toMatch(
      /^1 live_gift message\(s\) pushed to room 7001: the function answered 200 \(logid \S+\)\n$/,
    );
    expect(JSON.parse(ok.stdout)).toMatchObject({
      received: 1,
      messages: [{ sec_gift_id: 'rose', gift_num: 2, sec_openid: 'bo' }],
    });
    const refused = await run(process.execPath, [
      cli,
      'live',
      '8002',
      'live_comment',
      '--content',
      'x',
      '--url',
      dev.url,
    ]).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^cloudfn: room "8002" has no started live_comment task/);
    const started = await run(process.execPath, [
      cli,
      'live',
      '8002',
      'live_comment',
      '--start',
      '--content',
      'hi',
      '--url',
      dev.url,
      '--json',
    ]);
    expect(JSON.parse(started.stdout)).toMatchObject({ roomid: '8002', status: 200, messages: [{ content: 'hi' }] });
  }, 30_000);

  it('finish_game stops the tasks, after which the room gets nothing', async () => {
    const response = await fetch(`${dev.url}/finish_game`, { method: 'POST', headers: ROOM, body: '{}' });
    expect(await response.json()).toEqual({ room: '7001', stopped: [...LIVE_MSG_TYPES] });
    for (const type of LIVE_MSG_TYPES) expect(await taskStatus(type)).toBe(2);
    expect((await push('live_gift', {})).status).toBe(409);
    const rooms = (await (await fetch(`${dev.url}/_cloudfn/live/rooms`)).json()) as {
      anchor: string;
      path: string;
      tasks: { running: boolean }[];
    };
    expect(rooms).toMatchObject({ anchor: 'anchor-1', path: '/live_data_callback' });
    expect(rooms.tasks.filter((t) => t.running)).toHaveLength(1); // room 8002's, from the CLI
  });
});
