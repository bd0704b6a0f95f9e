/**
 * `cloudfn dev --platform`, what `npm run dev` runs, through the real built CLI on a copy of
 * the starter: the emulator beside the dev server, the starter's media function configured
 * from the variables, its calls signed with the dev app key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const starter = new URL('../../templates/starter/', import.meta.url).pathname;
let root: string;
let child: ChildProcess;
let output = '';
let devUrl = '';
let platformUrl = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cloudfn-dev-platform-'));
  cpSync(starter, root, { recursive: true, filter: (source) => !/[/\\](node_modules|\.cloudfn|dist)$/.test(source) });
  child = spawn(process.execPath, [cli, 'dev', root, '--platform', '--port', '0', '--platform-port', '0'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      platformUrl ||= /emulator on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? '';
      devUrl ||= /dev server on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? '';
      if (devUrl && platformUrl) resolve();
    });
    child.on('exit', (code) => reject(new Error(`cloudfn dev exited ${code}: ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
});

it('runs the starter media tour: a real upload, transcode and playback on the emulator', async () => {
  const res = await fetch(`${devUrl}/media-tour`);
  const body = (await res.json()) as { vid: string; transcode: { run_status: number }; play: { url: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.transcode.run_status).toBe(10);
  const media = await fetch(body.play[0]!.url, { headers: { range: 'bytes=0-7' } });
  expect(media.status).toBe(206);
  expect(
    Buffer.from(await media.arrayBuffer())
      .subarray(4, 8)
      .toString('latin1'),
  ).toBe('ftyp');
  // The function's media calls were logged with its request's logid.
  expect(output).toMatch(/media-tour info\s+media=start_work_flow status=200/);
}, 90_000);

it('registered a dev app key, so an unsigned call is refused (the tour was signed)', async () => {
  const token = await fetch(`${platformUrl}/oauth/client_token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: 'tt-dev-app', client_secret: 'dev-secret', grant_type: 'client_credential' }),
  });
  const { data } = (await token.json()) as { data: { access_token: string } };
  const unsigned = await fetch(`${platformUrl}/api/cloud_voc/get_video_list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'access-token': data.access_token },
    body: JSON.stringify({ page_size: 1, page_number: 0 }),
  });
  expect(unsigned.status).toBe(401);
  expect(readFileSync(join(root, '.cloudfn/platform/dev-app-key/app_public_key.pem'), 'utf8')).toContain(
    'BEGIN PUBLIC KEY',
  );
});

it('exits 0 on SIGTERM', async () => {
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});
