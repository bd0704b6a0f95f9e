/**
 * The mini-program's storage calls under `cloudfn dev` with `"components": { "tos": true }`:
 * `uploadFile` as the dev user (no identity header) stores the file in the app's default bucket,
 * where a function reads it with the TOS SDK at `cloudPath`; `getTempFileURL` answers a URL that
 * curl downloads byte for byte from the dev server; a user not signed in is refused; and the
 * object survives a restart of the dev server.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCloud } from '../../src/client/index.js';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

/** curl in a child process, awaited: the server answering it runs in this process. */
const curl = async (...args: string[]): Promise<Buffer> =>
  (await promisify(execFile)('curl', args, { encoding: 'buffer' })).stdout;

describe('createCloud storage methods under cloudfn dev', () => {
  let project: TempProject;
  let dev: DevServer;
  const bytes = Buffer.from([1, 2, 3, 0, 250, 251, 252, 10]);
  const start = () =>
    startDevServer({ root: project.root, port: 0, typecheck: false, sink: { write: () => {} }, handleSignals: false });

  beforeAll(async () => {
    project = tempProject({
      'cloudfn.config.json': JSON.stringify({ components: { tos: true } }),
      'functions/size.ts': `import { TosClient } from '@volcengine/tos-sdk';
export default async (params: { key: string }) => {
  const client = new TosClient({
    accessKeyId: process.env.TOS_ACCESS_KEY!,
    accessKeySecret: process.env.TOS_SECRET_KEY!,
    region: 'cn-beijing',
    endpoint: 'tos-cn-beijing.volces.com',
  });
  const head = await client.headObject({ bucket: process.env.TOS_BUCKET!, key: params.key });
  return { size: Number(head.data['content-length']) };
};
`,
      'photo.bin': '',
    });
    writeFileSync(join(project.root, 'photo.bin'), bytes);
    // The function's @volcengine/tos-sdk import resolves to the repository's.
    symlinkSync(join(REPO, 'node_modules'), join(project.root, 'node_modules'));
    dev = await start();
  });
  afterAll(async () => {
    await dev?.close();
    project?.remove();
  });

  it('uploads as the dev user, the function reads it, and curl downloads the temporary URL', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'album', baseUrl: dev.url });
    const { fileID } = await cloud.uploadFile({
      cloudPath: 'avatars/dev.bin',
      filePath: join(project.root, 'photo.bin'),
    });
    expect(fileID).toBe('cloud://env-1.cloudfn-dev/avatars/dev.bin');

    const read = await fetch(`${dev.url}/size?key=avatars/dev.bin`);
    expect(await read.json()).toEqual({ size: bytes.length });

    const { fileList } = await cloud.getTempFileURL({ fileList: [fileID] });
    expect(fileList[0]).toMatchObject({ status: 0, maxAge: 86400 });
    expect((await curl('-sf', fileList[0]!.tempFileURL)).equals(bytes)).toBe(true);
  });

  it('refuses a user not signed in', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'album', baseUrl: dev.url, user: { anonymous: true } });
    await expect(
      cloud.uploadFile({ cloudPath: 'avatars/anon.bin', filePath: join(project.root, 'photo.bin') }),
    ).rejects.toMatchObject({ errNo: 21102, code: 401 });
  });

  it('keeps the file across a restart', async () => {
    await dev.close();
    dev = await start();
    const cloud = createCloud({ envID: 'env-1', serviceID: 'album', baseUrl: dev.url });
    const { tempFilePath } = await cloud.downloadFile({ fileID: 'cloud://env-1.cloudfn-dev/avatars/dev.bin' });
    expect(readFileSync(tempFilePath).equals(bytes)).toBe(true);
  });
});
