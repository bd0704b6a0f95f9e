/**
 * The function-service target validates declared params as `cloudfn start` does: built from
 * the contract fixture (zod 4, valibot 1, arktype 2 bundled into each file) and run under a
 * real Node 14 through the imitation of the platform, a refusal is the same 400 body.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  findCheckNode,
  type FunctionServiceBuildResult,
  ImitationRunner,
} from '../../src/build/function-service/index.js';
import { REPO } from '../testing/ensure-dist.js';

const ROOT = join(REPO, 'test/fixtures/contract');
const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');
const out = mkdtempSync(join(tmpdir(), 'cloudfn-fs-contract-'));
const runner = new ImitationRunner(node);
let built: FunctionServiceBuildResult;

beforeAll(async () => {
  built = await buildFunctionService(ROOT, { outdir: out });
}, 120_000);
afterAll(() => {
  runner.close();
  rmSync(out, { recursive: true, force: true });
});

const call = async (file: string, request: { method: string; url: string; body?: string }) => {
  const headers: Record<string, string> = request.body === undefined ? {} : { 'content-type': 'application/json' };
  return (await runner.run(join(built.outdir, file), [{ ...request, headers }])).answers![0]!;
};

describe.skipIf(!node.platformVersion)('declared params on the function service, under Node 14', () => {
  it('passes the schema output to the handler (zod 4: coerced, defaulted)', async () => {
    const answer = await call('hello.js', { method: 'GET', url: '/hello?name=ab&times=2' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ hello: 'abab' });
  });

  it('refuses invalid params with the 400 body of cloudfn start, issues and all (valibot 1)', async () => {
    const answer = await call('orders/create.js', {
      method: 'POST',
      url: '/orders/create',
      body: JSON.stringify({ customer: '', items: [{ sku: 's', qty: 0 }] }),
    });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body) as { error: { code: string; logid: string; issues: { path: string }[] } };
    expect(body.error.code).toBe('CLOUDFN_BAD_PARAMS');
    expect(body.error.issues.map((issue) => issue.path)).toEqual(['/customer', '/items/0/qty']);
    expect(answer.headers['x-platform-logid']).toBe(body.error.logid);
    expect(answer.logs).toEqual([
      { level: 'warn', values: [expect.objectContaining({ code: 'CLOUDFN_BAD_PARAMS', issues: expect.any(String) })] },
    ]);
  });

  it('cannot load arktype 2 under Node 14, which has no global Blob (docs/contracts.md says so)', async () => {
    const run = await runner.run(join(built.outdir, 'videos/list.js'), [{ method: 'GET', url: '/videos/list?page=4' }]);
    expect(run.loadError).toMatch(/Blob is not defined/);
  });

  it('runs a function without a schema as before', async () => {
    const answer = await call('media-tour.js', { method: 'GET', url: '/media-tour' });
    expect(JSON.parse(answer.body)).toEqual({ source: 'sample' });
  });
});
