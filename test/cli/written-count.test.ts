/**
 * The line `cloudfn client` and `cloudfn openapi` print after writing a file counts the
 * functions in the singular for one (issue 49, defect 8: `wrote miniapp/src/game-api.ts: 1
 * functions`), through the built CLI on a real project of one, then two, functions.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const root = mkdtempSync(join(tmpdir(), 'cloudfn-written-count-'));
beforeAll(() => {
  ensureDist();
  mkdirSync(join(root, 'functions'));
  writeFileSync(join(root, 'functions', 'hello.ts'), 'export default () => ({ hello: "world" });\n');
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The exit status and the last line on stderr (a line about how types are read may come first). */
function run(args: string[]): { status: number | null; last: string } {
  const done = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: done.status, last: done.stderr.trimEnd().split('\n').at(-1) ?? '' };
}

describe('the count of functions written', () => {
  it('is "1 function" for one and "2 functions" for two, in cloudfn client and cloudfn openapi', () => {
    expect(run(['client', '.', '--out', 'api.ts'])).toEqual({ status: 0, last: 'wrote api.ts: 1 function' });
    expect(run(['openapi', '.', '--out', 'openapi.json'])).toEqual({
      status: 0,
      last: 'wrote openapi.json: 1 function',
    });
    writeFileSync(join(root, 'functions', 'bye.ts'), 'export default () => ({ bye: true });\n');
    expect(run(['client', '.', '--out', 'api.ts'])).toEqual({ status: 0, last: 'wrote api.ts: 2 functions' });
    expect(run(['openapi', '.', '--out', 'openapi.json'])).toEqual({
      status: 0,
      last: 'wrote openapi.json: 2 functions',
    });
  }, 120_000);

  it("counts each service's functions in the client of an app root", () => {
    const app = join(root, 'app');
    for (const [service, names] of [
      ['game', ['play', 'join']],
      ['rank', ['top']],
    ] as const) {
      mkdirSync(join(app, service, 'functions'), { recursive: true });
      for (const name of names)
        writeFileSync(join(app, service, 'functions', `${name}.ts`), 'export default () => 1;\n');
    }
    writeFileSync(join(app, 'cloudfn.config.json'), '{ "services": ["game"] }\n');
    expect(run(['client', 'app', '--out', 'app-api.ts'])).toEqual({
      status: 0,
      last: 'wrote app-api.ts: 1 service (game: 2 functions)',
    });
    writeFileSync(join(app, 'cloudfn.config.json'), '{ "services": ["game", "rank"] }\n');
    expect(run(['client', 'app', '--out', 'app-api.ts'])).toEqual({
      status: 0,
      last: 'wrote app-api.ts: 2 services (game: 2 functions, rank: 1 function)',
    });
  }, 120_000);
});
