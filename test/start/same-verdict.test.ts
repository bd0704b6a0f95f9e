/**
 * One assembly, one verdict: each project below is started as `cloudfn start` starts it
 * (`startServer`, src/start/) and as `cloudfn dev` does (`startDevServer`), and both must agree —
 * both serve the same functions, or both refuse with the same code and message. A function whose
 * own code cannot load, or whose `config.schedule` is bad, is the documented difference in form:
 * start refuses, while dev keeps serving the others with that function failing (fixed on save),
 * and shows the same message for it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CloudfnError } from '../../runtime/errors.js';
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
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

/** What both must come to: serve, refuse, or (dev) serve with that function failing. */
type Expected = 'serves' | 'refuses' | 'dev shows it failing';

const CASES: [string, Expected, Project][] = [
  ['a plain project', 'serves', { 'functions/hello.ts': HELLO }],
  [
    'metrics on, routes outside /_cloudfn/',
    'serves',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "metrics": true, "routes": { "/hi": "hello" } }' },
  ],
  [
    'metrics on, a route under /_cloudfn/',
    'refuses',
    {
      'functions/hello.ts': HELLO,
      'cloudfn.config.json': '{ "metrics": true, "routes": { "/_cloudfn/hi": "hello" } }',
    },
  ],
  ['a bad option', 'refuses', { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "maxBodySize": "lots" }' }],
  ['an unknown option', 'refuses', { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "maxBodySise": 10 }' }],
  [
    'a functionsDir that is not there',
    'refuses',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "functionsDir": "api" }' },
  ],
  ['a functionsDir elsewhere', 'serves', { 'api/hello.ts': HELLO, 'cloudfn.config.json': '{ "functionsDir": "api" }' }],
  [
    'a route to no function',
    'refuses',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "routes": { "/hi": "nobody" } }' },
  ],
  [
    'a bad route pattern',
    'refuses',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "routes": { "/videos/:": "hello" } }' },
  ],
  [
    'config for an unknown function',
    'refuses',
    { 'functions/hello.ts': HELLO, 'cloudfn.config.json': '{ "functions": { "helo": { "timeout": 100 } } }' },
  ],
  [
    'a bad config.schedule',
    'dev shows it failing',
    {
      'functions/hello.ts': HELLO,
      'functions/tick.ts': "export const config = { schedule: 'every day' };\nexport default () => 1;\n",
    },
  ],
  [
    'a WeChat exports.main function',
    'dev shows it failing',
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
  const records: LogRecord[] = [];
  let dev: Awaited<ReturnType<typeof startDevServer>>;
  try {
    dev = await startDevServer({ root, port: 0, sink: { write: (record) => void records.push(record) } });
  } catch (error) {
    return refusal(error);
  }
  try {
    const failing = dev.functions().find((fn) => fn.status === 'error');
    if (failing !== undefined) return { failing: failing.name, message: failing.error ?? '' };
    const bad = records.find((record) => record['code'] === 'CLOUDFN_BAD_SCHEDULE');
    if (bad !== undefined) return { failing: String(bad['function']), message: String(bad['msg']) };
    return { serves: dev.functions().map((fn) => fn.name), hello: await hello(dev.url) };
  } finally {
    await dev.close();
  }
}

describe('cloudfn start and cloudfn dev give the same config the same verdict', () => {
  it.each(CASES)('%s: %s', { timeout: 60_000 }, async (_name, expected, files) => {
    const root = project(files);
    const start = await asStart(root);
    const dev = await asDev(root);
    expect(Object.keys(start)[0]).toBe(expected === 'serves' ? 'serves' : 'refuses');
    expect(Object.keys(dev)[0]).toBe(
      { serves: 'serves', refuses: 'refuses', 'dev shows it failing': 'failing' }[expected],
    );
    if ('failing' in dev) {
      // Dev keeps serving the rest; start refuses with the function's message.
      expect(start).toMatchObject({ refuses: expect.any(String) });
      expect((start as { message: string }).message).toContain(dev.message.split('\n')[0]);
    } else {
      expect(dev).toEqual(start);
    }
  });

  it('refuses a route under /_cloudfn/ with metrics on, naming the route and the fix', async () => {
    const verdict = await asDev(project(CASES[2]![2]));
    expect(verdict).toMatchObject({ refuses: 'CLOUDFN_BAD_CONFIG', message: expect.stringContaining('/_cloudfn/hi') });
  });
});
