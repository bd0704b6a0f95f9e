/**
 * `cloudfn init`: copies a template of `templates/` into a new project folder, names the
 * project after the folder, and makes it depend on this version of cloudfn (from the registry,
 * or packed into `vendor/` when the registry does not have it: see vendor.ts).
 */
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createError } from '../../runtime/errors.js';
import { LAYOUTS, type Layout, toPlatformLayout } from './platform-layout.js';
import { isPublished, ownVersion, vendorCloudfn } from './vendor.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * templates/ of this package: beside src/ in the checkout, beside dist/ once built.
 * @example join(templatesDir(), 'starter')
 */
export function templatesDir(): string {
  for (const candidate of [join(here, '..', '..', 'templates'), join(here, '..', '..', '..', 'templates')]) {
    if (existsSync(join(candidate, 'starter'))) return candidate;
  }
  throw new Error(`cloudfn's templates folder is missing next to ${here}; reinstall cloudfn`);
}

/**
 * The names of the templates: folders of templates/ not starting with `_`.
 * @example listTemplates() // ['callback', 'live-room', 'media', 'starter']
 */
export function listTemplates(): string[] {
  const dir = templatesDir();
  return readdirSync(dir)
    .filter((name) => !name.startsWith('_') && !name.startsWith('.') && statSync(join(dir, name)).isDirectory())
    .sort();
}

/**
 * npm's rules for a package name, applied to a folder name.
 * @example packageNameFor('/home/ada/My Shop') // 'my-shop'
 */
export function packageNameFor(folder: string): string {
  const name = basename(folder)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name === '' ? 'cloudfn-app' : name.slice(0, 214);
}

/** Files a template keeps under another name, because npm leaves `.gitignore` out of packages. */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore' };
/** Never copied: what a template folder gains when it is run in place. */
const SKIPPED = new Set(['node_modules', 'dist', '.cloudfn', '.env', 'package-lock.json']);
/** Text files where the template's package name is replaced by the project's. */
const NAMED_FILES = ['package.json', 'README.md', 'deploy/knative-service.yaml', 'deploy/kubernetes.yaml'];

/** Options of `initProject`. */
export interface InitOptions {
  /** @default 'starter' */
  template?: string;
  /** The package name. @default the folder's name, made valid for npm */
  name?: string;
  /**
   * `functions`: each function in functions/; `platform`: each at the project root, as the
   * platform's own templates have them, with `"functionsDir": "."` (docs/platform-projects.md).
   * @default 'functions'
   */
  layout?: Layout;
  /**
   * Whether this cloudfn's version can be installed from the registry; when not, it is packed
   * into `vendor/` and the project depends on `file:vendor/cloudfn-<version>.tgz`.
   * @default isPublished: asks npm (`npm view cloudfn@<version> version`, 10 s at most)
   */
  isPublished?: (version: string) => boolean;
}

/** Where the new project installs cloudfn from. */
export interface CloudfnSource {
  version: string;
  /** `registry`: the version range; `vendor`: a tarball of this cloudfn in the project. */
  from: 'registry' | 'vendor';
  /** What package.json depends on: `^0.1.0` or `file:vendor/cloudfn-0.1.0.tgz`. */
  spec: string;
}

/** What `initProject` wrote. */
export interface InitResult {
  dir: string;
  template: string;
  layout: Layout;
  name: string;
  cloudfn: CloudfnSource;
  /** Paths relative to `dir`, sorted. */
  files: string[];
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    return entry.isDirectory() ? walk(full, base) : [relative(base, full)];
  });
}

/**
 * Creates a project in `dir` (which must not exist, or be empty) from a template.
 * @example initProject('my-app', { template: 'media' })
 */
export function initProject(dir: string, options: InitOptions = {}): InitResult {
  const template = options.template ?? 'starter';
  const templates = listTemplates();
  if (!templates.includes(template)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      '--template',
      `there is no template ${JSON.stringify(template)}; choose one of ${templates.join(', ')}`,
    );
  }
  const layout = options.layout ?? 'functions';
  if (!LAYOUTS.includes(layout)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      '--layout',
      `there is no layout ${JSON.stringify(layout)}; choose one of ${LAYOUTS.join(', ')}`,
    );
  }
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      dir,
      'exists and is not empty; choose a new folder name (cloudfn init never overwrites files)',
    );
  }
  const source = join(templatesDir(), template);
  cpSync(source, dir, { recursive: true, filter: (from) => !SKIPPED.has(basename(from)) || from === source });
  for (const [from, to] of Object.entries(RENAMED))
    if (existsSync(join(dir, from))) renameSync(join(dir, from), join(dir, to));

  if (layout === 'platform') toPlatformLayout(dir);

  const original = (JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { name: string }).name;
  const name = options.name ?? packageNameFor(dir);
  for (const file of NAMED_FILES) {
    const path = join(dir, file);
    if (existsSync(path)) writeFileSync(path, readFileSync(path, 'utf8').split(original).join(name));
  }
  const pkgPath = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { dependencies?: Record<string, string> };
  const version = ownVersion();
  const cloudfn: CloudfnSource = (options.isPublished ?? isPublished)(version)
    ? { version, from: 'registry', spec: `^${version}` }
    : { version, from: 'vendor', spec: `file:${vendorCloudfn(dir)}` };
  pkg.dependencies = { ...pkg.dependencies, cloudfn: cloudfn.spec };
  writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');
  return { dir, template, layout, name, cloudfn, files: walk(dir).sort() };
}
