/**
 * The Redis session directory's logic against a real redis-server: three directories in this
 * process, each with a fake gateway (LocalSessions) and its own path to Redis through a proxy
 * that can freeze (a SIGSTOPped process) or cut (kill -9) it. Heartbeats are shrunk to 200 ms
 * (liveness 600 ms) and the push deadline to 300 ms; bounds are generous multiples of them.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClients } from '../../src/fleet/connect.js';
import { resolveRedisSettings } from '../../src/fleet/settings.js';
import { RedisSessionDirectory } from '../../src/fleet/ws/redis-directory.js';
import type { LocalSessions, PushVia, SessionInfo } from '../../src/fleet/ws/session-directory.js';
import { hasRedis, RedisServer } from './redis-server.js';
import { TcpProxy } from './tcp-proxy.js';

const HEARTBEAT = 200;
const PUSH_TIMEOUT = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => T | Promise<T>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A gateway's sessions, in memory: what it was sent, and the orphans it was handed. */
class FakeGateway implements LocalSessions {
  readonly sessions = new Map<string, SessionInfo>();
  readonly received: { sessionId: string; data: string; via: PushVia }[] = [];
  readonly orphans: SessionInfo[] = [];

  open(sessionId: string, openid = `u-${sessionId}`): SessionInfo {
    const info: SessionInfo = {
      sessionId,
      openid,
      path: '/ws',
      functionName: 'ws',
      ip: '127.0.0.1',
      connectedAt: Date.now(),
      groups: [],
    };
    this.sessions.set(sessionId, info);
    return info;
  }

  dataOf(sessionId: string): string[] {
    return this.received.filter((r) => r.sessionId === sessionId).map((r) => r.data);
  }

  deliver(sessionId: string, data: Buffer, _binary: boolean, via: PushVia): boolean {
    if (!this.sessions.has(sessionId)) return false;
    this.received.push({ sessionId, data: data.toString(), via });
    return true;
  }

  group(action: 'join' | 'leave', ids: readonly string[], name: string, value: string): string[] {
    const missing: string[] = [];
    for (const id of ids) {
      const info = this.sessions.get(id);
      if (info === undefined) {
        missing.push(id);
        continue;
      }
      const key = `${name}=${value}`;
      info.groups = info.groups.filter((g) => g !== key);
      if (action === 'join') info.groups.push(key);
    }
    return missing;
  }

  session(sessionId: string): SessionInfo | undefined {
    const info = this.sessions.get(sessionId);
    return info === undefined ? undefined : { ...info, groups: [...info.groups] };
  }

  sessionsOf(openid: string): string[] {
    return [...this.sessions.values()].filter((s) => s.openid === openid).map((s) => s.sessionId);
  }

  groupMembers(name: string, value: string): string[] {
    return [...this.sessions.values()].filter((s) => s.groups.includes(`${name}=${value}`)).map((s) => s.sessionId);
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => ({ ...s, groups: [...s.groups] }));
  }

  async orphaned(info: SessionInfo): Promise<void> {
    this.orphans.push(info);
  }
}

interface Node {
  gateway: FakeGateway;
  directory: RedisSessionDirectory;
  proxy: TcpProxy;
  warnings: string[];
}

