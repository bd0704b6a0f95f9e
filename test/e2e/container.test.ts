/**
 * The starter template's image, built by its own Dockerfile and run in a real container engine
 * (podman, set up by test/setup/container-image.mjs): health 200, a function call, JSON request
 * lines on stdout, a process that is not root, and SIGTERM's lame-duck period (health 503 while
 * requests are still served, the request in flight finished, exit 0), and deploy/kubernetes.yaml
 * played with `podman kube play`. Issue 32's four misbehaving loads (test/bench/overload.mjs)
 * each against `cloudfn start` in a container of `--memory 512m`: it survives, is not
 * OOM-killed, stays under 400 MiB, and answers at least 90% of a normal client's GETs 200.
 * Then the fleet path, with only the Redis and media settings
 * added: a real redis-server, the local emulator (`cloudfn platform`) for the media API, and
 * three containers behind a real HAProxy (templates/starter/deploy/haproxy.cfg). A signed
 * callback's nonce is claimed in Redis and refused when replayed on another container. Under
 * steady mixed load (GET, POST, signed POST, /videos and /media-tour), the three containers
 * restart one after another, each with a request in flight as it stops, and no request fails;
 * then Redis is stopped for a few seconds and started again on its port: only signed requests
 * fail meanwhile (503 FLEET_UNAVAILABLE), they work again once it is back, and every container
 * logs the outage and the recovery as JSON lines. The counts per phase and kind are printed.
 * The image is built once and reused.
 *
 * It takes a minute or two, so `npm test` skips it; `npm run test:container` (run once by
 * .ci/run) sets the engine up and runs it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ChildProcess, spawn } from 'node:child_process';
import { type KeyObject, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallback } from '../../src/sign/index.js';
import { RedisServer } from '../fleet/redis-server.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { vendorCloudfn } from '../setup/vendor-cloudfn.mjs';
import { freePort } from '../testing/free-port.js';
import { CALLBACK_FN } from '../fleet/callback-function.js';
import { LOADS, LOAD_NAMES, type LoadName, type LoadResult, count } from '../bench/lib/overload-loads.mjs';
import { type ContainerFigures, startPodmanServer } from '../bench/lib/podman-server.mjs';

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
const fleet = [1, 2, 3].map((n) => `cloudfn-container-fleet${n}-${process.pid}`);
const overloadName = (load: LoadName): string => `cloudfn-container-overload-${load}-${process.pid}`;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

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
function vendorPacked(dir: string, work: string): void {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies: Record<string, string> };
  if (pkg.dependencies['cloudfn']?.startsWith('file:')) return;
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, env, stdio: 'ignore' });
  const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
  vendorCloudfn(dir, join(work, tgz), pkg);
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
      "export default async (params: { ms?: string }) => { await new Promise((r) => setTimeout(r, Number(params.ms ?? 1500))); return { slow: 'done' }; };\n",
    );
    writeFileSync(join(dir, 'functions/callback.ts'), CALLBACK_FN);
    vendorPacked(dir, work);
    if (!existsSync(join(dir, 'package-lock.json')))
      await run('npm', ['install', '--package-lock-only'], { cwd: dir, env, timeout: 180_000 });
    // --format docker: podman's default OCI format drops the Dockerfile's HEALTHCHECK.
    await run('podman', ['build', '--format', 'docker', '--pull=never', '-t', tag, '.'], {
      cwd: dir,
      env,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    port = await freePort();
    // A short lame-duck period, set here, keeps this check quick; the fleet below uses the default.
    podman('run', '-d', '--name', name, '-e', `PORT=${port}`, '-e', 'CLOUDFN_DRAIN_DELAY=1500', tag);
  }, 900_000);

  afterAll(() => {
    for (const container of [name, ...fleet, ...LOAD_NAMES.map(overloadName)])
      spawnSync('podman', ['rm', '-f', container], { env, stdio: 'ignore' });
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

  it("keeps the Dockerfile's HEALTHCHECK in the image (built with --format docker)", () => {
    const check = JSON.parse(podman('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', tag)) as {
      Test?: string[];
    } | null;
    expect(check?.Test?.join(' ')).toContain('/_cloudfn/health');
  });

  it('runs as an unprivileged user', () => {
    expect(podman('exec', name, 'id', '-u').trim()).not.toBe('0');
  });

  it('on SIGTERM answers health 503 at once, keeps serving for the delay, finishes the request in flight and exits 0', async () => {
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
    await until(
      async () => ((await fetch(`http://127.0.0.1:${port}/v1/ping`)).status === 503 ? true : undefined),
      3_000,
      'the ping path to answer 503',
    );
    const during = await fetch(`http://127.0.0.1:${port}/hello`);
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');
    const finished = await slow;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ slow: 'done' });
    const code = podman('wait', name).trim();
    expect(code).toBe('0');
    const lines = podman('logs', name).split('\n');
    expect(lines.some((line) => line.includes('lame duck for 1500 ms'))).toBe(true);
  }, 30_000);

  it('plays deploy/kubernetes.yaml with podman kube play: it serves, its node liveness probe passes, it stops with 0', async () => {
    const kport = await freePort();
    const yaml = readFileSync(join(REPO, 'templates/starter/deploy/kubernetes.yaml'), 'utf8')
      .replace('image: registry.example.com/cloudfn-starter:0.1.0', `image: ${tag}`)
      // Host networking here (podman maps no ports then): this run's free port instead of 8000.
      .replace(/\n {10}ports:\n(?: {12}#.*\n)? {12}- containerPort: 8000/, '')
      .replaceAll('8000', String(kport))
      .replace('          env:\n', `          env:\n            - name: PORT\n              value: "${kport}"\n`);
    expect(yaml).toContain(`image: ${tag}`);
    expect(yaml).not.toContain('containerPort');
    const file = join(work, 'kubernetes.yaml');
    writeFileSync(file, yaml);
    try {
      podman('kube', 'play', '--network', 'host', file);
      await healthy(kport);
      const container = 'cloudfn-starter-pod-0-functions';
      // The liveness probe, as podman runs it: exit 0, or this throws.
      podman('healthcheck', 'run', container);
      podman('pod', 'stop', '--time', '30', 'cloudfn-starter-pod-0');
      expect(podman('inspect', '--format', '{{.State.ExitCode}}', container).trim()).toBe('0');
    } finally {
      spawnSync('podman', ['kube', 'down', file], { env, stdio: 'ignore' });
    }
  }, 60_000);

  it("survives issue 32's four loads in 512 MiB (podman --memory 512m), a normal client served", async () => {
    // `cloudfn start` of a small project in a fresh container per load (test/bench/overload.mjs --podman).
    const rows: ({ load: LoadName; normal: number[]; other?: number[] } & ContainerFigures)[] = [];
    for (const load of LOAD_NAMES) {
      const server = await startPodmanServer({
        repo: REPO,
        cli: CLI,
        port: await freePort(),
        memory: '512m',
        name: overloadName(load),
      });
      let result: LoadResult = { normal: [] };
      try {
        result = await LOADS[load](server.port);
      } finally {
        rows.push({ load, ...result, ...server.finish() });
      }
    }
    // The figures, for the record of the run.
    for (const r of rows)
      process.stdout.write(
        `overload in 512 MiB, ${r.load}: ${JSON.stringify({ ...r, normal: count(r.normal), other: r.other && count(r.other) })}\n`,
      );
    for (const row of rows) {
      const answered = row.normal.filter((s) => s === 200).length;
      expect({ load: row.load, survived: row.survived, oomKilled: row.oomKilled }).toEqual({
        load: row.load,
        survived: true,
        oomKilled: false,
      });
      expect(answered / row.normal.length, `${row.load}: ${row.normal.join(',')}`).toBeGreaterThanOrEqual(0.9);
      // Documented bound: the budget's 128 MiB and the answers' buffers, far from the 512 MiB limit.
      expect(row.cgroupPeakMiB, row.load).toBeLessThan(400);
    }
    // Of the 100 concurrent 8 MiB uploads, most answered 200 after a bounded wait, not refused.
    const uploads = rows.find((r) => r.load === 'uploads')!.other!;
    expect(uploads.filter((s) => s === 200).length).toBeGreaterThan(50);
  }, 240_000);

  describe('as a fleet: Redis, the emulator and three containers behind HAProxy', () => {
    const redis = new RedisServer();
    const ports: number[] = [];
    let haproxy: ChildProcess | undefined;
    let platform: ChildProcess | undefined;
    let front = '';

    beforeAll(async () => {
      await redis.start();
      const media = await startPlatform(join(work, 'platform'));
      platform = media.child;
      for (const container of fleet) {
        const p = await freePort();
        ports.push(p);
        // The image as built; only the Redis and media settings (and the callback's key) added.
        const settings = {
          PORT: String(p),
          CLOUDFN_REDIS_URL: redis.url,
          PLATFORM_PUBLIC_KEY: publicPem,
          ...media.env,
        };
        podman(
          'run',
          '-d',
          '--name',
          container,
          ...Object.entries(settings).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
          tag,
        );
      }
      for (const p of ports) await healthy(p);
      // The documented example, with this run's addresses.
      const frontPort = await freePort();
      const cfg = readFileSync(join(REPO, 'templates/starter/deploy/haproxy.cfg'), 'utf8')
        .replace('bind 127.0.0.1:8080', `bind 127.0.0.1:${frontPort}`)
        .replace(
          /server fn(\d) 127\.0\.0\.1:800\d/g,
          (_, n: string) => `server fn${n} 127.0.0.1:${ports[Number(n) - 1]}`,
        );
      for (const [i, p] of ports.entries()) expect(cfg).toContain(`server fn${i + 1} 127.0.0.1:${p}`);
      const cfgFile = join(work, 'haproxy.cfg');
      writeFileSync(cfgFile, cfg);
      haproxy = spawn('haproxy', ['-db', '-f', cfgFile], { stdio: ['ignore', 'ignore', 'pipe'] });
      front = `http://127.0.0.1:${frontPort}`;
      await until(
        async () => ((await fetch(`${front}/hello`)).status === 200 ? true : undefined),
        10_000,
        'HAProxy to serve',
      );
    }, 90_000);

    afterAll(async () => {
      haproxy?.kill('SIGKILL');
      platform?.kill('SIGTERM');
      await redis.stop();
    });

    it("claims a signed callback's nonce in Redis: a replay on another container is refused", async () => {
      const body = '{"event":"upload.finished","n":1}';
      const headers = { 'content-type': 'application/json', ...signCallback({ privateKey, body }) };
      const first = await fetch(`http://127.0.0.1:${ports[0]}/callback`, { method: 'POST', body, headers });
      expect(first.status).toBe(200);
      const replay = await fetch(`http://127.0.0.1:${ports[1]}/callback`, { method: 'POST', body, headers });
      expect(replay.status).toBe(401);
      expect(await replay.text()).toContain('SIGN_REPLAY');
    });

    it('calls the media API from the image: /videos and /media-tour through the balancer', async () => {
      const videos = await fetch(`${front}/videos?page=0`);
      expect(videos.status).toBe(200);
      expect(await videos.json()).toMatchObject({ page: 0 });
      const tour = await fetch(`${front}/media-tour`);
      expect(tour.status).toBe(200);
      const body = (await tour.json()) as { vid: string; play: unknown[] };
      expect(body.vid).toEqual(expect.any(String));
      expect(body.play.length).toBeGreaterThan(0);
    }, 60_000);

    it('restarts the three containers one after another under mixed load, losing nothing; a Redis outage fails only signed requests', async () => {
      const load = new Load(front, privateKey);
      const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
      const loops = load.start();
      // Every kind answered at least once before the first stop.
      await until(async () => (load.everyKindOk('before') ? true : undefined), 60_000, 'every kind to answer');
      const exits: string[] = [];
      for (const [i, container] of fleet.entries()) {
        await load.enter(`restart ${i + 1}`);
        // A request in flight on the container as it gets SIGTERM.
        const inflight = load.track('in flight', fetch(`http://127.0.0.1:${ports[i]}/slow?ms=2500`));
        await until(
          async () => {
            const res = await fetch(`http://127.0.0.1:${ports[i]}/_cloudfn/health`);
            return ((await res.json()) as { inflight: number }).inflight > 0 ? true : undefined;
          },
          5_000,
          'the request in flight',
        );
        await run('podman', ['stop', '--time', '20', container], { env });
        exits.push(podman('inspect', '--format', '{{.State.ExitCode}}', container).trim());
        await inflight;
        podman('start', container);
        await healthy(ports[i]!);
        // HAProxy's rise 2 at inter 1s: back in rotation within about 2 s.
        await pause(3000);
      }

      // Requests of restart 3 still waiting on Redis would fail with it and be counted there:
      // the outage begins once they have been answered.
      await load.enter('redis outage');
      await redis.stop();
      // A few seconds without Redis, until every kind has been answered in it and signed
      // requests have been refused a few times.
      await Promise.all([
        pause(4000),
        until(
          async () =>
            load.everyKindDone('redis outage') && load.failed('redis outage', 'signed') >= 3 ? true : undefined,
          60_000,
          'every kind to be answered during the outage',
        ),
      ]);
      await redis.start();
      // Back on the same port: each container's client reconnects; a signed callback sent to
      // each one directly says when.
      for (const p of ports)
        await until(
          async () => {
            const body = JSON.stringify({ event: 'probe', p, at: Date.now() });
            const res = await fetch(`http://127.0.0.1:${p}/callback`, {
              method: 'POST',
              body,
              headers: { 'content-type': 'application/json', ...signCallback({ privateKey, body }) },
            });
            return res.status === 200 ? true : undefined;
          },
          30_000,
          `the container on port ${p} to claim nonces in Redis again`,
        );

      await load.enter('after');
      await until(async () => (load.everyKindOk('after') ? true : undefined), 60_000, 'every kind to answer after');
      await load.stop(loops);

      // The per-phase counts, for the record of the run.
      process.stdout.write(`container fleet, per phase and kind (ok/failed):\n${load.table()}\n`);
      expect(exits).toEqual(['0', '0', '0']);
      // Every line of every container is JSON on stdout, the outage's two warnings included.
      for (const container of fleet) {
        const logs = spawnSync('podman', ['logs', container], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
        const lines = logs.stdout.split('\n').filter((line) => line !== '');
        expect(
          lines.filter((line) => !isJsonLine(line)),
          `${container}: lines on stdout that are not JSON`,
        ).toEqual([]);
        expect(logs.stderr.trim(), `${container}: stderr`).toBe('');
        // Down, then back: the recovery line after the outage line.
        const warnings = lines.filter((line) => line.includes('"level":"warn"') && line.includes('Redis at'));
        const down = warnings.findIndex((line) => line.includes('is unreachable'));
        const back = warnings.findIndex((line) => line.includes('is back; shared stores use it again'));
        expect({ down: down >= 0, back: back > down }, `${container}: ${warnings.join('\n')}`).toEqual({
          down: true,
          back: true,
        });
      }
      const outage = load.phases.get('redis outage')!;
      for (const [name, kinds] of load.phases) {
        for (const [kind, tally] of Object.entries(kinds)) {
          if (name === 'redis outage' && kind === 'signed') continue;
          expect(tally.failed, `${name}: ${kind}`).toEqual([]);
        }
      }
      // Only signed requests fail without Redis, and only as the documented 503.
      expect(outage.signed!.failed.length).toBeGreaterThanOrEqual(3);
      for (const failure of outage.signed!.failed) expect(failure).toMatch(/^503 .*FLEET_UNAVAILABLE/);
      for (const kind of ['GET', 'POST', 'videos'] as const)
        expect(outage[kind]!.ok, `redis outage: ${kind}`).toBeGreaterThan(0);
      expect(load.phases.get('after')!.signed!.ok).toBeGreaterThan(0);
      for (const name of ['restart 1', 'restart 2', 'restart 3']) {
        expect(load.phases.get(name)?.['in flight']?.ok, `${name}: in flight`).toBe(1);
        expect(load.total(name), name).toBeGreaterThan(10);
      }
    }, 300_000);
  });
});

/** Waits until a container answers its health path 200. */
async function healthy(p: number): Promise<void> {
  await until(
    async () => ((await fetch(`http://127.0.0.1:${p}/_cloudfn/health`)).status === 200 ? true : undefined),
    30_000,
    `the container on port ${p} to serve`,
  );
}

