/**
 * The anchor a dev server's live-data pushes name (`x-anchor-openid`): the dev user's room's
 * anchor (`devUser.anchorOpenid`, the X-Anchor-OpenID its calls carry) when it has one, so
 * start_game's getContext() and live_data_callback's header agree; else the dev user's openid;
 * `liveData.anchorOpenid` over both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { type DevServer, startDevServer } from '../../src/dev/index.js';

const roots: string[] = [];
const servers: DevServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The anchor of one push to room 7001, with this config. */
async function anchorOf(config: object): Promise<{ pushed: string; rooms: string; room: string }> {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-live-anchor-'));
  roots.push(root);
  writeFileSync(
    join(root, 'live_data_callback.mjs'),
    `export default (params, service) => ({ anchor: service.headers['x-anchor-openid'] });\n`,
  );
  writeFileSync(
    join(root, 'start_game.mjs'),
    `export default (params, service) => ({ anchor: service.headers['x-anchor-openid'] ?? null });\n`,
  );
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ functionsDir: '.', ...config }));
  const dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
  servers.push(dev);
  const room = (await (await fetch(`${dev.url}/start_game`, { method: 'POST', body: '{}' })).json()) as {
    anchor: string;
  };
  const task = { roomid: '7001', appid: 'tt-dev-app', msg_type: 'live_comment' };
  await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/start`, { method: 'POST', body: JSON.stringify(task) });
  const sent = (await (
    await fetch(`${dev.url}/_cloudfn/live/7001/live_comment`, { method: 'POST', body: '{"content":"hi"}' })
  ).json()) as { status: number; body: string };
  expect(sent.status).toBe(200);
  const rooms = (await (await fetch(`${dev.url}/_cloudfn/live/rooms`)).json()) as { anchor: string };
  return { pushed: (JSON.parse(sent.body) as { anchor: string }).anchor, rooms: rooms.anchor, room: room.anchor };
}

describe('the anchor of the live-data pushes under cloudfn dev', () => {
  const liveData = { path: '/live_data_callback' };

  it('is the dev user’s room’s anchor, the one start_game reads', async () => {
    const got = await anchorOf({ liveData, devUser: { openid: 'ann', roomid: '7001', anchorOpenid: 'anchor-ann' } });
    expect(got).toEqual({ pushed: 'anchor-ann', rooms: 'anchor-ann', room: 'anchor-ann' });
  });

  it('is the dev user’s openid when it has no room', async () => {
    const got = await anchorOf({ liveData, devUser: { openid: 'ann' } });
    expect(got).toEqual({ pushed: 'ann', rooms: 'ann', room: null });
  });

  it('is liveData.anchorOpenid when set', async () => {
    const got = await anchorOf({
      liveData: { ...liveData, anchorOpenid: 'anchor-1' },
      devUser: { openid: 'ann', anchorOpenid: 'anchor-ann' },
    });
    expect(got.pushed).toBe('anchor-1');
  });
});
