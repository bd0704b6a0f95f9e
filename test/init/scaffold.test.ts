import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initProject, packageNameFor, templatesDir, type InitOptions } from '../../src/init/scaffold.js';

const work = mkdtempSync(join(tmpdir(), 'cloudfn-scaffold-'));
/** As if this version were on the registry: no npm call, no packing (test/e2e/init.test.ts packs). */
const published: InitOptions = { isPublished: () => true };
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('initProject', () => {
  it('copies the template, renames gitignore, and names the project after its folder', () => {
    const dir = join(work, 'My Shop');
    const result = initProject(dir, { ...published, template: 'starter' });
    expect(result).toMatchObject({ dir, template: 'starter', name: 'my-shop' });
    expect(result.files).toEqual(
      expect.arrayContaining([
        '.gitignore',
        '.dockerignore',
        '.vscode/launch.json',
        'Dockerfile',
        'README.md',
        'functions/hello.ts',
        'functions/upload.ts',
        'package.json',
        'test/hello.test.ts',
        'tsconfig.json',
      ]),
    );
    expect(result.files).not.toContain('gitignore');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    expect(pkg.name).toBe('my-shop');
    expect(pkg.dependencies.cloudfn).toBe('^0.1.0');
    expect(result.cloudfn).toEqual({ version: '0.1.0', from: 'registry', spec: '^0.1.0' });
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# my-shop\n/);
    expect(readFileSync(join(dir, 'deploy/knative-service.yaml'), 'utf8')).toContain('name: my-shop\n');
    expect(readFileSync(join(dir, 'functions/hello.ts'), 'utf8')).toBe(
      readFileSync(join(templatesDir(), 'starter/functions/hello.ts'), 'utf8'),
    );
  });

  it('takes a name, and an empty existing folder', () => {
    const dir = join(work, 'empty');
    mkdirSync(dir);
    expect(initProject(dir, { ...published, template: 'callback', name: 'hooks' }).name).toBe('hooks');
    expect(existsSync(join(dir, 'functions/callback.ts'))).toBe(true);
  });

  it('never copies what running a template in place leaves behind', () => {
    const starter = join(templatesDir(), 'starter');
    const leftovers = ['node_modules', 'dist', '.cloudfn'].filter((name) => !existsSync(join(starter, name)));
    for (const name of leftovers) mkdirSync(join(starter, name));
    try {
      const result = initProject(join(work, 'clean'), published);
      expect(result.files.filter((f) => /^(node_modules|dist|\.cloudfn)\//.test(f))).toEqual([]);
    } finally {
      for (const name of leftovers) rmSync(join(starter, name), { recursive: true, force: true });
    }
  });

  it('refuses a folder with files, and an unknown template', () => {
    const dir = join(work, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(() => initProject(dir, published)).toThrow(
      `${dir}: exists and is not empty; choose a new folder name (cloudfn init never overwrites files)`,
    );
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(() => initProject(join(work, 'x'), { ...published, template: 'blog' })).toThrow(
      '--template: there is no template "blog"; choose one of callback, live-room, media, service, starter',
    );
  });

  it('asks whether its own version is published, and vendors nothing when it is', () => {
    const asked: string[] = [];
    const result = initProject(join(work, 'asked'), { isPublished: (version) => (asked.push(version), true) });
    expect(asked).toEqual(['0.1.0']);
    expect(result.files.filter((f) => f.startsWith('vendor/'))).toEqual(['vendor/README.md']);
  });

  it('makes npm package names of folder names', () => {
    expect(packageNameFor('/a/My App!')).toBe('my-app');
    expect(packageNameFor('/a/.hidden')).toBe('hidden');
    expect(packageNameFor('/a/___')).toBe('cloudfn-app');
  });
});
