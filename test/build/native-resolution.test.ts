/**
 * The native detector's shared answers (src/build/native.ts): a bare import is resolved once
 * per folder its resolution starts from, and a folder with its own node_modules (or
 * package.json, tsconfig.json) gets its own answer, so a native copy there is still found.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { NativeModules } from '../../src/build/native.js';
import { tempProject } from '../testing/project.js';

describe('NativeModules#resolutionRoot', () => {
  it('is the nearest folder holding node_modules, package.json, tsconfig.json or jsconfig.json', () => {
    const p = tempProject({
      'functions/a/b/f.ts': '',
      'functions/own/node_modules/x/index.js': '',
      'functions/own/deeper/f.ts': '',
      'functions/pkg/package.json': '{}',
      'functions/ts/tsconfig.json': '{}',
      'functions/js/jsconfig.json': '{}',
    });
    try {
      mkdirSync(join(p.root, 'node_modules'));
      const native = new NativeModules(p.root, () => {});
      const at = (dir: string) => native.resolutionRoot(join(p.root, dir));
      expect(at('functions/a/b')).toBe(p.root);
      expect(at('functions/a')).toBe(p.root);
      expect(at('functions/own/deeper')).toBe(join(p.root, 'functions/own'));
      expect(at('functions/pkg')).toBe(join(p.root, 'functions/pkg'));
      expect(at('functions/ts')).toBe(join(p.root, 'functions/ts'));
      expect(at('functions/js')).toBe(join(p.root, 'functions/js'));
    } finally {
      p.remove();
    }
  });
});

describe('native packages across folders', () => {
  it("shares a plain package's answer between folders and still finds a native copy in a folder of its own", async () => {
    const p = tempProject({
      'functions/one/a.ts': `import { twin } from 'twin';\nexport default () => twin();`,
      'functions/two/deep/b.ts': `import { twin } from 'twin';\nexport default () => twin();`,
      'node_modules/twin/package.json': JSON.stringify({ name: 'twin', version: '1.0.0', main: 'index.js' }),
      'node_modules/twin/index.js': `exports.twin = () => 'plain twin';`,
      // A native 'twin' of its own, under a folder with node_modules.
      'functions/own/c.ts': `import { twin } from 'twin';\nexport default () => twin();`,
      'functions/own/node_modules/twin/package.json': JSON.stringify({
        name: 'twin',
        version: '2.0.0',
        main: 'index.js',
        gypfile: true,
      }),
      'functions/own/node_modules/twin/index.js': `exports.twin = () => 'native twin';`,
    });
    const warnings: string[] = [];
    const native = new NativeModules(p.root, (message) => warnings.push(message));
    // One build after another, as the bundles of one `cloudfn build` are, sharing the answers.
    const bundleOf = async (file: string): Promise<string> => {
      const result = await build({
        entryPoints: [join(p.root, file)],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'node',
        absWorkingDir: p.root,
        logLevel: 'silent',
        plugins: [native.plugin().plugin],
      });
      return result.outputFiles[0]!.text;
    };
    try {
      expect(await bundleOf('functions/one/a.ts')).toContain('plain twin');
      expect(await bundleOf('functions/two/deep/b.ts')).toContain('plain twin');
      expect(warnings).toEqual([]);
      const own = await bundleOf('functions/own/c.ts');
      expect(own).not.toContain('native twin');
      expect(own).toMatch(/require\("twin"\)/);
      expect(warnings).toEqual([
        'package twin has a native addon (.node), which cannot be bundled; it is left external: install it where the bundle runs (npm install twin)',
      ]);
    } finally {
      p.remove();
    }
  });
});
