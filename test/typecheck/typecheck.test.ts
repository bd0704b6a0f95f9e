/**
 * Type checking in the loop: `cloudfn build` stops on a type error (and `--no-typecheck` lets it
 * through), `cloudfn dev` reports one within 2 s of the save, in the terminal and to the console
 * page, and clears it when fixed; a project without a tsconfig gets a one-line note.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../runtime/log/record.js';
import { startDevServer } from '../../src/dev/index.js';
import { checkProject, findTypeScript } from '../../src/typecheck/index.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { typecheckEvents } from '../testing/typecheck-events.js';

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    types: [],
  },
  include: ['functions'],
});
const GOOD =
  'export default function hello(params: { name?: string }) {\n  const name: string = params.name ?? "world";\n  return { hello: name };\n}\n';
const BAD =
  'export default function hello(params: { name?: string }) {\n  const name = params.name ?? "world";\n  const count: number = name;\n  return { hello: name, count };\n}\n';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A project with this repository's node_modules (so `typescript` resolves from it). */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-types-'));
  temps.push(root);
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  for (const [path, text] of Object.entries({ 'package.json': '{ "type": "module" }', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('checkProject', () => {
  it('reports file:line:column, the code and the line', async () => {
    const result = await checkProject(project({ 'tsconfig.json': TSCONFIG, 'functions/hello.ts': BAD }));
    expect(result).toMatchObject({ checked: true });
    expect(result.checked && result.diagnostics).toEqual([
      {
        file: 'functions/hello.ts',
        line: 3,
        column: 9,
        code: 'TS2322',
        message: "Type 'string' is not assignable to type 'number'.",
        lineText: '  const count: number = name;',
        length: 5,
      },
    ]);
  });

  it("checks @open-dy/node-server-sdk imports against the stand-in's types when it is not installed", async () => {
    const sdkFunction = (line: string): string =>
      `import { dySDK } from '@open-dy/node-server-sdk';\nexport default async function (_p: unknown, service: { headers: Record<string, string> }) {\n  const db = dySDK.database();\n  await db.collection('x').where({ n: db.command.gt(1) }).get();\n  ${line}\n}\n`;
    const good = await checkProject(
      project({
        'tsconfig.json': TSCONFIG,
        'functions/who.ts': sdkFunction('return dySDK.context(service).getContext().openId;'),
      }),
    );
    expect(good.checked && good.diagnostics).toEqual([]);
    const bad = await checkProject(
      project({
        'tsconfig.json': TSCONFIG,
        'functions/who.ts': sdkFunction('const n: number = dySDK.context(service).getContext().openId;\n  return n;'),
      }),
    );
    expect(bad.checked && bad.diagnostics.map((d) => d.code)).toEqual(['TS2322']);
  });

  it('checks the templates served from this checkout against this cloudfn (npm run dev shows no false errors)', async () => {
    for (const template of ['starter', 'media', 'callback']) {
      const result = await checkProject(join(REPO, 'templates', template));
      expect(result.checked).toBe(true);
      expect(result.checked && result.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`)).toEqual([]);
    }
  });

  it('says why it checks nothing', () => {
    const root = project({ 'functions/hello.ts': GOOD });
    expect(findTypeScript(root)).toEqual({
      ok: false,
      reason: `no tsconfig.json in ${root} (add one to have types checked)`,
    });
  });
});

describe('cloudfn build', () => {
  it('fails on a type error with a code frame, and --no-typecheck builds anyway', () => {
    ensureDist();
    const root = project({ 'tsconfig.json': TSCONFIG, 'functions/hello.ts': BAD });
    const cli = join(REPO, 'dist/src/cli/index.js');
    const failed = spawnSync(process.execPath, [cli, 'build', root], { encoding: 'utf8' });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(
      /^type checking with TypeScript 5\.\d+\.\d+ and tsconfig\.json… \(--no-typecheck skips it\)\n/,
    );
    expect(failed.stderr.slice(failed.stderr.indexOf('\n') + 1)).toBe(
      'cloudfn: type check failed with 1 type error:\n' +
        "functions/hello.ts:3:9: Type 'string' is not assignable to type 'number'. TS2322\n" +
        '  3 |   const count: number = name;\n' +
        '    |         ^^^^^\n' +
        'fix them (npm run typecheck shows them too), or pass --no-typecheck to build anyway\n',
    );
    expect(failed.stdout).toBe('');
    const built = spawnSync(process.execPath, [cli, 'build', root, '--no-typecheck'], { encoding: 'utf8' });
    expect(built.stdout).not.toContain('type checking');
    expect(built.status).toBe(0);
  }, 60_000);
});

describe('cloudfn dev', () => {
  it('shows a type error within 2 s of the save, on the console page too, and clears it when fixed', async () => {
    const root = project({ 'tsconfig.json': TSCONFIG, 'functions/hello.ts': GOOD });
    const records: LogRecord[] = [];
    const dev = await startDevServer({ root, port: 0, typecheck: true, sink: { write: (r) => void records.push(r) } });
    const waitFor = async (test: (r: LogRecord) => boolean, ms: number): Promise<LogRecord> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = records.find(test);
        if (found !== undefined) return found;
        if (Date.now() > deadline)
          throw new Error(`no such record in ${ms} ms: ${JSON.stringify(records.map((r) => r.msg))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      // The first check (cold: TypeScript loads and reads the lib files) is clean and silent.
      const events = await typecheckEvents(dev.consoleUrl);
      await events.frame((f) => f.includes('"state":"done"'), 25_000, 'the first type check');
      const saved = Date.now();
      writeFileSync(join(root, 'functions/hello.ts'), BAD);
      const shown = await waitFor((r) => r['typeErrors'] === 1, 2000);
      const savedToShownMs = Date.now() - saved;
      expect(shown.msg).toContain(
        "functions/hello.ts:3:9: Type 'string' is not assignable to type 'number'. TS2322\n  3 |   const count: number = name;",
      );
      // The function itself is still served: esbuild does not check types.
      expect((await fetch(`${dev.url}/hello`)).status).toBe(200);
      const page = await events.frame((f) => f.includes('TS2322'), 10_000, 'the type error on the console page');
      expect(JSON.parse(page.split('data: ')[1]!)).toMatchObject({
        state: 'done',
        diagnostics: [{ file: 'functions/hello.ts', line: 3, code: 'TS2322' }],
      });
      console.log(`save -> type error shown: ${savedToShownMs} ms`);

      writeFileSync(join(root, 'functions/hello.ts'), GOOD);
      await waitFor((r) => String(r.msg).startsWith('type errors fixed: none left'), 2000);
      const fixed = await events.frame(
        (f) => f.includes('"state":"done","diagnostics":[]'),
        10_000,
        'the console page to clear the type error',
      );
      expect(JSON.parse(fixed.split('data: ')[1]!)).toMatchObject({ state: 'done', diagnostics: [] });
      await events.close();
    } finally {
      await dev.close();
    }
  }, 30_000);

  it('notes in one line that a project without a tsconfig is not type checked', async () => {
    const root = project({ 'functions/hello.ts': GOOD });
    const records: LogRecord[] = [];
    const dev = await startDevServer({ root, port: 0, typecheck: true, sink: { write: (r) => void records.push(r) } });
    await dev.close();
    expect(records.filter((r) => String(r.msg).startsWith('type check off')).map((r) => r.msg)).toEqual([
      `type check off: no tsconfig.json in ${root} (add one to have types checked)`,
    ]);
  });
});
