/**
 * Acting as the gateway's user from tests and client code: `invoke(..., { user })` on a
 * root-layout project, and `callContainer({ user })` against a server that trusts the gateway.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { type RunningServer, startProject } from '../../runtime/serve/start.js';
import { createCompileHook } from '../../src/build/compile.js';
import { createContainerClient } from '../../src/client/index.js';
import { invoke } from '../../src/testing/index.js';

const fixture = new URL('../fixtures/platform-root/', import.meta.url).pathname;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudfn-platform-user-'));
  cpSync(fixture, root, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('invoke on a root-layout project', () => {
  it('names a root file as start does, and calls as the user given', async () => {
    const res = await invoke('get_open_id.ts', { user: { openid: 'ann', appid: 'tt1' } }, { cwd: root });
    expect(res.json).toEqual({ openid: 'ann', caller: { openid: 'ann', appid: 'tt1', anonymous: false } });
    expect(res.logs.at(-1)?.function).toBe('get_open_id');
  });

  it('calls anonymously with { anonymous: true }', async () => {
    const res = await invoke('get_open_id.ts', { user: { anonymous: true } }, { cwd: root });
    expect(res.json).toEqual({ openid: null, caller: { anonymousOpenid: 'anon-user', anonymous: true } });
  });

  it('without a user, strips X-TT-* headers sent by hand, as cloudfn start does by default', async () => {
    const res = await invoke('get_open_id.ts', { headers: { 'x-tt-openid': 'mallory' } }, { cwd: root });
    expect(res.json).toEqual({ openid: null });
  });

  it('refuses a user field a header cannot carry, naming it', async () => {
    await expect(invoke('get_open_id.ts', { user: { openid: 'a\r\nb' } }, { cwd: root })).rejects.toThrow(
      'user.openid must be a non-empty string of printable ASCII, got "a\\r\\nb"',
    );
  });
});

describe('callContainer with a user', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startProject(root, {
      flags: { port: '0', host: '127.0.0.1' },
      env: { CLOUDFN_TRUST_GATEWAY_HEADERS: 'true' },
      compile: createCompileHook(root),
      logger: new Logger(createMemorySink()),
      handleSignals: false,
      keepServing: false,
    });
  });
  afterAll(() => server.close());

  it("sends the client's user, a call's own user, or none with user: null", async () => {
    const client = createContainerClient({ baseUrl: server.url, user: { openid: 'ann', unionid: 'u1' } });
    expect((await client.callContainer({ path: '/get_open_id' })).data).toEqual({
      openid: 'ann',
      caller: { openid: 'ann', unionid: 'u1', anonymous: false },
    });
    expect((await client.callContainer({ path: '/get_open_id', user: { openid: 'bob' } })).data).toEqual({
      openid: 'bob',
      caller: { openid: 'bob', anonymous: false },
    });
    expect((await client.callContainer({ path: '/get_open_id', user: null })).data).toEqual({ openid: null });
  });

  it('refuses a bad user as bad options', async () => {
    const client = createContainerClient({ baseUrl: server.url });
    await expect(client.callContainer({ path: '/get_open_id', user: { appid: '' } })).rejects.toThrow(
      /user.appid must be a non-empty string of printable ASCII, got ""/,
    );
  });
});
