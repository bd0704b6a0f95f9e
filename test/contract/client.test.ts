/**
 * `cloudfn client`: the generated file type-checks good calls and refuses wrong ones (tsc on
 * both), imports the functions' types only, and calls the functions under cloudfn start through cloudfn/client's
 * `callContainer`, rejecting a refusal with its statusCode, code, issues and logid.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerClient } from '../../src/client/index.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { freePort } from '../testing/free-port.js';

const ROOT = join(REPO, 'test/fixtures/contract');
const DIR = join(ROOT, '.cloudfn', 'client-test');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

/** The fixture sits inside cloudfn's own folder, not under node_modules: `cloudfn` is mapped to dist/. */
const tsconfig = (files: string[]) =>
  JSON.stringify({
    compilerOptions: {
      paths: {
        cloudfn: [join(REPO, 'dist/src/index.d.ts')],
      },
      strict: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
    files,
  });

/** Type-checks `files` (in DIR); returns tsc's status and output. */
function tsc(name: string, files: string[]) {
  writeFileSync(join(DIR, `${name}.json`), tsconfig(files));
  const run = spawnSync(process.execPath, [TSC, '-p', join(DIR, `${name}.json`)], { encoding: 'utf8', cwd: DIR });
  return { status: run.status, out: run.stdout + run.stderr };
}

const CLI = join(REPO, 'dist/src/cli/index.js');
let server: ChildProcess;
let url: string;

/** What the test reads of the generated module at run time. */
interface CallError extends Error {
  statusCode: number;
  code: string;
  logid: string;
  issues: { path: string; message: string }[];
}
type Call = (params?: unknown, options?: { method?: 'GET' | 'POST' }) => Promise<unknown>;
interface Generated {
  createClient(cloud: unknown): { hello: Call; videos: { list: Call }; orders: { create: Call } };
  FunctionCallError: new (...args: never[]) => CallError;
}

beforeAll(async () => {
  ensureDist();
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const run = spawnSync(
    process.execPath,
    [join(REPO, 'dist/src/cli/index.js'), 'client', ROOT, '--out', join(DIR, 'api.ts')],
    {
      encoding: 'utf8',
    },
  );
  expect(run.status, run.stderr).toBe(0);
  // The real `cloudfn start`, in its own process, ready once its health path answers.
  const port = await freePort();
  server = spawn(process.execPath, [CLI, 'start', ROOT, '--port', String(port), '--host', '127.0.0.1'], {
    stdio: 'ignore',
  });
  url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await fetch(`${url}/_cloudfn/health`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) break;
    if (server.exitCode !== null || Date.now() > deadline) throw new Error('cloudfn start did not come up');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 120_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  rmSync(DIR, { recursive: true, force: true });
});

describe('cloudfn client', () => {
  it('imports the functions as types only, one method per function nested by folder', () => {
    const source = readFileSync(join(DIR, 'api.ts'), 'utf8');
    expect(source).toContain('type M0 = typeof import("../../functions/hello.js");');
    // No import at all: the calling project needs no package, and a bundler keeps nothing of the server.
    expect(source.match(/^import .+$/gm)).toBeNull();
    expect(source).toMatch(/orders: \{\n\s+\/\*\* `orders\/create`/);
    expect(source).toContain('mediaTour(');
  });

  it('type-checks good calls, and refuses a wrong type at compile time', () => {
    writeFileSync(
      join(DIR, 'good.ts'),
      `import { createClient, FunctionCallError, type ContainerCaller } from './api.js';
declare const cloud: ContainerCaller;
const api = createClient(cloud);
export async function calls(): Promise<void> {
  const hi: { hello: string } = await api.hello({ name: 'Ada' });
  await api.hello();
  const order = await api.orders.create({ customer: 'c', items: [{ sku: 's', qty: 1 }] });
  const total: number = order.total;
  const page = await api.videos.list({ page: '2' }, { method: 'GET' });
  const source: string = (await api.mediaTour({ source_url: 'x' })).source;
  try { await api.hello({ name: '' }); } catch (error) { if (error instanceof FunctionCallError) console.log(error.issues[0]?.path, error.code, error.statusCode, error.logid); }
  console.log(hi, total, page.page, source);
}
`,
    );
    writeFileSync(
      join(DIR, 'bad.ts'),
      `import { createClient, type ContainerCaller } from './api.js';
declare const cloud: ContainerCaller;
const api = createClient(cloud);
export const wrong = api.orders.create({ customer: 'c', items: [{ sku: 's', qty: 'one' }] });
`,
    );
    const good = tsc('good', ['good.ts']);
    expect(good.out).toBe('');
    expect(good.status).toBe(0);
    const bad = tsc('bad', ['bad.ts']);
    expect(bad.status).not.toBe(0);
    expect(bad.out).toMatch(/bad\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 120_000);

  it('calls the functions under cloudfn start through cloudfn/client', async () => {
    // The generated file, loaded as vitest loads TypeScript; its types were checked above.
    const generated = (await import(join(DIR, 'api.ts'))) as Generated;
    const { createClient, FunctionCallError } = generated;
    const api = createClient(createContainerClient({ baseUrl: url }));
    expect(await api.hello({ name: 'Ada', times: 2 })).toEqual({ hello: 'AdaAda' });
    expect(await api.videos.list({ page: '3' }, { method: 'GET' })).toEqual({ page: 3, videos: [] });
    expect(await api.orders.create({ customer: 'c', items: [{ sku: 's', qty: 2 }] })).toEqual({ id: 'o-c', total: 2 });
    const refused = await api.orders
      .create({ customer: '', items: [{ sku: 's', qty: 0 }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FunctionCallError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'CLOUDFN_BAD_PARAMS' });
    const issues = (refused as CallError).issues.map((issue) => issue.path);
    expect(issues).toEqual(['/customer', '/items/0/qty']);
    expect((refused as CallError).logid).toMatch(/\S/);
  });
});
