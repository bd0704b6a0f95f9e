/**
 * The walk-through with the real CLI: `cloudfn dev --seed` starts with the seeded
 * document, a function adds another, `cloudfn db export` (beside the running dev) writes both
 * with dates as {"$date": …}, `db reset --yes` empties the store so the function reads nothing,
 * `db import` brings both back; bad files are refused in one line and import nothing; and
 * `--ephemeral` leaves no store behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDist } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;

const TODOS = `import { dySDK } from '@open-dy/node-server-sdk';
export default async function (params: { title?: string }, service: { httpMethod: string }) {
  const db = dySDK.database();
  if (service.httpMethod === 'POST') return db.collection('todos').add({ title: params.title, at: db.serverDate() });
  return (await db.collection('todos').get()).data;
}
`;
const EMPTY_NAME = `import { dySDK } from '@open-dy/node-server-sdk';
export default async function () {
  try {
    await dySDK.database().collection('').get();
    return { thrown: false };
  } catch (error) {
    const { errorCode, errMsg } = error as { errorCode: number; errMsg: string };
    return { errorCode, errMsg };
  }
}
`;
const SEED = { todos: [{ _id: 'seeded-1', title: 'from the seed', at: { $date: '2026-01-31T08:00:00.000Z' } }] };

/** Runs `cloudfn <args>` in the project, to its end. */
function cloudfn(root: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `cloudfn dev` with `args` and answers its URL and output once it serves. */
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

describe('cloudfn db and cloudfn dev --seed on a project that uses dySDK.database()', () => {
  let project: TempProject;
  let dev: Awaited<ReturnType<typeof startDev>>;

  beforeAll(async () => {
    ensureDist();
    project = tempProject({
      'functions/todos.ts': TODOS,
      'functions/empty_name.ts': EMPTY_NAME,
      'seed.json': JSON.stringify(SEED),
    });
    dev = await startDev(project.root, ['--seed', 'seed.json']);
  }, 60_000);
  afterAll(async () => {
    if (dev !== undefined) await stop(dev.child);
    project?.remove();
  });

  const todos = async (): Promise<Record<string, unknown>[]> =>
    (await (await fetch(`${dev.url}/todos`)).json()) as Record<string, unknown>[];

  it('starts with the seeded document, and says so', async () => {
    expect(dev.out()).toContain('database: seeded todos (1) from seed.json');
    expect(await todos()).toEqual([{ _id: 'seeded-1', title: 'from the seed', at: '2026-01-31T08:00:00.000Z' }]);
  });

  it('exports, beside the running dev, the seeded document and the one a function added, dates as {"$date"}', async () => {
    const added = await fetch(`${dev.url}/todos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'added by the function' }),
    });
    const { _id } = (await added.json()) as { _id: string };
    const run = cloudfn(project.root, ['db', 'export', 'out.json']);
    expect(run.stderr).toBe(`exported todos (2) from ${join(project.root, '.cloudfn/platform')} to out.json\n`);
    expect(run.status).toBe(0);
    const dump = JSON.parse(readFileSync(join(project.root, 'out.json'), 'utf8')) as {
      todos: { _id: string; at: unknown }[];
    };
    expect(dump.todos.map((d) => d._id)).toEqual(['seeded-1', _id]);
    expect(dump.todos[0]!.at).toEqual({ $date: '2026-01-31T08:00:00.000Z' });
    expect(dump.todos[1]!.at).toEqual({ $date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  });

  it('refuses a reset that was not confirmed, and empties the store with --yes: the function reads nothing', async () => {
    const refused = cloudfn(project.root, ['db', 'reset']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^cloudfn: db reset would remove every collection in .*; pass --yes/);
    expect(await todos()).toHaveLength(2);
    const run = cloudfn(project.root, ['db', 'reset', '--yes']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('removed todos from');
    expect(await todos()).toEqual([]);
  });

  it('imports the export back: both documents, dates as dates', async () => {
    const run = cloudfn(project.root, ['db', 'import', 'out.json', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      action: 'import',
      file: 'out.json',
      collections: [{ name: 'todos', count: 2 }],
    });
    const back = await todos();
    expect(back.map((d) => d['title'])).toEqual(['from the seed', 'added by the function']);
    expect(back[0]!['at']).toBe('2026-01-31T08:00:00.000Z');
  });

  it("answers db.collection('').get() with the platform's errorCode 156401", async () => {
    expect(await (await fetch(`${dev.url}/empty_name`)).json()).toEqual({ errorCode: 156401, errMsg: '集合名必填' });
  });

  it('refuses a bad file in one line naming the collection and document, and imports nothing of it', async () => {
    project.write(
      'bad.json',
      JSON.stringify({ todos: [{ _id: 'new', title: 'x' }], scores: [{ _id: 's1' }, { _id: 7 }] }),
    );
    const run = cloudfn(project.root, ['db', 'import', 'bad.json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'cloudfn: bad.json: collection "scores", document 1: _id must be a non-empty string, got 7; nothing was written\n',
    );
    expect((await todos()).map((d) => d['_id'])).not.toContain('new');
    expect(existsSync(join(project.root, '.cloudfn/platform/database/scores.json'))).toBe(false);
  });

  it('merges by _id with --merge, keeping the other documents', async () => {
    project.write('patch.json', JSON.stringify({ todos: [{ _id: 'seeded-1', title: 'patched' }, { _id: 'new-1' }] }));
    expect(cloudfn(project.root, ['db', 'import', 'patch.json', '--merge']).status).toBe(0);
    const after = await todos();
    expect(after.map((d) => [d['_id'], d['title']])).toEqual([
      ['seeded-1', 'patched'],
      [after[1]!['_id'], 'added by the function'],
      ['new-1', undefined],
    ]);
  });

  it("loses no function write while imports run beside it (the store's lock)", async () => {
    const adds = Array.from({ length: 40 }, (_, i) =>
      fetch(`${dev.url}/todos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `burst ${i}` }),
      }).then((r) => r.json()),
    );
    const imports = [0, 1, 2].map(
      (i) =>
        new Promise<number | null>((resolve) => {
          project.write(`merge-${i}.json`, JSON.stringify({ todos: [{ _id: `merged-${i}` }] }));
          spawn(process.execPath, [cli, 'db', 'import', `merge-${i}.json`, '--merge'], {
            cwd: project.root,
            stdio: 'ignore',
          }).on('exit', resolve);
        }),
    );
    await Promise.all(adds);
    expect(await Promise.all(imports)).toEqual([0, 0, 0]);
    const titles = (await todos()).map((d) => d['title'] ?? d['_id']);
    for (let i = 0; i < 40; i++) expect(titles).toContain(`burst ${i}`);
    for (let i = 0; i < 3; i++) expect(titles).toContain(`merged-${i}`);
  }, 30_000);
});