function isJsonLine(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

/**
 * `cloudfn platform`, the local emulator, on a free port, with simulated media and short job
 * steps. Returns the CLOUDFN_MEDIA_* settings it prints, with its key files read into PEM text:
 * the containers cannot see the host's files.
 */
async function startPlatform(data: string): Promise<{ child: ChildProcess; env: Record<string, string> }> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'platform',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data',
      data,
      '--no-ffmpeg',
      '--job-delay',
      '100',
      '--transcode-delay',
      '100',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  child.stderr!.resume();
  await until(
    async () => (out.includes('CLOUDFN_MEDIA_KEY_VERSION=') ? true : undefined),
    15_000,
    'the emulator to print its settings',
  );
  const settings: Record<string, string> = {};
  for (const [, key, value] of out.matchAll(/^\s+((?:CLOUDFN_MEDIA|CLOUDFN_PLATFORM)_[A-Z_]+)=(.+)$/gm)) {
    const keyFile = key === 'CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY' || key === 'CLOUDFN_MEDIA_PRIVATE_KEY';
    settings[key!] = keyFile ? readFileSync(value!, 'utf8') : value!;
  }
  expect(Object.keys(settings)).toContain('CLOUDFN_MEDIA_BASE_URL');
  return { child, env: settings };
}

