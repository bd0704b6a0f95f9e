/**
 * Native addons (`.node` files) cannot be put into a JavaScript bundle. A package that builds
 * or loads one is left external, and the build warns with the package's name so the image that
 * runs the bundle installs it. A package is recognised before it is bundled by its manifest
 * (`gypfile`, `binding.gyp`, a dependency on an addon loader); one found only when esbuild
 * meets its `.node` file is remembered, and the bundle is built again with it external.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { Plugin } from 'esbuild';

/** Loaders of prebuilt or compiled addons: a package depending on one has a native part. */
const ADDON_LOADERS = [
  'bindings',
  'node-gyp-build',
  'prebuild-install',
  '@mapbox/node-pre-gyp',
  'node-pre-gyp',
  'node-addon-api',
  'nan',
];
const BUILTINS = new Set(builtinModules);
/** Entries of a folder that change how a bare specifier resolves from it (`resolutionRoot`). */
const RESOLUTION_FILES = ['node_modules', 'package.json', 'tsconfig.json', 'jsconfig.json'];
/** The esbuild namespace of the modules standing in for native packages. */
const SHIM = 'cloudfn-native';

interface PackageInfo {
  name: string;
  dir: string;
  native: boolean;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * What the plugins of one build share: packages known to be native, and the warnings given.
 * @example
 * const native = new NativeModules(root, (message) => warnings.push(message));
 * const detector = native.plugin(); // build({ plugins: [detector.plugin] }); if (detector.rebuild()) build again
 */
export class NativeModules {
  readonly #cache = new Map<string, PackageInfo | undefined>();
  /**
   * Bare imports already resolved to a package that is not native, by the folder their
   * resolution starts from (`resolutionRoot`), kind and specifier: the same import is bundled
   * without asking esbuild again. Each ask is two trips between esbuild and node; a build of
   * 300 functions, each in its own folder, made one per function for each of its packages.
   */
  readonly #bundled = new Set<string>();
  /** Each folder's resolution root, by folder. */
  readonly #roots = new Map<string, string>();
  readonly #warned = new Set<string>();
  /** Names of native packages; imports of them stay external. */
  readonly external = new Set<string>();
  readonly #warn: (message: string) => void;
  readonly #root: string;

  constructor(root: string, warn: (message: string) => void) {
    this.#root = root;
    this.#warn = warn;
  }

  /** The package.json at or above `file`, read once per folder. */
  packageOf(file: string): PackageInfo | undefined {
    for (let dir = dirname(file); ; ) {
      if (this.#cache.has(dir)) return this.#cache.get(dir);
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        let info: PackageInfo | undefined;
        try {
          const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
            name?: string;
            gypfile?: boolean;
            dependencies?: Record<string, string>;
          };
          const deps = Object.keys(pkg.dependencies ?? {});
          info = {
            name: pkg.name ?? dir,
            dir,
            native:
              pkg.gypfile === true ||
              existsSync(join(dir, 'binding.gyp')) ||
              deps.some((d) => ADDON_LOADERS.includes(d)),
          };
        } catch {
          info = undefined;
        }
        this.#cache.set(dir, info);
        return info;
      }
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }

  /**
   * The nearest folder at or above `dir` that can change how a bare specifier resolves: one
   * holding `node_modules`, a `package.json` (its name, for a package importing itself) or a
   * `tsconfig.json`/`jsconfig.json` (`paths`). A bare import resolves the same from `dir` as
   * from this folder, so both share one answer.
   */
  resolutionRoot(dir: string): string {
    const known = this.#roots.get(dir);
    if (known !== undefined) return known;
    const parent = dirname(dir);
    const root =
      parent === dir || RESOLUTION_FILES.some((name) => existsSync(join(dir, name)))
        ? dir
        : this.resolutionRoot(parent);
    this.#roots.set(dir, root);
    return root;
  }

  warn(subject: string, why: string, fix: string): void {
    if (this.#warned.has(subject)) return;
    this.#warned.add(subject);
    this.#warn(`${subject} ${why}, which cannot be bundled; ${fix}`);
  }

  /**
   * The esbuild plugin of one bundle. `rebuild()` tells whether a package was found native
   * only through its `.node` file, after its JavaScript was already bundled.
   */
  plugin(): { plugin: Plugin; rebuild(): boolean } {
    let late = false;
    const plugin: Plugin = {
      name: 'cloudfn-native',
      setup: (build) => {
        build.onResolve({ filter: /\.node$/ }, (args) => {
          const owner = this.packageOf(join(args.resolveDir, 'index.js'));
          if (owner === undefined || owner.dir === this.#root) {
            this.warn(
              relative(this.#root, args.importer) || args.importer,
              `loads the native addon ${args.path}`,
              'copy the addon beside the bundle or load it from a package',
            );
          } else {
            // Its JavaScript is in this bundle already (even if another bundle found it first).
            this.external.add(owner.name);
            late = true;
            this.warn(
              `package ${owner.name}`,
              'has a native addon (.node)',
              `it is left external: install it where the bundle runs (npm install ${owner.name})`,
            );
          }
          return { path: args.path, external: true };
        });
        build.onResolve({ filter: /^[^./]/ }, async (args) => {
          // The shim's own require() of the package is left for Node to resolve at run time.
          if (args.namespace === SHIM) return { path: args.path, external: true };
          if (args.pluginData === 'cloudfn-native' || args.kind === 'entry-point') return undefined;
          if (BUILTINS.has(args.path) || args.path.startsWith('node:')) return undefined;
          const name = packageName(args.path);
          if (this.external.has(name)) return { path: args.path, namespace: SHIM };
          const key = `${this.resolutionRoot(args.resolveDir)}\0${args.kind}\0${args.path}`;
          if (this.#bundled.has(key)) return undefined;
          const resolved = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            importer: args.importer,
            pluginData: 'cloudfn-native',
          });
          if (resolved.errors.length > 0 || resolved.external || resolved.path === '') return undefined;
          // Not native: esbuild resolves it again its own way and bundles it.
          if (this.packageOf(resolved.path)?.native !== true) {
            this.#bundled.add(key);
            return undefined;
          }
          this.external.add(name);
          this.warn(
            `package ${name}`,
            'has a native addon (.node)',
            `it is left external: install it where the bundle runs (npm install ${name})`,
          );
          return { path: args.path, namespace: SHIM };
        });
        // Native packages are CommonJS; `import { x } from 'pkg'` of an external CommonJS package
        // fails in Node when its exports are assigned dynamically. Requiring it through a shim
        // lets esbuild's interop read the names at run time instead.
        build.onLoad({ filter: /.*/, namespace: SHIM }, (args) => ({
          contents: `module.exports = require(${JSON.stringify(args.path)});`,
          loader: 'js',
          resolveDir: this.#root,
        }));
      },
    };
    return { plugin, rebuild: () => late };
  }
}
