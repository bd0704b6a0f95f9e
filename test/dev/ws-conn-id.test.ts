/**
 * Connection ids as a custom domain uses them (issue 41), under a dev server that requires them
 * (CLOUDFN_WS_REQUIRE_CONN_ID=1): a function gets an id from `/ws/get_conn_id` through
 * openApiInvoke of the push host, answered with `data` as a JSON string; the id opens one
 * connection of the `ws` client, and a second use is refused; no id, or one never issued, is
 * refused before connect; a bad body gets the platform's error envelope.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { startDevServer as StartDevServer } from '../../src/dev/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { reloadEvent, startProject as startFrom, type DevProject } from './project.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/ws-project', import.meta.url));
const CONN_ID_FN = `import { dySDK } from '@open-dy/node-server-sdk';
export default async function (_params: unknown, service: object) {
  return dySDK.context(service).openApiInvoke({
    url: 'http://ws-push.dyc.ivolces.com/ws/get_conn_id',
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    data: { service_id: 'dev-service', env_id: 'env-dev', token: 'the-users-token' },
  });
}
`;

let project: DevProject;
beforeAll(async () => {
  ensureDist();
  const { startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as {
    startDevServer: typeof StartDevServer;
  };
  process.env['CLOUDFN_WS_REQUIRE_CONN_ID'] = '1';
  try {
    project = await startFrom({}, FIXTURE, startDevServer);
  } finally {
    delete process.env['CLOUDFN_WS_REQUIRE_CONN_ID'];
  }
  const added = project.next(reloadEvent('added', 'conn_id'), 15_000);
  project.write('functions/conn_id.ts', CONN_ID_FN);
  await added;
});
afterAll(() => project?.close());

/** Opens a `ws` client; resolves with 101 or the refusal's status and body. */
function connect(connId?: string): Promise<{ status: number; body: string; ws?: WebSocket }> {
  const headers: Record<string, string> = {
    'X-TT-SERVICE-PATH': '/websocket_callback',
    'X-TT-OPENID': 'custom-domain',
  };
  if (connId !== undefined) headers['X-TT-WS-CONN-ID'] = connId;
  const ws = new WebSocket(`${project.dev.url.replace('http', 'ws')}/__dycloud__/ws/connect/`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ status: 101, body: '', ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

async function issued(): Promise<string> {
  const answer = (await project.get('/conn_id', { method: 'POST', body: '{}' })).json as {
    data: unknown;
    err_no: number;
  };
  expect(answer.err_no).toBe(0);
  expect(typeof answer.data).toBe('string');
  return (JSON.parse(answer.data as string) as { conn_id: string }).conn_id;
}

describe('connection ids', () => {
  it('/ws/get_conn_id answers data as a JSON string holding conn_id', async () => {
    const id = await issued();
    expect(id).toMatch(/^c-[0-9a-f]{32}$/);
    expect(await issued()).not.toBe(id);
  });

  it('an issued id opens one connection; a second use is refused before connect', async () => {
    const id = await issued();
    const first = await connect(id);
    expect(first.status).toBe(101);
    const second = await connect(id);
    expect(second.status).toBe(400);
    expect(second.body).toContain('was already used');
    first.ws!.close();
  });

  it('with the setting on, no id or an id never issued is refused, and connect is not called', async () => {
    const before = ((await project.get('/calls')).json as unknown[]).length;
    const none = await connect();
    expect(none.status).toBe(400);
    expect(none.body).toContain('/ws/get_conn_id');
    const madeUp = await connect('c-made-up');
    expect(madeUp.status).toBe(400);
    expect(madeUp.body).toContain('was not issued');
    const calls = (await project.get('/calls')).json as { event: string; headers: Record<string, string> }[];
    expect(calls.slice(before).filter((c) => c.event === 'connect')).toEqual([]);
  });

  it('a body without its fields gets the envelope naming the field', async () => {
    const res = await fetch(`${project.dev.url}/_cloudfn/ws-push/ws/get_conn_id`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'dev-service', env_id: 'env-dev' }),
    });
    const answer = (await res.json()) as { err_no: number; err_msg: string; data: unknown };
    expect(res.status).toBe(400);
    expect(answer.err_no).toBe(40001);
    expect(answer.err_msg).toContain('token must be a non-empty string');
  });
});