describe.skipIf(!hasRedis)('RedisSessionDirectory against redis-server', () => {
  const redis = new RedisServer();
  let admin: Redis;
  let prefix = 0;
  let nodes: Node[] = [];

  beforeAll(async () => {
    await redis.start();
    admin = new Redis(redis.url);
    admin.on('error', () => undefined);
  }, 20_000);

  afterEach(async () => {
    for (const node of nodes) {
      await node.directory.close();
      await node.proxy.close();
    }
    nodes = [];
    await closeRedisClients();
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis.stop();
  });

  /** `count` processes, each with its own proxy (its own connections) and a fresh key prefix. */
  async function fleet(count: number, streamMaxLen = 1000, heartbeatMs = HEARTBEAT): Promise<Node[]> {
    prefix += 1;
    for (let i = 0; i < count; i++) {
      const proxy = await new TcpProxy(redis.port).start();
      const settings = resolveRedisSettings({
        option: proxy.url,
        env: { CLOUDFN_REDIS_PREFIX: `t${prefix}:` },
      })!;
      const gateway = new FakeGateway();
      const warnings: string[] = [];
      const directory = new RedisSessionDirectory(gateway, settings, {
        heartbeatMs,
        pushTimeoutMs: PUSH_TIMEOUT,
        streamMaxLen,
        env: {},
        warn: (message) => void warnings.push(message),
      });
      nodes.push({ gateway, directory, proxy, warnings });
    }
    return nodes;
  }

  async function open(node: Node, sessionId: string, openid?: string): Promise<void> {
    await node.directory.added(node.gateway.open(sessionId, openid));
  }

  it('delivers a push to a session of another process, and fails an unknown id', async () => {
    const [a, b] = await fleet(2);
    await open(a!, 'a1');
    await open(b!, 'b1');
    expect(await a!.directory.pushSessions(['a1', 'b1', 'nobody'], Buffer.from('hi'), false, 'session')).toEqual([
      'nobody',
    ]);
    expect(a!.gateway.dataOf('a1')).toEqual(['hi']);
    expect(b!.gateway.dataOf('b1')).toEqual(['hi']);
    // In order per session: 200 pushes sent at once from one process arrive in sending order.
    const sent = Array.from({ length: 200 }, (_, n) => `m${n}`);
    const failed = await Promise.all(
      sent.map((m) => a!.directory.pushSessions(['b1'], Buffer.from(m), false, 'session')),
    );
    expect(failed.flat()).toEqual([]);
    expect(b!.gateway.dataOf('b1').slice(1)).toEqual(sent);
  });

  it('answers queries and groups across processes; a remote join is in force when it resolves', async () => {
    const [a, b] = await fleet(2);
    await open(a!, 'a1', 'alice');
    await open(b!, 'b1', 'alice');
    await open(b!, 'b2', 'bob');
    expect((await a!.directory.sessionsOf('alice')).sort()).toEqual(['a1', 'b1']);
    expect((await a!.directory.query('b2'))?.openid).toBe('bob');
    expect(await a!.directory.query('zzz')).toBeUndefined();
    expect(await a!.directory.grouped('join', ['a1', 'b1', 'b2', 'gone'], 'room', '7')).toEqual(['gone']);
    expect(b!.gateway.groupMembers('room', '7').sort()).toEqual(['b1', 'b2']);
    expect((await a!.directory.query('b1'))?.groups).toEqual(['room=7']);
    expect((await b!.directory.groupMembers('room', '7')).sort()).toEqual(['a1', 'b1', 'b2']);
    await a!.directory.pushGroup('room', '7', Buffer.from('all'), false);
    expect(a!.gateway.dataOf('a1')).toEqual(['all']);
    await until(
      'the broadcast on b',
      () => b!.gateway.dataOf('b1').length === 1 && b!.gateway.dataOf('b2').length === 1,
    );
    expect(b!.gateway.received.every((r) => r.via === 'group')).toBe(true);
    expect(await a!.directory.grouped('leave', ['b2'], 'room', '7')).toEqual([]);
    expect(await a!.directory.groupMembers('room', '7')).not.toContain('b2');
  });

  it('shares connection ids: issued on one process, taken once on another', async () => {
    const [a, b] = await fleet(2);
    const id = await a!.directory.issueConnId();
    expect(await b!.directory.takeConnId(id, true)).toBe('ok');
    expect(await a!.directory.takeConnId(id, true)).toBe('used');
    expect(await b!.directory.takeConnId('c-never', true)).toBe('unknown');
  });

  it('a killed process: pushes to it fail within the deadline, one survivor disconnects each session once', async () => {
    const [a, b, c] = await fleet(3);
    for (let n = 0; n < 50; n++) await open(c!, `c${n}`);
    await open(a!, 'a1');
    c!.proxy.kill();
    const started = Date.now();
    const failed = await a!.directory.pushSessions(['c1', 'c2', 'a1'], Buffer.from('x'), false, 'session');
    const took = Date.now() - started;
    expect(failed.sort()).toEqual(['c1', 'c2']);
    expect(took).toBeLessThan(PUSH_TIMEOUT * 3);
    // Liveness 600 ms, reaping at every 200 ms heartbeat: within 1 s; allowed 5 s.
    const reaped = await until('the orphans', () => a!.gateway.orphans.length + b!.gateway.orphans.length >= 50);
    expect(reaped).toBe(true);
    await sleep(HEARTBEAT * 4);
    const orphans = [...a!.gateway.orphans, ...b!.gateway.orphans].map((o) => o.sessionId).sort();
    expect(orphans).toEqual(Array.from({ length: 50 }, (_, n) => `c${n}`).sort());
    expect(new Set(orphans).size).toBe(50);
    expect(await a!.directory.query('c3')).toBeUndefined();
    // Its records and streams are gone; only the live processes remain.
    const left = await admin.keys(`t${prefix}:ws:*`);
    expect(left.filter((k) => k.includes(':s:c') || k.includes(c!.directory.processId))).toEqual([
      `t${prefix}:ws:dead:${c!.directory.processId}`,
    ]);
  });

  it('a process frozen past its liveness: pushes fail, nothing is delivered twice or late, it registers again', async () => {
    const [a, b] = await fleet(2);
    await open(b!, 'b1');
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('before'), false, 'session')).toEqual([]);
    b!.proxy.freeze();
    const failed: string[] = [];
    for (let n = 0; n < 10; n++) {
      const m = `frozen${n}`;
      if ((await a!.directory.pushSessions(['b1'], Buffer.from(m), false, 'session')).length > 0) failed.push(m);
    }
    expect(failed).toHaveLength(10);
    await until('b1 reaped', () => a!.gateway.orphans.length === 1);
    b!.proxy.thaw();
    // It learns it was reaped and registers its still-open session again, under a new id.
    await until('b1 registered again', async () => (await a!.directory.query('b1')) !== undefined);
    expect(b!.warnings.join('\n')).toMatch(/declared dead/);
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('after'), false, 'session')).toEqual([]);
    await sleep(PUSH_TIMEOUT);
    expect(b!.gateway.dataOf('b1')).toEqual(['before', 'after']);
    expect(a!.gateway.orphans).toHaveLength(1);
  });

  it('FLUSHALL: every process registers its sessions again within two heartbeats', async () => {
    const [a, b] = await fleet(2);
    await open(a!, 'a1');
    await open(b!, 'b1');
    await a!.directory.grouped('join', ['b1'], 'room', '1');
    await admin.flushall();
    const flushed = Date.now();
    await until('b1 back', async () => (await a!.directory.query('b1')) !== undefined);
    await until('a1 back', async () => (await b!.directory.query('a1')) !== undefined);
    const took = Date.now() - flushed;
    console.log(`directory: registry rebuilt ${took} ms after FLUSHALL (heartbeat ${HEARTBEAT} ms)`);
    expect(took).toBeLessThanOrEqual(2 * HEARTBEAT + 200);
    expect((await a!.directory.query('b1'))?.groups).toEqual(['room=1']);
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('y'), false, 'session')).toEqual([]);
    expect(a!.gateway.orphans).toEqual([]);
  });

  it('Redis restarted: pushes fail within their deadline meanwhile, then the registry is rebuilt', async () => {
    const [a, b] = await fleet(2);
    await open(b!, 'b1');
    await redis.stop();
    const started = Date.now();
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('z'), false, 'session')).toEqual(['b1']);
    expect(Date.now() - started).toBeLessThan(PUSH_TIMEOUT * 3);
    await redis.start();
    const back = Date.now();
    await until('b1 back', async () => (await a!.directory.query('b1')) !== undefined, 10_000);
    // Two heartbeats, plus the client's reconnection back-off (up to 2 s).
    console.log(`directory: registry rebuilt ${Date.now() - back} ms after redis-server came back`);
    expect(Date.now() - back).toBeLessThan(2 * HEARTBEAT + 2500);
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('w'), false, 'session')).toEqual([]);
    expect(b!.gateway.dataOf('b1')).toEqual(['w']);
  }, 20_000);

  it('an owner that reads nothing: every push fails, its inbox stays capped and Redis memory flat', async () => {
    // A 5 s heartbeat: the frozen owner stays alive (not reaped) through the bursts.
    const [a, b] = await fleet(2, 100, 5000);
    await open(b!, 'b1');
    b!.proxy.freeze();
    const inbox = `t${prefix}:ws:in:${b!.directory.processId}`;
    const burst = async (n: number) => {
      const results = await Promise.all(
        Array.from({ length: n }, () => a!.directory.pushSessions(['b1'], Buffer.alloc(1000, 97), false, 'session')),
      );
      return results.filter((r) => r.length > 0).length;
    };
    expect(await burst(500)).toBe(500);
    const first = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    expect(await burst(500)).toBe(500);
    expect(await burst(500)).toBe(500);
    const last = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    const length = await admin.xlen(inbox);
    console.log(
      `directory: inbox of a frozen owner after 1500 pushes: ${length} entries; used_memory ${first} -> ${last}`,
    );
    // Capped at 100 (approximate trimming keeps up to a node more).
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThanOrEqual(200);
    expect(last - first).toBeLessThan(500_000);
    // Thawed, it reads what is left of its inbox: each entry is past its deadline, reported
    // failed, so none is delivered late; a new push is.
    b!.proxy.thaw();
    expect(await a!.directory.pushSessions(['b1'], Buffer.from('new'), false, 'session')).toEqual([]);
    expect(b!.gateway.dataOf('b1')).toEqual(['new']);
  }, 20_000);

  it('a stopping process removes its records and answers what waits in its inbox', async () => {
    const [a, b] = await fleet(2);
    await open(b!, 'b1');
    b!.proxy.freeze();
    const pending = a!.directory.pushSessions(['b1'], Buffer.from('late'), false, 'session');
    await sleep(50);
    // Its gateway closed the socket first (the sockets close, then the directory).
    b!.gateway.sessions.clear();
    b!.proxy.thaw();
    await b!.directory.close();
    expect(await pending).toEqual(['b1']);
    expect(await a!.directory.query('b1')).toBeUndefined();
    const left = await admin.keys(`t${prefix}:ws:*${b!.directory.processId}*`);
    expect(left).toEqual([]);
    await sleep(HEARTBEAT * 5);
    expect(a!.gateway.orphans).toEqual([]);
  });
});
