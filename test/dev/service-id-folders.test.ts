/**
 * `cloudfn dev` in folders whose names are not service ids (issue 49, defect 0), through the
 * built CLI as a user types it, in real folders under the system's temp folder: `my.app`,
 * `project.v2`, `my app`, `中文项目` and one named as `mktemp -d` names them (`tmp.XXXXXXXXXX`)
 * each start, print one line naming the id made from the name, and their function sees that
 * `SERVICE_ID`; a session of two folders that make one id is refused, naming both; an explicit
 * `serviceId` the platform would not take is still refused. `serviceIdOfFolder` is checked on
 * its own first.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceIdOfFolder } from '../../src/platform/services/setting.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const base = mkdtempSync(join(tmpdir(), 'cloudfn-folder-names-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeAll(() => ensureDist(), 120_000);

// Read as the module loads: the variable must be there before the function is imported.
const ENV_FN = 'const atLoad = process.env.SERVICE_ID;\nexport default () => ({ SERVICE_ID: atLoad });\n';

function project(name: string, config?: string): string {
  const root = join(base, name);
  mkdirSync(join(root, 'functions'), { recursive: true });
  writeFileSync(join(root, 'functions', 'env.ts'), ENV_FN);
  if (config !== undefined) writeFileSync(join(root, 'cloudfn.config.json'), config);
  return root;
}

interface Dev {
  child: ChildProcess;
  output: () => string;
  url: string;
}

/** `cloudfn dev --port 0` typed in `cwd`; resolves once it serves. */
async function startDev(cwd: string): Promise<Dev> {
  const child = spawn(process.execPath, [CLI, 'dev', '--port', '0', '--no-typecheck'], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', PORT: '', CLOUDFN_DEV_SERVICES: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /dev server on (http:\/\/[\d.:]+)/.exec(text)?.[1];
    if (url !== undefined) return { child, output: () => text, url };
    if (child.exitCode !== null) throw new Error(`cloudfn dev exited ${child.exitCode} in ${cwd}: ${text}`);
    if (Date.now() > deadline) throw new Error(`cloudfn dev did not start in ${cwd}: ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stop(dev: Dev): Promise<void> {
  return new Promise((resolve) => {
    if (dev.child.exitCode !== null) return resolve();
    dev.child.once('exit', () => resolve());
    dev.child.kill('SIGTERM');
  });
}

describe('serviceIdOfFolder', () => {
  it('lower-cases, makes each run of other characters one hyphen, trims, and falls back to dev-service', () => {
    expect(
      ['my.app', 'project.v2', 'my app', '中文项目', 'tmp.AbC12xYz09', 'My_Game', 'game', '--x--', '.'].map(
        serviceIdOfFolder,
      ),
    ).toEqual([
      'my-app',
      'project-v2',
      'my-app',
      'dev-service',
      'tmp-abc12xyz09',
      'my-game',
      'game',
      'x',
      'dev-service',
    ]);
    expect(serviceIdOfFolder('a'.repeat(70))).toBe('a'.repeat(63));
    expect(serviceIdOfFolder(`${'a'.repeat(62)}.b`)).toBe('a'.repeat(62));
  });
});

describe('cloudfn dev in a folder whose name is not a service id', () => {
  const cases = [
    { folder: 'my.app', id: 'my-app' },
    { folder: 'project.v2', id: 'project-v2' },
    { folder: 'my app', id: 'my-app' },
    { folder: '中文项目', id: 'dev-service' },
  ];
  for (const c of cases)
    it(`serves ${JSON.stringify(c.folder)} as SERVICE_ID ${c.id}, saying so in one line`, async () => {
      const root = project(join(c.folder === '中文项目' ? 'zh' : 'plain', c.folder));
      const dev = await startDev(root);
      try {
        const answer = await fetch(`${dev.url}/env`);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({ SERVICE_ID: c.id });
        const said = dev
          .output()
          .split('\n')
          .filter((line) => line.includes('made from the folder'));
        expect(said, dev.output()).toEqual([
          `cloudfn SERVICE_ID is "${c.id}", made from the folder's name ${JSON.stringify(c.folder)} (a service id is lower-case letters, digits and inner hyphens); set "serviceId" in cloudfn.config.json to choose it`,
        ]);
      } finally {
        await stop(dev);
      }
    }, 90_000);

  it('serves a folder made by mktemp -d (tmp.XXXXXXXXXX)', async () => {
    const made = spawnSync('mktemp', ['-d', '-p', base], { encoding: 'utf8' });
    const root = made.status === 0 ? made.stdout.trim() : mkdtempSync(join(base, 'tmp.'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(join(root, 'functions', 'env.ts'), ENV_FN);
    const name = root.slice(root.lastIndexOf('/') + 1);
    expect(name).toMatch(/^tmp\./);
    const dev = await startDev(root);
    try {
      expect(await (await fetch(`${dev.url}/env`)).json()).toEqual({ SERVICE_ID: serviceIdOfFolder(name) });
      expect(serviceIdOfFolder(name)).toMatch(/^tmp-[a-z0-9]+$/);
    } finally {
      await stop(dev);
    }
  }, 90_000);

  it('says nothing for a folder whose name is an id, and takes an explicit serviceId over the name', async () => {
    const plain = await startDev(project('game'));
    try {
      expect(await (await fetch(`${plain.url}/env`)).json()).toEqual({ SERVICE_ID: 'game' });
      expect(plain.output()).not.toContain('made from the folder');
    } finally {
      await stop(plain);
    }
    const named = await startDev(project('named.app', '{ "serviceId": "rank" }'));
    try {
      expect(await (await fetch(`${named.url}/env`)).json()).toEqual({ SERVICE_ID: 'rank' });
      expect(named.output()).not.toContain('made from the folder');
    } finally {
      await stop(named);
    }
  }, 90_000);

  it('refuses an explicit serviceId the platform would not take, and two folders of a session that make one id', () => {
    const bad = project('bad.app', '{ "serviceId": "My.App" }');
    const refused = spawnSync(process.execPath, [CLI, 'dev', '--port', '0', '--no-typecheck'], {
      cwd: bad,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CLOUDFN_DEV_SERVICES: '' },
      timeout: 60_000,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('serviceId "My.App": write the id as the platform shows it');
    const app = join(base, 'session');
    project(join('session', 'team.app'));
    project(join('session', 'team app'));
    const twins = spawnSync(process.execPath, [CLI, 'dev', 'team.app', 'team app', '--port', '0', '--no-typecheck'], {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CLOUDFN_DEV_SERVICES: '' },
      timeout: 60_000,
    });
    expect(twins.status).toBe(1);
    expect(twins.stderr).toMatch(
      /team\.app \(its folder's name made into an id\) and .*team app \(its folder's name made into an id\) are both the service "team-app"; give one of them another "serviceId"/,
    );
  }, 90_000);
});
