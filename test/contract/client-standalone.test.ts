/**
 * `cloudfn client` for a mini-program that has none of the server: the client of a project whose
 * functions import `@open-dy/node-server-sdk`, zod and the server's own interfaces is written
 * with its types spelled out, and type-checks in an empty folder holding only that file, a page
 * that calls it and TypeScript. The functions the platform calls (a timer, the live-data path,
 * the WebSocket callback, one with `config.client: false`) are not offered; `--include`,
 * `--exclude` and `--import-types` do what they say.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFunctions } from '../../src/contract/client-functions.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const GAME = join(REPO, 'test/fixtures/client-game');
const CLI = join(REPO, 'dist/src/cli/index.js');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

/** A mini-program's folder: nothing but its tsconfig, its page and the client. */
let miniapp: string;

function client(args: string[]): { status: number | null; stderr: string; source: string } {
  const out = join(miniapp, 'api.ts');
  const run = spawnSync(process.execPath, [CLI, 'client', GAME, '--out', out, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stderr: run.stderr, source: readFileSync(out, 'utf8') };
}

function tsc(): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', miniapp], { encoding: 'utf8', cwd: miniapp });
  return { status: run.status, out: run.stdout + run.stderr };
}

beforeAll(() => {
  ensureDist();
  miniapp = mkdtempSync(join(tmpdir(), 'cloudfn-miniapp-'));
  writeFileSync(
    join(miniapp, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2020',
        lib: ['ES2020'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['page.ts', 'api.ts'],
    }),
  );
  writeFileSync(
    join(miniapp, 'page.ts'),
    `import { createClient, type ContainerCaller, type LeaderboardTopResult } from './api';
declare const cloud: ContainerCaller;
const api = createClient(cloud);
export async function show(): Promise<number> {
  const board: LeaderboardTopResult = await api.leaderboard.top({ limit: 5 });
  const name: string | undefined = board.top[0]?.nickname;
  const when: string | undefined = board.top[0]?.updatedAt; // a Date, as JSON
  const joined: 'red' | 'blue' = (await api.join_room({ team: 'red' })).joined;
  return board.total + (name?.length ?? 0) + (when?.length ?? 0) + joined.length;
}
`,
  );
});
afterAll(() => rmSync(miniapp, { recursive: true, force: true }));

describe('the client of a project whose functions import the SDK', () => {
  it('stands alone: no import, and it type-checks in an empty folder with only TypeScript', () => {
    const written = client([]);
    expect(written.status, written.stderr).toBe(0);
    expect(written.source.match(/^\s*import\b/gm)).toBeNull();
    expect(written.source).not.toContain('typeof import');
    expect(written.source).not.toContain('node-server-sdk');
    expect(written.source).toContain('top(...args: Args<LeaderboardTopParams>): Promise<LeaderboardTopResult>;');
    const checked = tsc();
    expect(checked.out).toBe('');
    expect(checked.status).toBe(0);
  }, 180_000);

  it('offers neither the timer nor the callbacks, and says why', () => {
    const written = client([]);
    for (const name of ['settle', 'live_data_callback', 'websocket_callback', 'start_game'])
      expect(written.source).not.toContain(`\`${name}\``);
    expect(written.stderr).toContain('wrote');
    expect(written.stderr).toContain('settle (a timer (config.schedule))');
    expect(written.stderr).toContain('live_data_callback (the live-data path (liveData.path))');
    expect(written.stderr).toContain('start_game (config.client is false)');
  }, 180_000);

  it('still refuses a wrong call at compile time', () => {
    client([]);
    writeFileSync(
      join(miniapp, 'page.ts'),
      `import { createClient, type ContainerCaller } from './api';
declare const cloud: ContainerCaller;
export const wrong = createClient(cloud).join_room({ team: 'green' });
`,
    );
    const checked = tsc();
    expect(checked.status).not.toBe(0);
    expect(checked.out).toContain(`Type '"green"' is not assignable to type '"red" | "blue"'`);
  }, 180_000);

  it('--include offers a function the platform calls, --exclude leaves one out, --import-types reads the files', () => {
    const written = client(['--include', 'settle', '--exclude', 'join_*']);
    expect(written.source).toContain('settle(');
    expect(written.source).not.toContain('join_room(');
    const imported = client(['--import-types']);
    expect(imported.source).toContain('typeof import(');
  }, 180_000);
});

describe('clientFunctions', () => {
  const fn = (name: string, config = {}) => ({ name, handler: () => 1, config });
  it('keeps a timer whose config says client: true, and drops a function cloudfn.config marks false', () => {
    const { kept, left } = clientFunctions(
      [fn('tick', { schedule: '* * * * *', client: true }), fn('pay_notify'), fn('hello')],
      { functions: { pay_notify: { client: false } } },
    );
    expect(kept.map((f) => f.name)).toEqual(['tick', 'hello']);
    expect(left).toEqual([{ name: 'pay_notify', why: 'config.client is false' }]);
  });

  it("leaves out a function only other services call (config.client 'inner-call'), and says so", () => {
    const { kept, left } = clientFunctions([fn('add_score', { client: 'inner-call' }), fn('top')], {});
    expect(kept.map((f) => f.name)).toEqual(['top']);
    expect(left).toEqual([{ name: 'add_score', why: "only other services call it (config.client 'inner-call')" }]);
  });
});
