/**
 * `cloudfn dev` on a project in the platform's layout: functions at the root (functionsDir "."),
 * the dev user's X-TT-* headers added to requests that carry none, console.* with the logid,
 * reload of a root file, and `--functions-dir` given directly.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadEvent, startProject, type DevProject } from './project.js';

const PLATFORM = fileURLToPath(new URL('../fixtures/platform-root', import.meta.url));

describe('cloudfn dev on a root-layout project', () => {
  let project: DevProject;
  beforeAll(async () => {
    project = await startProject({ env: { CLOUDFN_DEV_APPID: 'tt-from-env' } }, PLATFORM);
  });
  afterAll(() => project.close());

  it('serves the functions at the root and only them', () => {
    expect(project.dev.functions().map((fn) => fn.name)).toEqual(['get_open_id', 'start_game']);
  });

  it('acts as the dev user on a request with no X-TT-* headers', async () => {
    const res = await project.get('/get_open_id');
    expect(res.json).toEqual({
      openid: 'dev-openid',
      caller: {
        openid: 'dev-openid',
        appid: 'tt-from-env',
        unionid: 'dev-unionid',
        env: 'development',
        source: 'miniapp',
        ip: '127.0.0.1',
        anonymous: false,
      },
    });
  });

  it('keeps the headers a request sends: another user, or an anonymous one, in the dev user’s app', async () => {
    // The platform's gateway always sends the app: the dev user's (CLOUDFN_DEV_APPID) fills in (issue 41).
    expect((await project.get('/get_open_id', { headers: { 'x-tt-openid': 'ann' } })).json).toEqual({
      openid: 'ann',
      caller: { openid: 'ann', appid: 'tt-from-env', ip: '127.0.0.1', anonymous: false },
    });
    expect((await project.get('/get_open_id', { headers: { 'x-tt-anonymous-openid': 'anon-1' } })).json).toEqual({
      openid: null,
      caller: { anonymousOpenid: 'anon-1', appid: 'tt-from-env', ip: '127.0.0.1', anonymous: true },
    });
    // An app the request names is kept.
    const own = await project.get('/get_open_id', { headers: { 'x-tt-openid': 'ann', 'x-tt-appid': 'tt-other' } });
    expect(own.json.caller.appid).toBe('tt-other');
  });

  it("writes the function's console.log as a line with the request's logid", async () => {
    const res = await project.get('/get_open_id');
    const logid = res.headers.get('x-platform-logid');
    const line = project.records.find((r) => r.msg === 'get_open_id called' && r.logid === logid);
    expect(line).toMatchObject({ level: 'log', function: 'get_open_id', logid });
    expect(line?.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('reloads a function file at the root when it changes', async () => {
    const reloaded = project.next(reloadEvent('reloaded', 'start_game'));
    project.write('start_game.ts', 'export default async function () { return { started: "again" }; }\n');
    await reloaded;
    expect((await project.get('/start_game')).json).toEqual({ started: 'again' });
  });
});

describe('cloudfn dev with functionsDir given as an option', () => {
  it('wins over the config file', async () => {
    const project = await startProject({ functionsDir: 'tests' }, PLATFORM);
    try {
      expect(project.dev.functions().map((fn) => fn.name)).toEqual(['helper']);
    } finally {
      await project.close();
    }
  });
});
