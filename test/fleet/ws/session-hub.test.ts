/**
 * The `--workers` session directory in process: a SessionHub (the primary) and WorkerDirectory
 * instances (the workers) joined by an in-memory IPC channel that delivers each message on a
 * later turn, as the cluster's does. Each worker's gateway is a map of sessions recording what
 * it delivered. Covers routing to the owner, unknown and closed sessions failed, a silent owner
 * failed within the deadline and never delivered twice, a dead owner failed at once, orphans
 * given to one survivor, group membership and broadcast, and conn ids across workers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalSessions, SessionInfo } from '../../../src/fleet/ws/session-directory.js';
import { OWNER_DEADLINE_MS, PUSH_DEADLINE_MS } from '../../../src/fleet/ws/hub-channel.js';
import { SessionHub } from '../../../src/fleet/ws/session-hub.js';
import { WorkerDirectory } from '../../../src/fleet/ws/worker-directory.js';
import { until } from '../../testing/until.js';

/** A worker's gateway: its sessions, groups and every frame delivered. */
class FakeGateway implements LocalSessions {
  readonly sessions = new Map<string, SessionInfo>();
  readonly delivered: { id: string; text: string }[] = [];
  readonly orphans: string[] = [];

  deliver(sessionId: string, data: Buffer): boolean {
    if (!this.sessions.has(sessionId)) return false;
    this.delivered.push({ id: sessionId, text: data.toString() });
    return true;
  }
  group(action: 'join' | 'leave', ids: readonly string[], name: string, value: string): string[] {
    const label = `${name}=${value}`;
    return ids.filter((id) => {
      const info = this.sessions.get(id);
      if (info === undefined) return true;
      info.groups = action === 'join' ? [...info.groups, label] : info.groups.filter((g) => g !== label);
      return false;
    });
  }
  session(id: string): SessionInfo | undefined {
    return this.sessions.get(id);
  }
  sessionsOf(openid: string): string[] {
    return [...this.sessions.values()].filter((s) => s.openid === openid).map((s) => s.sessionId);
  }
  groupMembers(name: string, value: string): string[] {
    return [...this.sessions.values()].filter((s) => s.groups.includes(`${name}=${value}`)).map((s) => s.sessionId);
  }
  list(): SessionInfo[] {
    return [...this.sessions.values()];
  }
  async orphaned(info: SessionInfo): Promise<void> {
    this.orphans.push(info.sessionId);
  }
}

interface FakeWorker {
  id: number;
  gateway: FakeGateway;
  directory: WorkerDirectory;
  /** Messages to this worker wait until it resumes (a process under SIGSTOP). */
  silent: boolean;
  resume(): void;
  connected: boolean;
  open(id: string, openid?: string): Promise<void>;
}

const later = (fn: () => void): void => void setImmediate(fn);

