/**
 * Started live-data tasks survive a dev restart (issue 41), kept with the local platform's
 * state (`.cloudfn/platform/live/rooms.json` under the root): on the platform a task runs until
 * it is stopped, so a room started before a restart still gets its pushes after it, with the
 * anchor its start named; a stopped task stays stopped; a file that cannot be read is set aside.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer } from '../../src/dev/index.js';

const root = mkdtempSync(join(tmpdir(), 'cloudfn-live-restart-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(
  join(root, 'live_data_callback.mjs'),
  `export default (params, service) => ({ anchor: service.headers['x-anchor-openid'], n: params.length });\n`,
);
writeFileSync(
  join(root, 'cloudfn.config.json'),
  JSON.stringify({ functionsDir: '.', liveData: { path: '/live_data_callback' } }),
);

async function task(url: string, action: string, msgType: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/_cloudfn/live/api/live_data/task/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ roomid: '7001', appid: 'tt-dev-app', msg_type: msgType }),
  });
  return (await res.json()) as { err_no: number; data: { task_id?: string } };
}

async function comment(url: string, msgType = 'live_comment') {
  const res = await fetch(`${url}/_cloudfn/live/7001/${msgType}`, { method: 'POST', body: '{}' });
  return { status: res.status, json: (await res.json()) as { body?: string } };
}

describe('live rooms across a dev restart', () => {
  it('keep started tasks running and the anchor their start named; stopped ones stay stopped', async () => {
    const first = await startDevServer({ root, port: 0, sink: createMemorySink() });
    let taskId: string | undefined;
    try {
      const caller = { 'x-cloudfn-room-id': '7001', 'x-cloudfn-anchor-openid': 'anchor-kept' };
      taskId = (await task(first.url, 'start', 'live_comment', caller)).data.task_id;
      await task(first.url, 'start', 'live_gift');
      await task(first.url, 'stop', 'live_gift');
    } finally {
      await first.close();
    }
    expect(existsSync(join(root, '.cloudfn/platform/live/rooms.json'))).toBe(true);
    const second = await startDevServer({ root, port: 0, sink: createMemorySink() });
    try {
      const sent = await comment(second.url);
      expect(sent.status).toBe(200);
      expect(JSON.parse(sent.json.body!)).toEqual({ anchor: 'anchor-kept', n: 1 });
      expect((await comment(second.url, 'live_gift')).status).toBe(409);
      // The same task, as a second start of a running task answers.
      expect((await task(second.url, 'start', 'live_comment')).data.task_id).toBe(taskId);
    } finally {
      await second.close();
    }
  });

  it('set aside a file that cannot be read, and start empty', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'cloudfn-live-bad-'));
    try {
      writeFileSync(join(bad, 'live_data_callback.mjs'), 'export default () => ({ ok: true });\n');
      writeFileSync(
        join(bad, 'cloudfn.config.json'),
        JSON.stringify({ functionsDir: '.', liveData: { path: '/live_data_callback' } }),
      );
      mkdirSync(join(bad, '.cloudfn/platform/live'), { recursive: true });
      writeFileSync(join(bad, '.cloudfn/platform/live/rooms.json'), '{ not json');
      const dev = await startDevServer({ root: bad, port: 0, sink: createMemorySink() });
      try {
        expect((await comment(dev.url)).status).toBe(409);
        expect(existsSync(join(bad, '.cloudfn/platform/live/rooms.json.bad'))).toBe(true);
      } finally {
        await dev.close();
      }
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
