/**
 * The starter template's image, built by its own Dockerfile and run in a real container engine
 * (podman, set up by test/setup/container-image.mjs): health 200, a function call, JSON request
 * lines on stdout, a process that is not root, and SIGTERM finishing the request in flight,
 * answering new ones 503 and exiting 0 within the grace period.
 *
 * It takes a minute or two, so `npm test` skips it; `npm run test:container` (run once by
 * .ci/run) sets the engine up and runs it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { freePort } from '../testing/free-port.js';

const enabled = process.env['CLOUDFN_CONTAINER_TEST'] === '1';
const run = promisify(execFile);
const CLI = join(REPO, 'dist/src/cli/index.js');
const CONTAINERS_CONF = join(REPO, 'test/setup/containers.conf');
const env = {
  ...process.env,
  CONTAINERS_CONF,
  npm_config_loglevel: 'error',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};
const tag = `localhost/cloudfn-container-test:${process.pid}`;
const name = `cloudfn-container-test-${process.pid}`;

function podman(...args: string[]): string {
  return execFileSync('podman', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The project's package.json points at a vendored tarball of this cloudfn unless init did so already. */
function vendorCloudfn(dir: string, work: string): void {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies: Record<string, string> };
  if (pkg.dependencies['cloudfn']?.startsWith('file:')) return;
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, env, stdio: 'ignore' });
  const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
  execFileSync('mkdir', ['-p', join(dir, 'vendor')]);
  execFileSync('cp', [join(work, tgz), join(dir, 'vendor', tgz)]);
  pkg.dependencies['cloudfn'] = `file:vendor/${tgz}`;
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
  const dockerfile = join(dir, 'Dockerfile');
  const text = readFileSync(dockerfile, 'utf8');
  if (!text.includes('COPY vendor'))
    writeFileSync(
      dockerfile,
      text.replace(
        'COPY package.json package-lock.json ./',
        'COPY package.json package-lock.json ./\nCOPY vendor ./vendor',
      ),
    );
}

describe.skipIf(!enabled)('the starter image in a real container engine (run by npm run test:container)', () => {
  let work: string;
  let port: number;

  beforeAll(async () => {
    ensureDist();
    const setup = spawnSync(process.execPath, [join(REPO, 'test/setup/container-image.mjs')], {
      env,
      encoding: 'utf8',
    });
    if (setup.status !== 0) throw new Error(`container set-up failed:\n${setup.stdout}${setup.stderr}`);
    work = mkdtempSync(join(tmpdir(), 'cloudfn-container-'));
    const dir = join(work, 'app');
    execFileSync(process.execPath, [CLI, 'init', dir, '--template', 'starter'], { env, stdio: 'ignore' });
    // A function that waits, to see SIGTERM let it finish.
    writeFileSync(
      join(dir, 'functions/slow.ts'),
      "export default async () => { await new Promise((r) => setTimeout(r, 1500)); return { slow: 'done' }; };\n",
    );
    vendorCloudfn(dir, work);
    if (!existsSync(join(dir, 'package-lock.json')))
      await run('npm', ['install', '--package-lock-only'], { cwd: dir, env, timeout: 180_000 });
    await run('podman', ['build', '--pull=never', '-t', tag, '.'], {
      cwd: dir,
      env,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    port = await freePort();
    podman('run', '-d', '--name', name, '-e', `PORT=${port}`, tag);
  }, 900_000);

  afterAll(() => {
    spawnSync('podman', ['rm', '-f', name], { env, stdio: 'ignore' });
    spawnSync('podman', ['rmi', '-f', tag], { env, stdio: 'ignore' });
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('answers its health path, then a function, logging JSON lines on stdout', async () => {
    const health = await until(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/_cloudfn/health`);
        return res.status === 200 ? ((await res.json()) as unknown) : undefined;
      },
      30_000,
      'the health path',
    );
    expect(health).toEqual({ status: 'ok', inflight: 0 });
    const res = await fetch(`http://127.0.0.1:${port}/hello?name=Ada`);
    expect(res.status).toBe(200);
    const logid = res.headers.get('x-platform-logid');
    expect(await res.json()).toMatchObject({ hello: 'Ada', trigger: 'online', logid });
    const lines = await until(
      async () => {
        const found = podman('logs', name)
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        return found.some((r) => r['logid'] === logid && r['status'] === 200) ? found : undefined;
      },
      5_000,
      'the request line',
    );
    expect(lines.find((r) => r['logid'] === logid && r['status'] === 200)).toMatchObject({
      method: 'GET',
      path: '/hello',
      function: 'hello',
    });
  });

  it('runs as an unprivileged user', () => {
    expect(podman('exec', name, 'id', '-u').trim()).not.toBe('0');
  });

  it('on SIGTERM finishes the request in flight, answers new ones 503 and exits 0', async () => {
    const slow = fetch(`http://127.0.0.1:${port}/slow`);
    await until(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/_cloudfn/health`);
        const body = (await res.json()) as { inflight: number };
        return body.inflight > 0 ? true : undefined;
      },
      5_000,
      'the slow request to start',
    );
    podman('kill', '--signal', 'TERM', name);
    const refused = await until(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/hello`);
        return res.status === 503 ? res : undefined;
      },
      3_000,
      'a 503 while draining',
    );
    expect(refused.headers.get('connection')).toBe('close');
    const finished = await slow;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ slow: 'done' });
    const code = podman('wait', name).trim();
    expect(code).toBe('0');
  }, 30_000);
});
