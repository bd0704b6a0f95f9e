/**
 * A live game's WebSocket gateway across a fleet, for real: three `cloudfn start` processes
 * (the built CLI, `CLOUDFN_GATEWAY=1`, `CLOUDFN_REDIS_URL`) behind HAProxy (the starter's
 * template), one redis-server, and clients of the `ws` package connecting through HAProxy.
 * Pushes are made by a function calling the push API with plain fetch, on whichever process
 * HAProxy picks, so most cross processes. The phases run in order on the same fleet: many
 * sockets with every push delivered in order; kill -9 of a process; SIGSTOP past the liveness
 * timeout then SIGCONT; FLUSHALL and a Redis restart; a rolling restart under load. Each prints
 * its figures. `CLOUDFN_WS_FLEET_SOCKETS` sets the sockets per process (default 1000).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../testing/free-port.js';
import { fleetProject, type Instance, post, startInstance } from './fleet-instances.js';
import { hasRedis, RedisServer } from './redis-server.js';
import { Client, hasHaproxy, pool, PUSH_FN, quantile, rss, startDev, startHaproxy, WS_FN } from './ws-fleet-kit.js';

const PER_PROCESS = Number(process.env.CLOUDFN_WS_FLEET_SOCKETS ?? 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PushAnswer {
  envelope: { data: { failed_session_id_list?: string[] } | string; err_no: number; err_msg: string };
  ms: number;
  pid: number;
}

describe.skipIf(!hasRedis || !hasHaproxy)(
  'the WebSocket gateway on three cloudfn start processes behind HAProxy',
  () => {
    const redis = new RedisServer();
    let admin: Redis;
    let root: string;
    let work: string;
    let log: string;
    let env: NodeJS.ProcessEnv;
    let ports: number[] = [];
    const instances: Instance[] = [];
    let haproxy: Awaited<ReturnType<typeof startHaproxy>> | undefined;
    let clients: Client[] = [];

    const front = () => haproxy!.url;
    let startRssPerConnection: number[] = [];
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    const disconnects = (): string[][] =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' '));

    /** One push through HAProxy (any process): the ids that failed, and the push API's time. */
    async function push(
      sids: string[],
      data: string,
      url = front(),
    ): Promise<{ failed: string[]; ms: number; pid: number }> {
      const response = await post(`${url}/push`, JSON.stringify({ path: '/ws/push_data', sids, data }));
      const text = await response.text();
      const answer = JSON.parse(text) as PushAnswer;
      if (answer.envelope === undefined) throw new Error(`push answered ${response.status} ${text}`);
      if (answer.envelope.err_no !== 0)
        throw new Error(`push answered ${answer.envelope.err_no} ${answer.envelope.err_msg}`);
      const failed = (answer.envelope.data as { failed_session_id_list: string[] }).failed_session_id_list;
      return { failed, ms: answer.ms, pid: answer.pid };
    }

    /** Pushes `data(sid)` to every client, five sessions a call; answers the ids failed. */
    async function pushAll(
      targets: Client[],
      data: (c: Client) => string,
      limit = 16,
      url = front(),
    ): Promise<string[]> {
      const batches: Client[][] = [];
      for (let i = 0; i < targets.length; i += 5) batches.push(targets.slice(i, i + 5));
      const failed = await pool(batches, limit, async (batch) => {
        // One data per call: the same for the five (the per-session order is what is checked).
        const answer = await push(
          batch.map((c) => c.sid),
          data(batch[0]!),
          url,
        );
        return answer.failed;
      });
      return failed.flat();
    }

    function byPid(pid: number): Client[] {
      return clients.filter((c) => c.pid === pid);
    }

    async function restart(index: number): Promise<void> {
      instances[index] = await startInstance(root, env, ports[index]);
    }

    beforeAll(async () => {
      await redis.start();
      admin = new Redis(redis.url);
      admin.on('error', () => undefined);
      root = fleetProject();
      work = mkdtempSync(join(tmpdir(), 'cloudfn-ws-fleet-'));
      log = join(work, 'disconnects.log');
      writeFileSync(log, '');
      // The gateway's callback and the push caller only (the media function needs the emulator).
      rmSync(join(root, 'functions', 'media.ts'));
      rmSync(join(root, 'functions', 'callback.ts'));
      writeFileSync(join(root, 'functions', 'ws.ts'), WS_FN);
      writeFileSync(join(root, 'functions', 'push.ts'), PUSH_FN);
      env = {
        CLOUDFN_GATEWAY: '1',
        CLOUDFN_REDIS_URL: redis.url,
        WS_LOG: log,
        CLOUDFN_DRAIN_DELAY: '2000',
        // Each socket counts as a connection: at the default 1024 a process holding 1,000 refused
        // 40 of its 1,000 orphans' disconnect calls 503 CLOUDFN_TOO_MANY_CONNECTIONS (deploy.md).
        CLOUDFN_MAX_CONNECTIONS: '8192',
      };
      ports = [await freePort(), await freePort(), await freePort()];
      for (let i = 0; i < 3; i++) instances.push(await startInstance(root, env, ports[i]));
      haproxy = await startHaproxy(work, ports);
    }, 60_000);

    afterAll(async () => {
      for (const c of clients) c.close();
      haproxy?.child.kill('SIGKILL');
      // Every process gone before the folders go: a disconnect call still running would append
      // to the log inside the folder being removed (ENOTEMPTY).
      await Promise.all(
        instances.map((instance) => {
          if (instance.child.exitCode !== null || instance.child.signalCode !== null) return undefined;
          const exited = new Promise((resolve) => instance.child.once('exit', resolve));
          instance.child.kill('SIGCONT');
          instance.child.kill('SIGKILL');
          return exited;
        }),
      );
      admin?.disconnect();
      await redis.stop();
      if (root !== undefined) rmSync(root, { recursive: true, force: true });
      if (work !== undefined) await removeWork(work);
    });

    it(`upgrades through HAProxy: ${PER_PROCESS} sockets per process, every push delivered in order`, async () => {
      const before = instances.map((i) => rss(i.child.pid!));
      const redisBefore = await usedMemory();
      const started = Date.now();
      clients = await pool(
        Array.from({ length: PER_PROCESS * 3 }, (_, n) => n),
        50,
        (n) => new Client(front(), `user${n}`).open(),
      );
      const opened = Date.now() - started;
      const per = instances.map((i) => byPid(i.child.pid!).length);
      await sleep(1000);
      const after = instances.map((i) => rss(i.child.pid!));
      const perConnection = instances.map((_, k) => Math.round((after[k]! - before[k]!) / Math.max(1, per[k]!)));
      startRssPerConnection = perConnection;
      const redisPerSession = Math.round(((await usedMemory()) - redisBefore) / clients.length);
      console.log(`ws fleet: Redis used_memory per session ${redisPerSession} B`);
      console.log(
        `ws fleet: ${clients.length} sockets opened through HAProxy in ${opened} ms, per process ${per.join('/')}; RSS per connection ${perConnection.join('/')} B`,
      );
      expect(new Set(clients.map((c) => c.sid)).size).toBe(clients.length);
      for (const n of per) expect(n).toBeGreaterThan(PER_PROCESS / 2);

      const waves = 3;
      const startedPush = Date.now();
      for (let w = 0; w < waves; w++) {
        const failed = await pushAll(clients, () => `w${w}`);
        expect(failed).toEqual([]);
      }
      const pushed = Date.now() - startedPush;
      await waitFor('every frame', () => clients.every((c) => c.frames.length >= waves), 30_000);
      const wrong = clients.filter((c) => c.frames.join() !== 'w0,w1,w2');
      console.log(
        `ws fleet: ${waves} × ${clients.length} session pushes (5 a call, through HAProxy) in ${pushed} ms: ${clients.length * waves} delivered, 0 failed, ${wrong.length} out of order`,
      );
      expect(wrong).toEqual([]);
    }, 300_000);

    it('measures a push to another process against a local one, and a group push to every socket', async () => {
      // Directly at process 0: sessions it holds are local, the others remote.
      const url = instances[0]!.url;
      const local = byPid(instances[0]!.child.pid!).slice(0, 200);
      const remote = clients.filter((c) => c.pid !== instances[0]!.child.pid).slice(0, 200);
      const times = async (targets: Client[]) => {
        const ms: number[] = [];
        for (const c of targets) {
          const answer = await push([c.sid], 'lat', url);
          expect(answer.failed).toEqual([]);
          ms.push(answer.ms);
        }
        return ms;
      };
      await times(local.slice(0, 20));
      await times(remote.slice(0, 20));
      const l = await times(local);
      const r = await times(remote);
      const line = (ms: number[]) => `p50 ${quantile(ms, 0.5).toFixed(2)} ms, p99 ${quantile(ms, 0.99).toFixed(2)} ms`;
      console.log(
        `ws fleet: push API on one process, local session: ${line(l)}; session on another process: ${line(r)}`,
      );
      console.log(
        `ws fleet: cross-process overhead p50 ${(quantile(r, 0.5) - quantile(l, 0.5)).toFixed(2)} ms, p99 ${(quantile(r, 0.99) - quantile(l, 0.99)).toFixed(2)} ms`,
      );

      // Every socket joins group g=all, five a call; then 10 group pushes, each timed to its last socket.
      const batches: Client[][] = [];
      for (let i = 0; i < clients.length; i += 5) batches.push(clients.slice(i, i + 5));
      await pool(batches, 16, async (batch) => {
        const response = await post(
          `${front()}/push`,
          JSON.stringify({ path: '/ws/group/join', sids: batch.map((c) => c.sid), group: 'all' }),
        );
        const answer = (await response.json()) as PushAnswer;
        expect(answer.envelope.err_no).toBe(0);
      });
      const spans: number[] = [];
      for (let k = 0; k < 10; k++) {
        const tag = `g${k}`;
        const arrivals: number[] = [];
        const listeners = clients.map((c) => {
          const listener = (data: Buffer) => {
            if (data.toString() === tag) arrivals.push(performance.now());
          };
          c.socket.on('message', listener);
          return () => c.socket.off('message', listener);
        });
        const sent = performance.now();
        await post(`${front()}/push`, JSON.stringify({ path: '/ws/group/push_data', group: 'all', data: tag }));
        await waitFor(`group push ${k} to all`, () => arrivals.length === clients.length, 20_000);
        for (const off of listeners) off();
        spans.push(Math.max(...arrivals) - sent);
      }
      for (const c of clients) c.frames.length = 0;
      console.log(
        `ws fleet: group push to ${clients.length} sockets on 3 processes, time to the last socket: p50 ${quantile(spans, 0.5).toFixed(1)} ms, max ${Math.max(...spans).toFixed(1)} ms over ${spans.length}`,
      );
    }, 300_000);

    it('kill -9 of a process: pushes to its sessions fail within 15 s, one disconnect per orphan by a survivor', async () => {
      const victim = instances[2]!;
      const pid = victim.child.pid!;
      const orphans = byPid(pid);
      const before = disconnects().length;
      victim.child.kill('SIGKILL');
      const killed = Date.now();
      // Whatever this phase finds, the next ones run on three live processes.
      onTestFinished(async () => {
        for (const c of orphans) c.close();
        clients = clients.filter((c) => c.pid !== pid);
        await restart(2);
      });
      // From a survivor (HAProxy may still send a request to the dead one for a second or two).
      // Until the survivors see it dead its sessions are silent: each push fails at its deadline.
      const failed = await pushAll(orphans.slice(0, 50), () => 'to-the-dead', 16, instances[0]!.url);
      const answered = Date.now() - killed;
      expect(failed.sort()).toEqual(
        orphans
          .slice(0, 50)
          .map((c) => c.sid)
          .sort(),
      );
      expect(answered).toBeLessThan(15_000);
      await waitFor('a disconnect per orphan', () => disconnects().length - before >= orphans.length, 20_000).catch(
        (error: Error) => {
          const survivors = instances.filter((i) => i !== victim);
          const said = survivors.flatMap((i) => i.warnings().map((w) => String(w['msg']))).slice(-5);
          throw new Error(
            `${error.message}: ${disconnects().length - before} of ${orphans.length} disconnect calls; survivors warned ${JSON.stringify(said)}`,
          );
        },
      );
      const took = Date.now() - killed;
      await sleep(4000); // a late duplicate would show by now (more than a heartbeat)
      const lines = disconnects().slice(before);
      const counts = new Map<string, number>();
      for (const [sid] of lines) counts.set(sid!, (counts.get(sid!) ?? 0) + 1);
      const mine = orphans.map((c) => counts.get(c.sid) ?? 0);
      console.log(
        `ws fleet: kill -9 of a process with ${orphans.length} sessions: 50 pushes to them failed in ${answered} ms; ${lines.length} disconnect calls in ${took} ms, per orphan min ${Math.min(...mine)} max ${Math.max(...mine)}, by pids ${[...new Set(lines.map((l) => l[1]))].join(',')}`,
      );
      expect(took).toBeLessThan(15_000);
      expect(Math.min(...mine)).toBe(1);
      expect(Math.max(...mine)).toBe(1);
      expect(lines.some(([, by]) => by === String(pid))).toBe(false);
    }, 120_000);

    it('SIGSTOP past the liveness timeout, then SIGCONT: no push delivered twice, none reported failed delivered', async () => {
      const frozen = instances[1]!;
      const pid = frozen.child.pid!;
      const held = byPid(pid).slice(0, 100);
      for (const c of clients) c.frames.length = 0;
      frozen.child.kill('SIGSTOP');
      // Past 9 s of liveness and a 3 s heartbeat of reaping.
      await sleep(13_000);
      const failed = new Set(await pushAll(held, (c) => `stopped-${c.sid}`));
      frozen.child.kill('SIGCONT');
      await sleep(7000); // it beats, learns it was reaped, registers again
      const after = await pushAll(held, () => 'after');
      await sleep(2000);
      const twice = clients.filter((c) => new Set(c.frames).size !== c.frames.length);
      const lateFailed = held.filter((c) => failed.has(c.sid) && c.frames.some((f) => f.startsWith('stopped-')));
      console.log(
        `ws fleet: SIGSTOP 13 s then SIGCONT: ${failed.size} of ${held.length} pushes during the stop failed, ${lateFailed.length} of them delivered late; afterwards ${held.length - after.length} delivered, ${after.length} failed; sockets with a frame twice: ${twice.length}`,
      );
      expect(failed.size).toBe(held.length);
      expect(lateFailed).toEqual([]);
      expect(twice).toEqual([]);
    }, 120_000);

    it('FLUSHALL and a Redis restart: the registry is rebuilt within two heartbeats', async () => {
      const sample = instances.map((i) => byPid(i.child.pid!)[0]!).filter(Boolean);
      const rebuilt = async (what: string) => {
        const from = Date.now();
        await waitFor(
          `the registry after ${what}`,
          async () => {
            for (const c of sample) {
              const answer = await push([c.sid], 'back', instances.find((i) => i.child.pid !== c.pid)!.url);
              if (answer.failed.length > 0) return false;
            }
            return true;
          },
          20_000,
        );
        return Date.now() - from;
      };
      await admin.flushall();
      const afterFlush = await rebuilt('FLUSHALL');
      await redis.stop();
      const down = await push([sample[0]!.sid], 'down', instances.find((i) => i.child.pid !== sample[0]!.pid)!.url);
      await redis.start();
      const afterRestart = await rebuilt('a restart');
      console.log(
        `ws fleet: registry rebuilt ${afterFlush} ms after FLUSHALL and ${afterRestart} ms after redis-server came back (heartbeat 3000 ms); a push while Redis was down answered in ${down.ms.toFixed(0)} ms, failed ${down.failed.length}`,
      );
      expect(afterFlush).toBeLessThan(2 * 3000 + 1500);
      expect(afterRestart).toBeLessThan(2 * 3000 + 3500);
      expect(down.ms).toBeLessThan(2000);
    }, 120_000);

    it('a rolling restart under load: no push hangs, clients reconnect', async () => {
      for (const c of clients) c.reconnecting();
      let stop = false;
      const durations: number[] = [];
      let failures = 0;
      const load = (async () => {
        while (!stop) {
          const batch = clients.filter((c) => c.open_).slice(0, 5);
          const started = Date.now();
          try {
            const answer = await push(
              batch.map((c) => c.sid),
              'roll',
            );
            failures += answer.failed.length;
          } catch {
            failures += batch.length;
          }
          durations.push(Date.now() - started);
        }
      })();
      const reconnected: number[] = [];
      for (let i = 0; i < 3; i++) {
        const pid = instances[i]!.child.pid!;
        const exited = new Promise((resolve) => instances[i]!.child.once('exit', resolve));
        instances[i]!.child.kill('SIGTERM');
        await exited;
        await restart(i);
        await sleep(3000);
        reconnected.push(clients.filter((c) => c.previous.length > 0 && c.pid !== pid).length);
      }
      await waitFor('every client connected again', () => clients.every((c) => c.open_), 150_000);
      stop = true;
      await load;
      const closes1001 = clients.filter((c) => c.closes.includes(1001)).length;
      console.log(
        `ws fleet: rolling restart of 3 processes: ${durations.length} pushes during it, slowest ${Math.max(...durations)} ms (p99 ${quantile(durations, 0.99)} ms), ${failures} session pushes failed; ${closes1001} clients closed with 1001, all ${clients.length} connected again`,
      );
      expect(Math.max(...durations)).toBeLessThan(10_000);
      expect(closes1001).toBeGreaterThan(0);
    }, 300_000);

    it('measures memory per connection against the dev gateway', async () => {
      const dev = await startDev(root, { WS_LOG: log });
      try {
        const pid = dev.child.pid!;
        const before = rss(pid);
        const devClients = await pool(
          Array.from({ length: PER_PROCESS }, (_, n) => n),
          50,
          (n) => new Client(dev.url, `dev${n}`).open(),
        );
        await sleep(1000);
        const perConnection = Math.round((rss(pid) - before) / devClients.length);
        for (const c of devClients) c.close();
        const fleet = startRssPerConnection.reduce((a, b) => a + b, 0) / startRssPerConnection.length;
        console.log(
          `ws fleet: RSS per connection, cloudfn dev's gateway ${perConnection} B (${devClients.length} sockets); cloudfn start on Redis ${Math.round(fleet)} B: ${(fleet / perConnection).toFixed(2)}×`,
        );
        expect(devClients).toHaveLength(PER_PROCESS);
      } finally {
        const exited = new Promise((resolve) => dev.child.once('exit', resolve));
        dev.child.kill('SIGKILL');
        await exited;
      }
    }, 120_000);
  },
);

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Removes the test's folder. A file written into it while it goes (a straggling write of a
 * process being killed) makes rmdir fail with ENOTEMPTY: tried again after a pause, then left
 * for the system's temp cleaning with its contents named, rather than failing the phases.
 */
async function removeWork(work: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      rmSync(work, { recursive: true, force: true });
      return;
    } catch (error) {
      if (attempt >= 5) {
        console.warn(`left ${work}: ${(error as Error).message}; holds ${readdirSync(work).join(', ')}`);
        return;
      }
      await sleep(500);
    }
  }
}