const KINDS = ['GET', 'POST', 'signed', 'videos', 'media-tour'] as const;
type Kind = (typeof KINDS)[number];
type Tally = { ok: number; failed: string[] };

/**
 * Steady mixed load through the balancer, counted per phase (the phase a request started in)
 * and kind: GET and POST of /hello, signed POSTs of /callback, /videos (one media API call)
 * and /media-tour (upload, transcode, links). A failure keeps its status and the start of its body.
 */
class Load {
  phase = 'before';
  readonly phases = new Map<string, Partial<Record<Kind | 'in flight', Tally>>>();
  #stopped = false;
  #n = 0;
  /** The requests not yet answered, whatever their phase. */
  readonly #pending = new Set<Promise<void>>();
  readonly #front: string;
  readonly #key: KeyObject;

  constructor(front: string, key: KeyObject) {
    this.#front = front;
    this.#key = key;
  }

  /** Two loops each of GET, POST and signed POST, one each of the media calls. */
  start(): Promise<void>[] {
    return [...KINDS, 'GET', 'POST', 'signed'].map((kind) => this.#loop(kind as Kind));
  }

  async stop(loops: Promise<void>[]): Promise<void> {
    this.#stopped = true;
    await Promise.all(loops);
  }

  /**
   * Starts `phase` and resolves once every request started before it has been answered, so
   * what the test does next (stopping Redis) touches only requests counted under `phase`.
   */
  async enter(phase: string): Promise<void> {
    this.phase = phase;
    await Promise.all([...this.#pending]);
  }

  /** Counts `response` under the current phase, as `kind`. */
  async track(kind: Kind | 'in flight', response: Promise<Response>): Promise<void> {
    const counted = this.#count(this.#tally(this.phase, kind), response);
    this.#pending.add(counted);
    try {
      await counted;
    } finally {
      this.#pending.delete(counted);
    }
  }

  async #count(tally: Tally, response: Promise<Response>): Promise<void> {
    try {
      const res = await response;
      const text = await res.text();
      if (res.status === 200) tally.ok++;
      else tally.failed.push(`${res.status} ${text.slice(0, 160)}`);
    } catch (error) {
      tally.failed.push(`${(error as Error).cause ?? (error as Error).message}`);
    }
  }

  everyKindOk(phase: string): boolean {
    return KINDS.every((kind) => (this.phases.get(phase)?.[kind]?.ok ?? 0) > 0);
  }

  everyKindDone(phase: string): boolean {
    return KINDS.every((kind) => (this.phases.get(phase)?.[kind]?.ok ?? 0) + this.failed(phase, kind) > 0);
  }

  failed(phase: string, kind: Kind): number {
    return this.phases.get(phase)?.[kind]?.failed.length ?? 0;
  }

  total(phase: string): number {
    return Object.values(this.phases.get(phase) ?? {}).reduce((sum, t) => sum + t.ok + t.failed.length, 0);
  }

  /** The counts as a table: a row per phase, `ok/failed` per kind. */
  table(): string {
    const columns = [...KINDS, 'in flight'] as const;
    const rows = [['phase', ...columns]];
    for (const [name, kinds] of this.phases)
      rows.push([name, ...columns.map((kind) => `${kinds[kind]?.ok ?? 0}/${kinds[kind]?.failed.length ?? 0}`)]);
    return rows.map((row) => row.map((cell, i) => cell.padEnd(i === 0 ? 14 : 12)).join('')).join('\n');
  }

  #tally(phase: string, kind: Kind | 'in flight'): Tally {
    let kinds = this.phases.get(phase);
    if (kinds === undefined) this.phases.set(phase, (kinds = {}));
    return (kinds[kind] ??= { ok: 0, failed: [] });
  }

  #send(kind: Kind): Promise<Response> {
    const i = this.#n++;
    const json = { 'content-type': 'application/json' };
    switch (kind) {
      case 'GET':
        return fetch(`${this.#front}/hello?name=g${i}`);
      case 'POST':
        return fetch(`${this.#front}/hello`, {
          method: 'POST',
          body: JSON.stringify({ name: `p${i}` }),
          headers: json,
        });
      case 'signed': {
        const body = JSON.stringify({ event: 'load', i });
        const headers = { ...json, ...signCallback({ privateKey: this.#key, body }) };
        return fetch(`${this.#front}/callback`, { method: 'POST', body, headers });
      }
      case 'videos':
        return fetch(`${this.#front}/videos?page=0`);
      case 'media-tour':
        return fetch(`${this.#front}/media-tour`);
    }
  }

  async #loop(kind: Kind): Promise<void> {
    while (!this.#stopped) {
      await this.track(kind, this.#send(kind));
      // Steady and bounded: a few requests at a time, never a flood on two cores.
      await new Promise((resolve) => setTimeout(resolve, kind === 'videos' ? 50 : 20));
    }
  }
}
