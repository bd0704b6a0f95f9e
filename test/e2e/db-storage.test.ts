/**
 * The app's data commands over the local TOS's store, with the real CLI: `cloudfn dev --seed`
 * starts with the seed's objects (a function reads one with the TOS SDK), `cloudfn db export`
 * beside the running dev writes them and the one a function added (bytes as base64), `db reset
 * --yes` empties the store, `db import` brings every object back byte for byte, a file with
 * storage data is refused whole by an app that runs no TOS; and `--ephemeral` keeps the objects
 * in a temporary folder, removed at exit.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;

/** The platform's sample: the SDK, the injected keys, the public endpoint. */
const OBJECTS = `import { TosClient } from '@volcengine/tos-sdk';
const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY!,
  accessKeySecret: process.env.TOS_SECRET_KEY!,
  region: process.env.TOS_REGION!,
  endpoint: 'tos-cn-beijing.volces.com',
});
export default async (params: { put?: string; text?: string }) => {
  const bucket = process.env.TOS_BUCKET!;
  if (params.put) await client.putObject({ bucket, key: params.put, body: Buffer.from(params.text ?? ''), contentType: 'text/plain' });
  const listed = await client.listObjectsType2({ bucket });
  return (listed.data.Contents ?? []).map((c) => c.Key + ':' + c.Size);
};
`;

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255, 1]);
const SEED = {
  $cloudfn: 'data/1',
  documents: {},
  storage: {
    buckets: [
      {
        name: 'cloudfn-dev',
        objects: [
          {
            key: 'seed/logo.png',
            contentType: 'image/png',
            meta: { by: 'seed' },
            headers: {},
            base64: png.toString('base64'),
          },
        ],
      },
    ],
  },
};

function cloudfn(root: string, args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function startDev(
  root: string,
  args: string[],
): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, [cli, 'dev', '--port', '0', '--no-typecheck', ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up line: ${out}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`dev exited ${code}: ${out}`)));
    child.stdout!.on('data', () => {
      const match = /dev server on (http:\/\/\S+) with/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return { child, url, out: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function project(): TempProject {
  const made = tempProject({
    'cloudfn.config.json': JSON.stringify({ components: { tos: true } }),
    'functions/objects.ts': OBJECTS,
    'seed.json': JSON.stringify(SEED),
  });
  symlinkSync(join(REPO, 'node_modules'), join(made.root, 'node_modules'));
  return made;
}

describe('cloudfn db and dev --seed over the local TOS', () => {
  let app: TempProject;
  let dev: Awaited<ReturnType<typeof startDev>>;
  const objects = async (query = ''): Promise<string[]> =>
    (await (await fetch(`${dev.url}/objects${query}`)).json()) as string[];

  beforeAll(async () => {
    ensureDist();
    app = project();
    dev = await startDev(app.root, ['--seed', 'seed.json']);
  }, 60_000);
  afterAll(async () => {
    if (dev !== undefined) await stop(dev.child);
    app?.remove();
  });

  it('starts with the seeded object, which the function lists', async () => {
    expect(dev.out()).toContain('components: seeded storage: cloudfn-dev (1 object) from seed.json');
    expect(await objects()).toEqual(['seed/logo.png:7']);
  });

  it('exports beside the running dev, resets, and imports every object back', async () => {
    expect(await objects('?put=notes/a.txt&text=hello')).toEqual(['notes/a.txt:5', 'seed/logo.png:7']);
    const exported = cloudfn(app.root, ['db', 'export', 'out.json']);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toContain('storage: cloudfn-dev (2 objects)');
    const file = JSON.parse(readFileSync(join(app.root, 'out.json'), 'utf8')) as typeof SEED;
    const keys = file.storage.buckets[0]!.objects.map((o) => [
      o.key,
      Buffer.from(o.base64, 'base64').toString('latin1'),
    ]);
    expect(keys).toEqual([
      ['notes/a.txt', 'hello'],
      ['seed/logo.png', png.toString('latin1')],
    ]);

    const reset = cloudfn(app.root, ['db', 'reset', '--yes']);
    expect(reset.status).toBe(0);
    expect(await objects()).toEqual([]);

    const imported = cloudfn(app.root, ['db', 'import', 'out.json']);
    expect(imported.status).toBe(0);
    expect(imported.stderr).toContain('storage: cloudfn-dev (2 objects)');
    expect(await objects()).toEqual(['notes/a.txt:5', 'seed/logo.png:7']);
  }, 30_000);

  it('refuses a file with storage data in an app that runs no TOS, and writes nothing', () => {
    const plain = tempProject({ 'functions/hi.ts': 'export default () => 1;\n', 'seed.json': JSON.stringify(SEED) });
    try {
      const run = cloudfn(plain.root, ['db', 'import', 'seed.json']);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        'cloudfn: seed.json: it holds storage data but no service of the app runs the local TOS; set "components": { "tos": true } in a service\'s cloudfn.config.json, or remove "storage" from the file; nothing was written\n',
      );
      expect(existsSync(join(plain.root, '.cloudfn/storage'))).toBe(false);
    } finally {
      plain.remove();
    }
  });
});

describe('cloudfn dev --ephemeral over the local TOS', () => {
  it('keeps the seeded objects in the temporary folder and removes it at exit', async () => {
    ensureDist();
    const app = project();
    try {
      const dev = await startDev(app.root, ['--ephemeral', '--seed', 'seed.json']);
      const folder = /an ephemeral store in (\S+), removed at exit/.exec(dev.out())?.[1];
      try {
        expect(folder).toBeDefined();
        const res = await fetch(`${dev.url}/objects?put=e.txt&text=x`);
        expect(await res.json()).toEqual(['e.txt:1', 'seed/logo.png:7']);
        expect(existsSync(join(folder!, 'storage'))).toBe(true);
      } finally {
        await stop(dev.child);
      }
      expect(existsSync(folder!)).toBe(false);
      expect(existsSync(join(app.root, '.cloudfn/storage'))).toBe(false);
    } finally {
      app.remove();
    }
  }, 60_000);
});
