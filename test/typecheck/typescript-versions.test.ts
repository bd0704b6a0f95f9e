/**
 * Type checking follows the project's own TypeScript, installed for real: 7 (native, no compiler
 * API: its `tsc` is run), 5.x (the API) each report the same error and nothing false, in build's
 * check and in dev's watch; a version too old gets one line naming it and what to do.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkProject, findTypeScript, type TypeReport, watchTypes } from '../../src/typecheck/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { installedTypeScript, TYPESCRIPT_VERSIONS } from './typescript-install.js';

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
  'export default function hello(params: { name?: string }) {\n  return { hello: params.name ?? "world" };\n}\n';
const BAD =
  'export default function hello(params: { name?: string }) {\n  const name = params.name ?? "world";\n  const count: number = name;\n  return { hello: name, count };\n}\n';
const EXPECTED = {
  file: 'functions/hello.ts',
  line: 3,
  column: 9,
  code: 'TS2322',
  message: "Type 'string' is not assignable to type 'number'.",
  lineText: '  const count: number = name;',
};

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function project(modules: string, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-tsv-'));
  temps.push(root);
  symlinkSync(modules, join(root, 'node_modules'));
  for (const [path, text] of Object.entries({ 'package.json': '{ "type": "module" }', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe.each(TYPESCRIPT_VERSIONS.filter((v) => !v.startsWith('3.')))('TypeScript %s', (version) => {
  const modules = installedTypeScript(version);

  it.skipIf(modules === undefined)(
    'build: finds the type error, and none in a good file',
    async () => {
      const setup = findTypeScript(project(modules!, { 'tsconfig.json': TSCONFIG }));
      expect(setup).toMatchObject({ ok: true, version, engine: version.startsWith('7') ? 'cli' : 'api' });
      const bad = await checkProject(project(modules!, { 'tsconfig.json': TSCONFIG, 'functions/hello.ts': BAD }));
      expect(bad.checked && bad.diagnostics.map(({ length: _, ...d }) => d)).toEqual([EXPECTED]);
      const good = await checkProject(project(modules!, { 'tsconfig.json': TSCONFIG, 'functions/hello.ts': GOOD }));
      expect(good).toMatchObject({ checked: true, diagnostics: [] });
    },
    120_000,
  );

  it.skipIf(modules === undefined)(
    'checks the starter template against this cloudfn with no false error',
    async () => {
      ensureDist();
      const root = project(modules!, {
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023'],
            types: ['node'],
            strict: true,
            noUncheckedIndexedAccess: true,
            verbatimModuleSyntax: true,
            skipLibCheck: true,
            noEmit: true,
          },
          include: ['functions'],
        }),
      });
      cpSync(join(REPO, 'templates/starter/functions'), join(root, 'functions'), { recursive: true });
      // The starter declares its params with zod, which its package.json installs; the shared
      // TypeScript install has none, so the copy resolves this repository's.
      mkdirSync(join(root, 'functions/node_modules'));
      symlinkSync(join(REPO, 'node_modules/zod'), join(root, 'functions/node_modules/zod'));
      const result = await checkProject(root);
      expect(result.checked && result.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`)).toEqual([]);
      writeFileSync(
        join(root, 'functions/extra.ts'),
        "import type { Service } from 'cloudfn';\nexport const s: Service = 1;\n",
      );
      const wrong = await checkProject(root);
      expect(wrong.checked && wrong.diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([
        'functions/extra.ts:2 TS2322',
      ]);
    },
    120_000,
  );

  it.skipIf(modules === undefined)(
    'dev: reports the error while watching and clears it when fixed',
    async () => {
      const root = project(modules!, { 'tsconfig.json': TSCONFIG, 'functions/hello.ts': BAD });
      const setup = findTypeScript(root);
      if (!setup.ok) throw new Error(setup.reason);
      const reports: TypeReport[] = [];
      let next: (() => void) | undefined;
      const watcher = watchTypes({
        ...setup,
        root,
        onReport: (report) => {
          reports.push(report);
          next?.();
        },
      });
      const report = () =>
        new Promise<void>((resolve) => {
          next = resolve;
        });
      try {
        await report();
        expect(reports[0]!.diagnostics.map(({ length: _, ...d }) => d)).toEqual([EXPECTED]);
        writeFileSync(join(root, 'functions/hello.ts'), GOOD);
        await report();
        expect(reports.at(-1)!.diagnostics).toEqual([]);
      } finally {
        await watcher.close();
      }
    },
    120_000,
  );
});

describe('TypeScript 3.8 (what the platform templates pin)', () => {
  const modules = installedTypeScript('3.8.3');

  it.skipIf(modules === undefined)(
    'gets one line naming the version and what to do, and no false error',
    async () => {
      const root = project(modules!, { 'tsconfig.json': TSCONFIG, 'functions/hello.ts': GOOD });
      const reason =
        "TypeScript 3.8.3 is older than 5.0, the oldest that checks cloudfn's types (npm install -D typescript@latest to have types checked)";
      expect(findTypeScript(root)).toEqual({ ok: false, reason });
      expect(await checkProject(root)).toEqual({ checked: false, reason });
      ensureDist();
      const built = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'build', root], {
        encoding: 'utf8',
      });
      expect(built.status).toBe(0);
      expect(built.stdout).toContain(`type check off: ${reason}\n`);
      expect(built.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
});
