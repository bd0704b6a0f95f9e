/**
 * `cloudfn start --workers`: the built CLI, with node:cluster, on a real port.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineAtomicWriter, parseWorkers } from '../../../runtime/serve/cluster.js';
import { YOUNG_GENERATION_FLAG } from '../../../runtime/serve/young-generation.js';
import { REPO, ensureDist } from '../../testing/ensure-dist.js';
import { tempProject } from '../../testing/project.js';
import { until } from '../../testing/until.js';
import { pidOf, spawnServer, type Spawned } from '../../build/spawn-server.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const project = tempProject({
  'functions/pid.ts': `export default async (params: { wait?: string; crash?: string }) => {
  if (params.crash) setTimeout(() => process.exit(3), 5);
  if (params.wait) {
    console.log(JSON.stringify({ waiting: process.pid }));
    await new Promise((resolve) => setTimeout(resolve, Number(params.wait)));
  }
  return { pid: process.pid };
};`,
  'functions/argv.ts': 'export default async () => ({ execArgv: process.execArgv });',
});

beforeAll(() => ensureDist(), 120_000);
afterAll(() => project.remove());

const listeningLines = (server: Spawned): number =>
  server
    .stdout()
    .split('\n')
    .filter((l) => l.includes('"msg":"listening on')).length;

async function startWorkers(workers: string): Promise<Spawned> {
  const server = await spawnServer([CLI, 'start', project.root, '--workers', workers], { cwd: project.root });
  // The first line is a worker's; wait for all of them.
  const expected = workers === 'auto' ? availableParallelism() : Number(workers);
  await until(
    () => (listeningLines(server) >= expected ? true : undefined),
    20_000,
    () => server.stdout(),
  );
  return server;
}

describe('cloudfn start --workers', () => {
  it('serves one port from n processes, restarts a crashed worker, and drains on SIGTERM', async () => {
    const server = await startWorkers('2');
    try {
      expect(listeningLines(server)).toBe(2);
      const pids = new Set<number>();
      for (let i = 0; i < 6; i++) pids.add(await pidOf(`${server.url}/pid`));
      expect(pids.size).toBe(2);
      expect(pids.has(server.child.pid!)).toBe(false);
      expect((await fetch(`${server.url}/_cloudfn/health`)).status).toBe(200);

      await pidOf(`${server.url}/pid?crash=1`);
      await until(
        () => (listeningLines(server) >= 3 ? true : undefined),
        20_000,
        () => server.stdout(),
      );
      expect(server.stdout()).toMatch(/"msg":"worker \d+ exited \(code 3\); starting another"/);
      const after = new Set<number>();
      for (let i = 0; i < 6; i++) after.add(await pidOf(`${server.url}/pid`));
      expect(after.size).toBe(2);

      const slow = fetch(`${server.url}/pid?wait=600`);
      // SIGTERM once the request is in a worker's handler, not after a guessed delay.
      await until(
        () => (server.stdout().includes('"waiting"') ? true : undefined),
        20_000,
        'the slow request to start',
      );
      const exited = server.stop('SIGTERM');
      expect((await slow).status).toBe(200);
      expect(await exited).toBe(0);
      expect(server.stdout()).toContain('SIGTERM received: asking 2 workers to finish their requests');
    } finally {
      await server.stop('SIGKILL');
    }
  }, 90_000);

  it('starts one worker per CPU with auto, capping the young generation from Node 24 on', async () => {
    const server = await startWorkers('auto');
    try {
      expect(listeningLines(server)).toBe(availableParallelism());
      const { execArgv } = (await (await fetch(`${server.url}/argv`)).json()) as { execArgv: string[] };
      const major = Number(process.versions.node.split('.')[0]);
      // The CLI runs on the Node running the tests, and its workers on the same.
      expect(execArgv.includes(YOUNG_GENERATION_FLAG)).toBe(major >= 24);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 90_000);

  it('keeps a single process without --workers', async () => {
    const server = await spawnServer([CLI, 'start', project.root], { cwd: project.root });
    try {
      expect(await pidOf(`${server.url}/pid`)).toBe(server.child.pid);
      expect((await fetch(`${server.url}/_cloudfn/health`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('reports a function without a default export once, as one line, and forks nothing', () => {
    const broken = tempProject({ 'functions/nodefault.ts': 'export const handler = () => 1;' });
    try {
      const run = spawnSync(process.execPath, [CLI, 'start', broken.root, '--workers', '2'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, PORT: '0' },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        'cloudfn: functions/nodefault.ts has no default export: export default async function (params, service) { ... } (or module.exports = async (params, service) => { ... })\n',
      );
      expect(run.stdout).toBe('');
    } finally {
      broken.remove();
    }
  });

  it('stops with exit code 1 when the workers fail to start', () => {
    const broken = tempProject({
      'functions/boom.ts': "throw new Error('DATABASE_URL is not set');\nexport default () => 1;",
    });
    try {
      const run = spawnSync(process.execPath, [CLI, 'start', broken.root, '--workers', '2'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, PORT: '0' },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('cloudfn: functions/boom.ts: failed to load: DATABASE_URL is not set');
      expect(run.stdout).toMatch(/exited \(code 1\) before serving; stopping/);
    } finally {
      broken.remove();
    }
  }, 90_000);

  it('refuses a bad --workers value in one line', () => {
    for (const value of ['0', 'two', '1000']) {
      const run = spawnSync(process.execPath, [CLI, 'start', project.root, '--workers', value], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `cloudfn: --workers must be a whole number from 1 to 256, or auto (one per CPU), got ${JSON.stringify(value)}\n`,
      );
    }
  });
});

describe('parseWorkers and lineAtomicWriter', () => {
  it('reads a count or auto', () => {
    expect(parseWorkers('4')).toBe(4);
    expect(parseWorkers('auto')).toBe(availableParallelism());
    expect(() => parseWorkers('-1')).toThrow(TypeError);
  });

  it('writes whole lines of at most 4096 bytes per write', () => {
    const writes: string[] = [];
    const write = lineAtomicWriter((text) => writes.push(text));
    const line = (n: number): string => 'x'.repeat(n) + '\n';
    write(line(10) + line(20));
    write(line(3000) + line(3000) + line(100));
    write(line(5000));
    expect(writes.map((w) => w.length)).toEqual([32, 3001, 3102, 5001]);
    expect(writes.every((w) => w.endsWith('\n'))).toBe(true);
  });
});

describe('runWorker', () => {
  it('drains and exits when the primary asked it to stop while it was still starting', () => {
    // The primary's message arrives as a 'message' event: emitted here inside start(), where a
    // worker of `start --workers` got it when its parent went during start-up. The interval
    // stands for the server, which keeps the process alive until drained.
    const script = `
      import { runWorker, SHUTDOWN_MESSAGE } from ${JSON.stringify(join(REPO, 'dist/runtime/serve/cluster.js'))};
      await runWorker(async () => {
        process.emit('message', SHUTDOWN_MESSAGE);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const server = setInterval(() => {}, 1000);
        return { drain: async () => { clearInterval(server); process.stdout.write('drained\\n'); } };
      }, String);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('drained\n');
    expect(run.status).toBe(0);
  });
});