function cluster(count: number): { hub: SessionHub; workers: FakeWorker[] } {
  const hub = new SessionHub();
  const workers: FakeWorker[] = [];
  for (let id = 1; id <= count; id++) {
    const listeners = new Set<(message: unknown) => void>();
    const gateway = new FakeGateway();
    const worker = {
      id,
      gateway,
      silent: false,
      connected: true,
    } as FakeWorker;
    const held: unknown[] = [];
    worker.resume = () => {
      worker.silent = false;
      for (const message of held.splice(0)) for (const listener of listeners) listener(message);
    };
    const handle = {
      id,
      isConnected: () => worker.connected,
      send: (message: unknown, callback: (error: Error | null) => void) => {
        later(() => {
          if (worker.silent) held.push(message);
          else if (worker.connected) for (const listener of listeners) listener(message);
          callback(null);
        });
        return true;
      },
    };
    worker.directory = new WorkerDirectory(gateway, {
      send: (message) => {
        if (!worker.connected) return false;
        later(() => {
          if (!worker.silent) hub.channel(handle as never).receive(message as never);
        });
        return true;
      },
      onMessage: (listener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    });
    worker.open = async (sessionId, openid = `user-${sessionId}`) => {
      const info: SessionInfo = {
        sessionId,
        openid,
        path: '/game',
        functionName: 'game',
        ip: '127.0.0.1',
        connectedAt: 0,
        groups: [],
      };
      gateway.sessions.set(sessionId, info);
      await worker.directory.added(info);
    };
    (worker as FakeWorker & { handle: typeof handle }).handle = handle;
    workers.push(worker);
  }
  return { hub, workers };
}

const handleOf = (worker: FakeWorker) => (worker as FakeWorker & { handle: never }).handle;

let made: FakeWorker[] = [];
afterEach(async () => {
  for (const worker of made) {
    worker.silent = false;
    worker.connected = false;
  }
  made = [];
});

describe('the session hub of --workers', () => {
  it("routes a push to each session's owner and lists unknown and closed ones failed", async () => {
    const { workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    await one.open('11');
    await two.open('21');
    await two.open('22');
    const failed = await one.directory.pushSessions(['11', '21', '404'], Buffer.from('hi'), false, 'session');
    expect(failed).toEqual(['404']);
    expect(one.gateway.delivered).toEqual([{ id: '11', text: 'hi' }]);
    expect(two.gateway.delivered).toEqual([{ id: '21', text: 'hi' }]);
    // Closed on its worker but not yet removed from the registry: the owner says so.
    two.gateway.sessions.delete('22');
    expect(await one.directory.pushSessions(['22'], Buffer.from('x'), false, 'session')).toEqual(['22']);
    await two.directory.removed('22');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await one.directory.query('22')).toBeUndefined();
    expect(await one.directory.query('21')).toMatchObject({ sessionId: '21', openid: 'user-21', path: '/game' });
    expect(await one.directory.sessionsOf('user-21')).toEqual(['21']);
  });

  it('fails the sessions of a silent owner within the deadline, and never delivers them later', async () => {
    const { workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    await two.open('21');
    two.silent = true;
    const started = Date.now();
    const failed = await one.directory.pushSessions(['21'], Buffer.from('late'), false, 'session');
    const took = Date.now() - started;
    expect(failed).toEqual(['21']);
    expect(took).toBeGreaterThanOrEqual(OWNER_DEADLINE_MS - 50);
    expect(took).toBeLessThan(PUSH_DEADLINE_MS + 1000);
    // Resumed, it reads the request it was sent: too late, so it delivers nothing.
    two.resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(two.gateway.delivered).toEqual([]);
    // And it serves the next push as usual.
    expect(await one.directory.pushSessions(['21'], Buffer.from('now'), false, 'session')).toEqual([]);
    expect(two.gateway.delivered).toEqual([{ id: '21', text: 'now' }]);
  });

  it("fails a dead worker's pushes at once and gives its sessions to one survivor", async () => {
    const { hub, workers } = cluster(3);
    made = workers;
    const [one, two, three] = workers as [FakeWorker, FakeWorker, FakeWorker];
    await one.open('11');
    await two.open('21');
    await two.open('22');
    await three.open('31');
    two.connected = false;
    hub.workerGone(2, [handleOf(one), handleOf(three)]);
    await until(() => (one.gateway.orphans.length === 2 ? true : undefined), 5000, 'the orphans');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(one.gateway.orphans.sort()).toEqual(['21', '22']);
    expect(three.gateway.orphans).toEqual([]);
    expect(await three.directory.pushSessions(['21', '31'], Buffer.from('x'), false, 'session')).toEqual(['21']);
    expect(await three.directory.sessionsOf('user-22')).toEqual([]);
  });

  it('keeps group membership across workers and broadcasts once to each member', async () => {
    const { workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    await one.open('11');
    await two.open('21');
    expect(await one.directory.grouped('join', ['11', '21', '404'], 'room', 'red')).toEqual(['404']);
    expect((await one.directory.groupMembers('room', 'red')).sort()).toEqual(['11', '21']);
    await one.directory.pushGroup('room', 'red', Buffer.from('all'), false);
    await until(() => (two.gateway.delivered.length > 0 ? true : undefined), 5000, "the other worker's frame");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(one.gateway.delivered).toEqual([{ id: '11', text: 'all' }]);
    expect(two.gateway.delivered).toEqual([{ id: '21', text: 'all' }]);
    expect(await two.directory.grouped('leave', ['11'], 'room', 'red')).toEqual([]);
    expect(await two.directory.groupMembers('room', 'red')).toEqual(['21']);
    expect(await two.directory.query('11')).toMatchObject({ groups: [] });
  });

  it("refuses a session id another worker already holds, keeping the first one's record", async () => {
    const { workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    await one.open('11');
    await expect(two.open('11')).rejects.toThrow("session id 11 is already worker 1's");
    // The refused gateway forgets its session (gateway.ts answers its client 503).
    two.gateway.sessions.delete('11');
    expect(await two.directory.pushSessions(['11'], Buffer.from('x'), false, 'session')).toEqual([]);
    expect(one.gateway.delivered).toEqual([{ id: '11', text: 'x' }]);
  });

  it('takes a conn id on one worker that another issued, once', async () => {
    const { workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    const id = await one.directory.issueConnId();
    expect(await two.directory.takeConnId(id, true)).toBe('ok');
    expect(await one.directory.takeConnId(id, true)).toBe('used');
    expect(await two.directory.takeConnId('c-never', true)).toBe('unknown');
  });

  it('removes a closing worker’s records, so no orphan is left behind', async () => {
    const { hub, workers } = cluster(2);
    made = workers;
    const [one, two] = workers as [FakeWorker, FakeWorker];
    await two.open('21');
    await two.directory.close();
    hub.workerGone(2, [handleOf(one)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(one.gateway.orphans).toEqual([]);
    expect(await one.directory.query('21')).toBeUndefined();
  });
});
