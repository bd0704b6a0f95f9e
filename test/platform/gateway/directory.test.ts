/**
 * The gateway and its session directory: a session is reported before its connect call and
 * removed when it ends; a directory that cannot record it refuses the client with 503 before
 * any call of the function; the push API answers through the directory (a session another
 * process holds is pushed to and queried); a directory's failure is a 503 of the push route.
 */
import { describe, expect, it } from 'vitest';
import { LocalDirectory } from '../../../src/fleet/ws/local-directory.js';
import type { SessionDirectory, SessionInfo } from '../../../src/fleet/ws/session-directory.js';
import { Gateway, type AppCall } from '../../../src/platform/gateway/gateway.js';
import { handlePush } from '../../../src/platform/gateway/push-api.js';

const identity = { appid: 'tt1', envId: 'env', serviceId: 'svc' };

/** A directory that knows one remote session, `r1` of `bob`, and logs what it is told. */
function remoteAware(local: ConstructorParameters<typeof LocalDirectory>[0], log: string[]): SessionDirectory {
  const base = new LocalDirectory(local);
  const remote: SessionInfo = {
    sessionId: 'r1',
    openid: 'bob',
    path: '/elsewhere',
    functionName: undefined,
    ip: '10.0.0.2',
    connectedAt: 0,
    groups: [],
  };
  return Object.assign(Object.create(base) as SessionDirectory, {
    added: async (info: SessionInfo) => void log.push(`added ${info.sessionId}`),
    removed: async (id: string) => void log.push(`removed ${id}`),
    sessionsOf: async (openid: string) => (openid === 'bob' ? ['r1'] : base.sessionsOf(openid)),
    query: async (id: string) => (id === 'r1' ? remote : base.query(id)),
    pushSessions: async (ids: readonly string[], data: Buffer) => {
      log.push(`push ${ids.join(',')} ${data.toString()}`);
      return ids.filter((id) => id !== 'r1' && local.session(id) === undefined);
    },
  });
}

describe('the gateway and its directory', () => {
  it('reports a session before its connect call and removes it when it closes', async () => {
    const log: string[] = [];
    const gateway = new Gateway({
      identity,
      call: async (call: AppCall) => {
        log.push(`call ${call.headers['x-tt-event-type']}`);
        return { status: 200, headers: {}, body: Buffer.alloc(0) };
      },
      directory: (local) => remoteAware(local, log),
    });
    const opened = await gateway.open({ path: '/ws', openid: 'ann', ip: '127.0.0.1' });
    if (!opened.ok) throw new Error('refused');
    await gateway.closed(opened.sessionId, 1000, '');
    expect(log).toEqual([
      `added ${opened.sessionId}`,
      'call connect',
      `removed ${opened.sessionId}`,
      'call disconnect',
    ]);
  });

  it('refuses a client with 503 when the directory cannot record it, calling no function', async () => {
    const calls: AppCall[] = [];
    const gateway = new Gateway({
      identity,
      call: async (call) => {
        calls.push(call);
        return { status: 200, headers: {}, body: Buffer.alloc(0) };
      },
      directory: (local) =>
        Object.assign(new LocalDirectory(local), {
          added: async () => {
            throw new Error('Redis did not answer in 1000 ms');
          },
        }),
    });
    const opened = await gateway.open({ path: '/ws', openid: 'ann', ip: '127.0.0.1' });
    expect(opened.ok).toBe(false);
    expect(opened.answer.status).toBe(503);
    expect(JSON.parse(opened.answer.body.toString())).toMatchObject({
      err_no: 50300,
      err_msg: 'the session directory failed: Redis did not answer in 1000 ms; retry',
    });
    expect(calls).toEqual([]);
    expect(gateway.list()).toEqual([]);
  });

  it('answers the push API through the directory: a remote session is pushed to and queried', async () => {
    const log: string[] = [];
    const gateway = new Gateway({
      identity,
      call: async () => ({ status: 200, headers: {}, body: Buffer.alloc(0) }),
      directory: (local) => remoteAware(local, log),
    });
    const pushed = await handlePush(gateway, {
      method: 'POST',
      path: '/ws/push_data',
      headers: { 'x-tt-ws-openids': '["bob","nobody"]' },
      body: Buffer.from('hi'),
    });
    expect(pushed.body).toEqual({ data: { failed_session_id_list: ['nobody'] }, err_msg: 'success', err_no: 0 });
    expect(log).toContain('push r1 hi');
    const queried = await handlePush(gateway, {
      method: 'POST',
      path: '/ws/query_info',
      headers: { 'x-tt-ws-sessionids': '["r1"]' },
      body: Buffer.alloc(0),
    });
    expect(queried.body.data).toEqual({
      r1: { AppID: 'tt1', ServiceID: 'svc', EnvID: 'env', BackendPath: '/elsewhere', SessionID: 'r1', OpenID: 'bob' },
    });
  });
});
