/**
 * One assembly, one verdict: each project below is started as `cloudfn start` starts it
 * (`startServer`, src/start/) and as `cloudfn dev` does (`startDevServer`), and both must agree —
 * both serve the same functions, or both refuse with the same code and message. A function whose
 * own code cannot load is the one documented difference in form: start refuses, while dev keeps
 * serving the others with that function failing, and shows the same message for it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CloudfnError } from '../../runtime/errors.js';
import { Logger } from '../../runtime/log/logger.js';
import { startDevServer } from '../../src/dev/index.js';
import { startServer } from '../../src/start/start-server.js';

const base = mkdtempSync(join(tmpdir(), 'cloudfn-verdict-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const HELLO = 'export default () => ({ hello: true });\n';

/** The files of one project, path → text. */
type Project = Record<string, string>;

/** What a start-up came to. */
type Verdict =
  | { serves: string[]; hello: unknown }
  | { refuses: string | undefined; message: string }
  | { failing: string; message: string };

const CASES: [string, Project][] = [
  ['a plain project', { 'functions/hello.ts': HELLO }],
  [
    'metrics on, routes outside /_cloudfn/',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "metrics": true, "routes": { "/hi": "hello" } }' },
  ],
  [
    'metrics on, a route under /_cloudfn/',
    {
      'functions/hello.ts': HELLO,
      'cloudfn.config.json': '{ "metrics": true, "routes": { "/_cloudfn/hi": "hello" } }',
    },
  ],
  ['a bad option', { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "maxBodySize": "lots" }' }],
  ['an unknown option', { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "maxBodySise": 10 }' }],
  [
    'a functionsDir that is not there',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "functionsDir": "api" }' },
  ],
  ['a functionsDir elsewhere', { 'api/hello.ts': HELLO, 'cloudfn.config.json': '{ "functionsDir": "api" }' }],
  [
    'a route to no function',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "routes": { "/hi": "nobody" } }' },
  ],
  ['a bad route pattern', { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "routes": { "hi": "hello" } }' }],
  [
    'config for an unknown function',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "functions": { "helo": { "timeout": 100 } } }' },
  ],
  [
    'a WeChat exports.main function',
    { 'functions/hello.ts': HELLO, 'functions/login.js': 'exports.main = async (event, context) => ({ event });\n' },
  ],
];

let count = 0;
function project(files: Project): string {
  const root = join(base, `p${count++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function refusal(error: unknown): Verdict {
  if (!(error instanceof Error)) throw error;
  return { refuses: error instanceof CloudfnError ? error.code : undefined, message: error.message };
}

async function hello(url: string): Promise<unknown> {
  const answer = await fetch(`${url}/hello`);
  return { status: answer.status, body: await answer.json() };
}

async function asStart(root: string): Promise<Verdict> {
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    started = await startServer({
      root,
      flags: { port: '0', host: '127.0.0.1' },
      handleSignals: false,
      env: {},
      logger: new Logger({ write() {} }),
    });
  } catch (error) {
    return refusal(error);
  }
  if (started.mode !== 'single') throw new Error(`started as ${started.mode}`);
  const { server } = started;
  try {
    return { serves: server.app.router.list().map((fn) => fn.name), hello: await hello(server.url) };
  } finally {
    await server.close();
  }
}

async function asDev(root: string): Promise<Verdict> {
  let dev: Awaited<ReturnType<typeof startDevServer>>;
  try {
    dev = await startDevServer({ root, port: 0, sink: { write() {} } });
  } catch (error) {
    return refusal(error);
  }
  try {
    const failing = dev.functions().find((fn) => fn.status === 'error');
    if (failing !== undefined) return { failing: failing.name, message: failing.error ?? '' };
    return { serves: dev.functions().map((fn) => fn.name), hello: await hello(dev.url) };
  } finally {
    await dev.close();
  }
}

describe('cloudfn start and cloudfn dev give the same config the same verdict', () => {
  it.each(CASES)('%s', { timeout: 60_000 }, async (_name, files) => {
    const root = project(files);
    const start = await asStart(root);
    const dev = await asDev(root);
    if ('failing' in dev) {
      // Dev keeps serving the rest; start refuses with the function's message.
      expect(start).toMatchObject({ refuses: expect.any(String) });
      expect((start as { message: string }).message).toContain(dev.message.split('\n')[0]);
    } else {
      expect(dev).toEqual(start);
    }
  });

  it('refuses a route under /_cloudfn/ with metrics on, naming the route and the fix', async () => {
    const verdict = await asDev(project(CASES[2]![1]));
    expect(verdict).toMatchObject({ refuses: 'CLOUDFN_BAD_CONFIG', message: expect.stringContaining('/_cloudfn/hi') });
  });
});
