/**
 * State survives a restart: videos, jobs, runs, tokens, play counts and link validity; an
 * upload cut short by the shutdown runs again; `reset` empties everything but the key pair.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMediaClient } from '../../src/media/index.js';
import { post, startPlatform, tempDir, tokenFor, until } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let sourceUrl = '';
let hangingUrl = '';
let closeSources = async () => {};
let hangingArrived = () => {};
const hanging = new Promise<void>((resolve) => (hangingArrived = resolve));
const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(3000, 3)]);

beforeAll(async () => {
  tmp = tempDir();
  writeFileSync(join(tmp.dir, 'a.mp4'), bytes);
  let hung = false;
  const server = createServer((req, res) => {
    // The first request for /slow.mp4 never gets an answer: the emulator is closed meanwhile.
    if (req.url === '/slow.mp4' && !hung) {
      hung = true;
      hangingArrived();
      return;
    }
    res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sourceUrl = `${base}/a.mp4`;
  hangingUrl = `${base}/slow.mp4`;
  closeSources = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
});
afterAll(async () => {
  await closeSources();
  tmp.remove();
});

test('a restart keeps videos, runs, tokens, plays and links, and resumes unfinished uploads', async () => {
  const dataDir = join(tmp.dir, 'data');
  const first = (await startPlatform(dataDir, { ffmpeg: false })).platform;
  const token = await tokenFor(first.url, 'tt-restart');
  const media = (url: string) => createMediaClient({ baseUrl: url, accessToken: token, env: {}, retries: 0 });
  const [uploaded] = await media(first.url).uploadAndWait([{ source_url: sourceUrl, file_name: 'kept' }], {
    pollIntervalMs: 20,
  });
  if (!uploaded?.ok) throw new Error('upload failed');
  const run = await media(first.url).transcodeAndWait(uploaded.vid, '3', { pollIntervalMs: 20 });
  const link = (await media(first.url).getVideoByVid({ vid: uploaded.vid })).data![1]!;
  expect(link.is_original).toBe(true);
  expect((await fetch(link.main_play_url)).status).toBe(200);
  const pending = await media(first.url).uploadVideoByUrls({
    url_sets: [{ source_url: hangingUrl, file_name: 'interrupted' }],
  });
  const pendingJob = pending.data!.url_jobs![0]!.job_id;
  // Close only once the download is under way, so the restart must really resume it.
  await hanging;
  expect(first.context.store.state.jobs[pendingJob]?.state).toBe('process');
  await first.close();
  expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

  const second = (await startPlatform(dataDir, { ffmpeg: false })).platform;
  try {
    const client = media(second.url);
    const list = await client.getVideoList({ page_size: 20, page_number: 0 });
    expect(list.data?.map((v) => [v.vid, v.video_name, v.trans_code_status])).toEqual([[uploaded.vid, 'kept', 4]]);
    expect(await client.getWorkFlowExecution({ run_id: run.run_id })).toMatchObject({ run_status: 10 });
    // The link was signed before the restart; only the port of its host changed.
    const again = await fetch(second.url + new URL(link.main_play_url).pathname, { headers: { range: 'bytes=0-9' } });
    expect(again.status).toBe(206);
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    const stats = await client.describeVodPlayedStaticData({
      env_id: 'e',
      vid_list: [uploaded.vid],
      order_type: 1,
      start_time: now - 600,
      end_time: now + 60,
    });
    expect(stats.play_static_infos[0]).toMatchObject({ play_count: 2, traffic: bytes.length + 10 });
    const resumed = await until(async () => {
      const info = await client.getUploadJobInfo({ job_ids: [pendingJob] });
      const state = info.data?.video_infos?.[0]?.state;
      return state === 'success' || state === 'fail' ? info : undefined;
    });
    expect(resumed.data?.video_infos?.[0]).toMatchObject({ state: 'success', source_info: { size: bytes.length } });
  } finally {
    await second.close();
  }

  const publicKey = second.publicKeyPem;
  const reset = (await startPlatform(dataDir, { ffmpeg: false, reset: true })).platform;
  try {
    expect(reset.publicKeyPem).toBe(publicKey);
    const refused = await post(
      `${reset.url}/api/cloud_voc/get_video_list`,
      { page_size: 1, page_number: 0 },
      { 'access-token': token },
    );
    expect(refused.json).toMatchObject({ err_no: 28001003 });
    const fresh = await tokenFor(reset.url, 'tt-restart');
    expect(
      (
        await post(
          `${reset.url}/api/cloud_voc/get_video_list`,
          { page_size: 1, page_number: 0 },
          { 'access-token': fresh },
        )
      ).json,
    ).toMatchObject({ total_num: 0 });
    expect(existsSync(join(dataDir, 'media', uploaded.vid))).toBe(false);
  } finally {
    await reset.close();
  }
});
