/**
 * The contracts under `cloudfn dev`: /_cloudfn/openapi.json follows the functions served, a
 * refusal is answered with its issues, and `--client` writes the client, and writes it again
 * when a function is added.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { REPO } from '../testing/ensure-dist.js';

const FIXTURE = join(REPO, 'test/fixtures/contract');
const ROOT = join(FIXTURE, '.cloudfn', 'dev-project');
const CLIENT = join(ROOT, 'client', 'api.ts');
let dev: DevServer;

beforeAll(async () => {
  rmSync(ROOT, { recursive: true, force: true });
  cpSync(join(FIXTURE, 'functions'), join(ROOT, 'functions'), { recursive: true });
  cpSync(join(FIXTURE, 'package.json'), join(ROOT, 'package.json'));
  // Run from the sources, dev maps a value import of 'cloudfn' to them, which Node cannot load:
  // this copy's hello declares its config without defineFunction.
  writeFileSync(
    join(ROOT, 'functions', 'hello.ts'),
    `import { z } from 'zod';
export const config = { params: z.object({ name: z.string().default('world'), times: z.coerce.number().int().min(1).default(1) }) };
export default (params: { name: string; times: number }) => ({ hello: params.name.repeat(params.times) });
`,
  );
  dev = await startDevServer({ root: ROOT, port: 0, sink: { write() {} }, debounceMs: 5, client: CLIENT });
}, 60_000);

afterAll(async () => {
  await dev?.close();
  rmSync(ROOT, { recursive: true, force: true });
});

describe('cloudfn dev and contracts', () => {
  it('serves the OpenAPI document of the functions at /_cloudfn/openapi.json', async () => {
    const res = await fetch(`${dev.url}/_cloudfn/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/hello', '/media-tour', '/orders/create', '/videos/list']);
  });

  it('answers invalid params 400 with the field named', async () => {
    const res = await fetch(`${dev.url}/hello?times=zero`);
    const text = await res.text();
    expect(res.status, text).toBe(400);
    const body = JSON.parse(text) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe('CLOUDFN_BAD_PARAMS');
    expect(body.error.issues.map((issue) => issue.path)).toEqual(['/times']);
  });

  it('writes the client, and again when a function is added', async () => {
    expect(existsSync(CLIENT)).toBe(true);
    expect(readFileSync(CLIENT, 'utf8')).not.toContain('ping');
    writeFileSync(join(ROOT, 'functions', 'ping.ts'), 'export default () => "pong";\n');
    const deadline = Date.now() + 20_000;
    while (!readFileSync(CLIENT, 'utf8').includes('ping(') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await dev.settled();
    }
    expect(readFileSync(CLIENT, 'utf8')).toContain('ping(');
    const doc = (await (await fetch(`${dev.url}/_cloudfn/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(doc.paths)).toContain('/ping');
  }, 30_000);
});