describe('cloudfn dev --ephemeral', () => {
  it('serves a seeded store in a temporary folder and removes it at exit, leaving the project untouched', async () => {
    ensureDist();
    const project = tempProject({ 'functions/todos.ts': TODOS, 'seed.json': JSON.stringify(SEED) });
    try {
      const dev = await startDev(project.root, ['--ephemeral', '--seed', 'seed.json']);
      const folder = /an ephemeral store in (\S+), removed at exit/.exec(dev.out())?.[1];
      try {
        expect(folder).toBeDefined();
        expect(existsSync(join(folder!, 'database/todos.json'))).toBe(true);
        const res = await fetch(`${dev.url}/todos`);
        expect(((await res.json()) as unknown[]).length).toBe(1);
      } finally {
        await stop(dev.child);
      }
      expect(existsSync(folder!)).toBe(false);
      expect(existsSync(join(project.root, '.cloudfn/platform/database'))).toBe(false);
    } finally {
      project.remove();
    }
  }, 60_000);

  it('refuses a bad seed before serving, in one line', () => {
    const project = tempProject({ 'functions/todos.ts': TODOS, 'seed.json': '{"todos": {"_id": "a"}}' });
    try {
      writeFileSync(join(project.root, 'seed.json'), '{"todos": {"_id": "a"}}');
      const run = cloudfn(project.root, ['dev', '--seed', 'seed.json', '--port', '0', '--no-typecheck']);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        'cloudfn: seed.json: collection "todos" must be an array of documents, got {"_id":"a"}; nothing was written\n',
      );
    } finally {
      project.remove();
    }
  });
});
