/**
 * A live-room game played end to end under `cloudfn dev` (issue 29's "done means"), with the
 * fixture's functions (test/fixtures/live-room, written after the platform template's
 * behaviour): the anchor's game client is a real WebSocket (the `ws` package) connected through
 * `/__dycloud__/ws/connect/` to websocket_callback; start_game, called as the anchor with the
 * room's headers, starts the four data tasks through the SDK stand-in's openApiInvoke; comments
 * and gifts sent from the console page (headless chromium) and over HTTP reach
 * live_data_callback, which pushes each batch on through `/ws/live_interaction/push_data`, and
 * each message's content arrives at the anchor's socket; finish_game stops the tasks. It runs
 * the built package (dist/), as users get it. Every wait is on an event, with generous bounds.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync, mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemorySink } from '../../runtime/log/sinks.js';
import type { DevServer, startDevServer as StartDevServer } from '../../src/dev/index.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const ROOT = fileURLToPath(new URL('../fixtures/live-room', import.meta.url));
const ROOMID = '7001'; // the console's Live room panel's default room
const ANCHOR = 'anchor-1'; // liveData.anchorOpenid of the fixture
/** What the gateway sends on a call from the anchor's game client in the room. */
const ROOM = { 'x-tt-openid': ANCHOR, 'x-tt-appid': 'tt-live-app', 'x-room-id': ROOMID, 'x-anchor-openid': ANCHOR };
const TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'];
const WAIT = 15_000;

/** One push as the anchor's client gets it: the template's `{ msg_id, msg_type, data }`. */
interface Pushed {
  msg_id: string;
  msg_type: string;
  messages: Record<string, unknown>[];
}

/** The anchor's socket, with every frame kept, and a wait for the first that matches. */
class Anchor {
  readonly frames: Pushed[] = [];
  private waiters: { match: (p: Pushed) => boolean; done: (p: Pushed) => void }[] = [];
  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const raw = JSON.parse(data.toString('utf8')) as { msg_id: string; msg_type: string; data: string };
      const pushed = { msg_id: raw.msg_id, msg_type: raw.msg_type, messages: JSON.parse(raw.data) as never };
      this.frames.push(pushed);
      this.waiters = this.waiters.filter((w) => !(w.match(pushed) && (w.done(pushed), true)));
    });
  }
  /** The first push (kept or coming) with a message that has these fields. */
  next(type: string, fields: Record<string, unknown>): Promise<Pushed> {
    const match = (p: Pushed): boolean =>
      p.msg_type === type &&
      p.messages.some((m) => Object.entries(fields).every(([k, v]) => JSON.stringify(m[k]) === JSON.stringify(v)));
    const kept = this.frames.find(match);
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${type} push with ${JSON.stringify(fields)} in ${WAIT} ms`)),
        WAIT,
      );
      this.waiters.push({ match, done: (p) => (clearTimeout(timer), resolve(p)) });
    });
  }
}

let dev: DevServer;
let anchor: Anchor;
let browser: Browser | undefined;
const sink = createMemorySink();

function logged(fn: string, event: string): boolean {
  return sink.records.some((r) => r['function'] === fn && JSON.stringify(r).includes(`"event":"${event}"`));
}

async function call(fn: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${dev.url}/${fn}`, { method: 'POST', headers: ROOM, body: '{}' });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function taskStatus(type: string): Promise<number> {
  const q = new URLSearchParams({ roomid: ROOMID, appid: 'tt-live-app', msg_type: type });
  const answer = (await (await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/get?${q}`)).json()) as {
    data: { status: number };
  };
  return answer.data.status;
}

async function push(type: string, body: unknown): Promise<number> {
  const response = await fetch(`${dev.url}/_cloudfn/live/${ROOMID}/${type}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
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
}, 120_000);
afterAll(async () => {
  anchor?.socket.terminate();
  await browser?.close();
  await dev?.close();
});

describe('a live-room game, end to end under cloudfn dev', () => {
  it('connects the anchor’s game client to websocket_callback through the gateway', async () => {
    const socket = new WebSocket(`${dev.url.replace(/^http/, 'ws')}/__dycloud__/ws/connect/`, {
      headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', 'X-TT-OPENID': ANCHOR },
    });
    anchor = new Anchor(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    });
    expect(logged('websocket_callback', 'connect')).toBe(true);
  });

  it('start_game, called as the anchor from the room, starts the four tasks', async () => {
    const game = await call('start_game');
    expect(game).toMatchObject({ room: ROOMID, anchor: ANCHOR, failed: {} });
    expect(Object.keys(game['started'] as object).sort()).toEqual([...TYPES].sort());
    for (const type of TYPES) expect(await taskStatus(type)).toBe(3);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'a comment and a gift sent from the console page reach the anchor',
    async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      const page: Page = await browser.newPage();
      page.setDefaultTimeout(WAIT);
      await page.goto(dev.consoleUrl);
      await page.waitForSelector('body[data-ready="true"]');
      // The panel shows the tasks start_game started, in the panel's default room.
      await expect.poll(() => page.locator('#live [data-task]').count(), { timeout: WAIT }).toBe(4);
      await page.fill('#live input[name="content"]', 'join red from the console');
      await page.click('#live button.live-comment');
      const comment = await anchor.next('live_comment', { content: 'join red from the console' });
      expect(comment.msg_id).toBe(comment.messages[0]!['msg_id']);
      await page.fill('#live input[name="gift"]', 'console-rose');
      await page.click('#live button.live-gift');
      await anchor.next('live_gift', { sec_gift_id: 'console-rose' });
      await expect
        .poll(() => page.locator('#live .live-result').textContent(), { timeout: WAIT })
        .toMatch(/^live_gift: answered 200/);
    },
    60_000,
  );

  it('messages of every type sent over HTTP reach the anchor, each with its content', async () => {
    expect(await push('live_comment', [{ content: 'first' }, { content: '第二', nickname: '观众' }])).toBe(200);
    const batch = await anchor.next('live_comment', { content: 'first' });
    expect(batch.messages.map((m) => m['content'])).toEqual(['first', '第二']);
    expect(batch.messages[1]).toMatchObject({ nickname: '观众' });
    const sent: [string, Record<string, unknown>][] = [
      ['live_gift', { sec_gift_id: 'heart', gift_num: 5, gift_value: 50, sec_openid: 'bo' }],
      ['live_like', { like_num: 12, sec_openid: 'cy' }],
      ['live_fansclub', { fansclub_reason_type: 1, fansclub_level: 3, sec_openid: 'di' }],
    ];
    for (const [type, message] of sent) {
      expect(await push(type, message)).toBe(200);
      const got = await anchor.next(type, message);
      expect(got.messages).toHaveLength(1);
    }
    // Every push went to the anchor's one connection, none elsewhere.
    expect(new Set(anchor.frames.map((f) => f.msg_id)).size).toBe(anchor.frames.length);
  });

  it('finish_game stops the tasks, after which the room pushes nothing', async () => {
    expect(await call('finish_game')).toEqual({ room: ROOMID, stopped: TYPES });
    for (const type of TYPES) expect(await taskStatus(type)).toBe(2);
    const before = anchor.frames.length;
    expect(await push('live_comment', { content: 'too late' })).toBe(409);
    expect(anchor.frames).toHaveLength(before);
  });

  it('the anchor’s leaving reaches websocket_callback as a disconnect', async () => {
    anchor.socket.close(1000, 'game over');
    await expect.poll(() => logged('websocket_callback', 'disconnect'), { timeout: WAIT }).toBe(true);
  });
});
