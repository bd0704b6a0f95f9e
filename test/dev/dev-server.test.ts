import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_TRIGGER_HEADER } from '../../src/dev/index.js';
import { failure, reloadEvent, startProject, until, withNodeStacks, type DevProject } from './project.js';

const HELLO = (version: number, extra = ''): string => `import { greet } from './_lib/greet';
export const version = ${version};
export default async function hello(params: { name?: string }, service: { log: (...v: unknown[]) => void; trigger: string }) {
  service.log('greeting ' + (params.name ?? 'world'));${extra}
  return { message: greet(params.name ?? 'world'), version, trigger: service.trigger };
}
`;

/** Runs a full garbage collection in this process. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('cloudfn dev over a real socket', () => {
  let p: DevProject;
  beforeAll(async () => {
    p = await startProject({ env: { DEV_FIXTURE_INJECTED: 'injected' } });
  });
  afterAll(() => p?.close());

  it('serves TypeScript, CommonJS and ES module functions with trigger ide_debug', async () => {
    expect((await p.get('/hello?name=ann')).json).toEqual({ message: 'hello, ann', version: 1, trigger: 'ide_debug' });
    expect((await p.get('/legacy?name=bo')).json).toEqual({ kind: 'cjs', cpus: true, name: 'bo' });
    expect((await p.get('/modern')).json).toEqual({ kind: 'esm', file: 'modern.mjs' });
    expect(p.dev.functions().map((fn) => [fn.name, fn.status])).toEqual([
      ['bytes', 'ok'],
      ['crash', 'ok'],
      ['echo', 'ok'],
      ['env', 'ok'],
      ['hello', 'ok'],
      ['legacy', 'ok'],
      ['modern', 'ok'],
      ['slow', 'ok'],
    ]);
    // export const config of an ES module reaches the runtime.
    expect(p.dev.app.router.get('modern')?.timeout).toBe(5000);
  });

  it('lets the trusted header set the known triggers, and nothing else', async () => {
    const post = (trigger: string) =>
      p.get('/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json', [DEV_TRIGGER_HEADER]: trigger },
        body: '{"a":1}',
      });
    expect((await post('console_debug')).json).toMatchObject({ trigger: 'console_debug', params: { a: 1 } });
    expect((await post('root')).json).toMatchObject({ trigger: 'ide_debug' });
    // A trusted header may say timer, for a gateway that fires timers (docs/decisions.md).
    expect((await post('timer')).json).toMatchObject({ trigger: 'timer' });
  });

  it('writes one request line per request, with the same logid as the response', async () => {
    const answer = await p.get('/hello?name=cy', { headers: { 'x-platform-logid': 'dev-line-1' } });
    expect(answer.headers.get('x-platform-logid')).toBe('dev-line-1');
    const lines = p.records.filter((r) => r.logid === 'dev-line-1');
    expect(lines.map((r) => r.msg)).toEqual([
      'greeting cy',
      expect.stringMatching(/^GET \/hello 200 [\d.]+ ms \d+ B$/),
    ]);
    expect(lines[1]).toMatchObject({ function: 'hello', trigger: 'ide_debug', status: 200 });
  });

  it('runs the saved code on the next request, without restarting the listener', async () => {
    const port = p.dev.port;
    const reloaded = p.next(reloadEvent('reloaded', 'hello'));
    p.write('functions/hello.ts', HELLO(2));
    await reloaded;
    expect((await p.get('/hello')).json).toMatchObject({ version: 2 });
    expect(p.dev.port).toBe(port);
    expect(p.dev.functions().find((fn) => fn.name === 'hello')?.version).toBe(2);
  });

  it('reloads every function that imports a changed helper', async () => {
    const reloaded = p.next(reloadEvent('reloaded', 'hello'));
    p.write(
      'functions/_lib/greet.ts',
      'export function greet(name: string): string {\n  return `hi there, ${name}`;\n}\n',
    );
    await reloaded;
    expect((await p.get('/hello?name=di')).json).toMatchObject({ message: 'hi there, di' });
    // A helper is not a function: nothing is served at its path.
    expect((await p.get('/_lib/greet')).status).toBe(404);
  });

  it('finishes a request in flight with the old code while the next one gets the new', async () => {
    const slow = p.get('/slow?ms=400');
    await until(() => (p.dev.app.inflight > 0 ? true : undefined), 2000, 'the slow request to start');
    const reloaded = p.next(reloadEvent('reloaded', 'slow'));
    p.write(
      'functions/slow.ts',
      "export const version = 'two';\nexport default async function slow() {\n  return { version };\n}\n",
    );
    await reloaded;
    expect((await p.get('/slow')).json).toEqual({ version: 'two' });
    expect((await slow).json).toEqual({ version: 'one' });
  });

  it('answers a compile error with file:line:column and a code frame, keeps the others, and recovers', async () => {
    const failed = p.next(failure('hello'));
    p.write('functions/hello.ts', HELLO(3, '\n  const broken: number = ;'));
    const record = await failed;
    expect(record.msg).toContain('functions/hello.ts:5:26');
    const answer = await p.get('/hello');
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('CLOUDFN_COMPILE_ERROR');
    expect(answer.json.error.message).toContain('functions/hello.ts:5:26: Unexpected ";"');
    expect(answer.json.error.message).toMatch(/5 \|\s+const broken: number = ;\n\s+\| \s+\^/);
    expect(p.dev.functions().find((fn) => fn.name === 'hello')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Unexpected ";"'),
    });
    // Every other function keeps working.
    expect((await p.get('/legacy')).status).toBe(200);
    expect((await p.get('/echo?x=1')).json).toMatchObject({ params: { x: '1' } });

    const fixed = p.next(reloadEvent('reloaded', 'hello'));
    p.write('functions/hello.ts', HELLO(4));
    await fixed;
    expect((await p.get('/hello')).json).toMatchObject({ version: 4 });
  });

  it('answers a function that throws while loading, or has no default export, with that error', async () => {
    let failed = p.next(failure('hello'));
    await withNodeStacks(async () => {
      p.write(
        'functions/hello.ts',
        "const table: Record<string, number> = {};\nif (table.x === undefined) throw new Error('cannot start: no table');\nexport default () => 1;\n",
      );
      await failed;
    });
    let answer = await p.get('/hello');
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('CLOUDFN_DEV_LOAD_FAILED');
    expect(answer.json.error.message).toContain('cannot start: no table');
    // The stack of a load failure names the TypeScript line.
    expect(answer.json.error.message).toMatch(/functions\/hello\.ts:2:\d+\)$/);

    failed = p.next((r) => failure('hello')(r) && r['code'] === 'CLOUDFN_NO_DEFAULT_EXPORT');
    p.write('functions/hello.ts', 'export const notAHandler = 1;\n');
    await failed;
    answer = await p.get('/hello');
    expect(answer.json.error).toMatchObject({
      code: 'CLOUDFN_NO_DEFAULT_EXPORT',
      message: expect.stringContaining('functions/hello.ts has no default export'),
    });

    failed = p.next((r) => failure('hello')(r) && r['code'] === 'CLOUDFN_DEFAULT_EXPORT_NOT_FUNCTION');
    p.write('functions/hello.ts', "export default { hello: 'world' };\n");
    await failed;
    answer = await p.get('/hello');
    expect(answer.json.error).toMatchObject({
      code: 'CLOUDFN_DEFAULT_EXPORT_NOT_FUNCTION',
      message: expect.stringContaining(
        'functions/hello.ts: its default export (or module.exports) is an object with keys hello, not a function',
      ),
    });

    const fixed = p.next(reloadEvent('reloaded', 'hello'));
    p.write('functions/hello.ts', HELLO(5));
    await fixed;
    expect((await p.get('/hello')).status).toBe(200);
  });

  it('picks up new, removed and renamed function files', async () => {
    const added = p.next(reloadEvent('added', 'fresh'));
    p.write('functions/fresh.ts', "export default () => 'fresh';\n");
    await added;
    expect((await p.get('/fresh')).text).toBe('fresh');

    const nested = p.next(reloadEvent('added', 'videos/list'));
    p.write('functions/videos/list.ts', "export default () => ['v1'];\n");
    await nested;
    expect((await p.get('/videos/list')).json).toEqual(['v1']);

    const gone = p.next(reloadEvent('removed', 'fresh'));
    const renamed = p.next(reloadEvent('added', 'renamed'));
    p.rename('functions/fresh.ts', 'functions/renamed.ts');
    await Promise.all([gone, renamed]);
    expect((await p.get('/fresh')).status).toBe(404);
    expect((await p.get('/renamed')).text).toBe('fresh');

    const removed = p.next(reloadEvent('removed', 'renamed'));
    p.remove('functions/renamed.ts');
    await removed;
    expect((await p.get('/renamed')).status).toBe(404);
    expect(p.dev.functions().map((fn) => fn.name)).not.toContain('renamed');

    // A renamed folder moves its functions, and the new folder is watched.
    const folderGone = p.next(reloadEvent('removed', 'videos/list'));
    const folderAdded = p.next(reloadEvent('added', 'clips/list'));
    p.rename('functions/videos', 'functions/clips');
    await Promise.all([folderGone, folderAdded]);
    expect((await p.get('/clips/list')).json).toEqual(['v1']);
    const edited = p.next(reloadEvent('reloaded', 'clips/list'));
    p.write('functions/clips/list.ts', "export default () => ['v2'];\n");
    await edited;
    expect((await p.get('/clips/list')).json).toEqual(['v2']);
  });

  it('watches helpers outside functions/ that a function imports', async () => {
    p.write('lib/shared.ts', "export const label = 'first';\n");
    const added = p.next(reloadEvent('added', 'labelled'));
    p.write('functions/labelled.ts', "import { label } from '../lib/shared';\nexport default () => label;\n");
    await added;
    expect((await p.get('/labelled')).text).toBe('first');
    const reloaded = p.next(reloadEvent('reloaded', 'labelled'));
    p.write('lib/shared.ts', "export const label = 'second';\n");
    await reloaded;
    expect((await p.get('/labelled')).text).toBe('second');
  });

  it('maps stack traces to the TypeScript lines, after a garbage collection too', async () => {
    // Node keeps a source map only while its module lives: collect garbage first, so a module
    // the dev server forgot to hold would show the built lines here every time, not by chance.
    collectGarbage();
    const answer = await withNodeStacks(() => p.get('/crash?how=deliberately'));
    expect(answer.status).toBe(500);
    expect(answer.json.error.message).toContain('crashed deliberately');
    expect(answer.json.error.message).toMatch(/functions\/crash\.ts:7:9\)/);
    const logged = p.records.find((r) => typeof r['stack'] === 'string' && r.function === 'crash');
    expect(logged?.msg).toBe('the function failed: crashed deliberately');
  });
});
